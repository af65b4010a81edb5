import { dirname } from 'node:path';
import { openDb, type Db } from './open.ts';
import { diskFull } from '../platform/node/sqlite.ts';
import { MirrorReader } from './reader.ts';
import { MirrorWriter } from './writer.ts';
import { inFlightToUncertain } from './outbox.ts';
import { liveSyncHolder } from './settings.ts';
import { ChangeLog } from './change-log.ts';
import { checkpointNow } from './bulk.ts';

/**
 * The mirror with its two faces typed apart: `read` for everything that shows data, `write` for user edits
 * (which feed the outbox and the undo history). The sync engine gets the handle through `syncDb`, only to pass it
 * to db/'s named sync functions (db/outbox.ts, db/conflicts.ts, db/sync-state.ts, db/pull.ts): it runs no SQL of
 * its own (eslint.config.js).
 */
export class Mirror {
  readonly read: MirrorReader;
  readonly write: MirrorWriter;

  private constructor(readonly syncDb: Db) {
    this.read = new MirrorReader(syncDb);
    this.write = new MirrorWriter(syncDb);
  }

  /**
   * Opening after a crash: whatever was in flight may or may not have reached the service. A sync that is
   * alive in another process still owns its in-flight ops, so they are left alone then; the check and the change are
   * one transaction, so that a sync starting meanwhile cannot have its ops taken. `recover: false` for a connection of
   * a process whose own first connection did that already (the host's import and preview threads): a thread must
   * never touch the ops its process's sync has in flight, and a preview only reads.
   */
  static open(file: string, opts: { recover?: boolean } = {}): Mirror {
    const db = openDb(file);
    if (opts.recover === false) return new Mirror(db);
    try {
      db.transaction(() => {
        if (liveSyncHolder(db) === null) inFlightToUncertain(db);
      }).immediate();
    } catch (err) {
      // A full disk: what was in flight stays so on disk, and is made uncertain by the next open that can write (a
      // sync cannot run before then: it writes too). Reading the mirror still works.
      if (!diskFull(err, dirname(file))) {
        db.close();
        throw err;
      }
    }
    return new Mirror(db);
  }

  /** Logs every write made on this connection from now on, for change events (db/change-log.ts). */
  changeLog(): ChangeLog {
    return new ChangeLog(this.syncDb);
  }

  /** Copies the WAL into the database now (after an import, on its own thread). */
  checkpoint(): void {
    checkpointNow(this.syncDb);
  }

  close(): void {
    this.syncDb.close();
  }
}
