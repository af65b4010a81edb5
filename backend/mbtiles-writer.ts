// An area's MBTiles file while its download runs: FURROW_HOME/layers/<file>.mbtiles.part, which holds the tiles
// fetched so far and the download's journal (what was asked: the layer's source as it was, the area's boxes, the
// zooms, the total), so that a download paused, or cut by a crash or a closed laptop, goes on from its file alone:
// a tile in `tiles` or in `furrow_empty` (the server had none: 404) is done, every other one is fetched — also those
// in `furrow_failed`, given up on after their retries by an earlier run; a download kept without these (the user's
// choice, finish's allowMissing) says how many in its journal, `missing`.
//
// A rollback journal (PERSIST) with synchronous=OFF while it is written: nothing is fsynced, yet what is committed
// survives the process being killed (the kernel holds it; a transaction cut mid-way is rolled back from its journal
// at the next open). Not WAL: a tile went to the disk twice there (the WAL, then the checkpoint), here once — new
// pages are appended to the file and only the few existing pages a commit changes are journaled. A checkpoint's or a
// commit's fsyncs on the host's thread stalled every request of the download on a busy disk, and the file is only the
// tiles fetched so far: were the machine to lose power mid-way and the file be damaged, it is removed and the area
// downloaded again (backend/offline-areas.ts), never used. The tiles are committed in batches (backend/offline-job.ts),
// so a crash loses at most those of the batch and those in flight. Finishing checks the count, writes the metadata,
// leaves the journal (a complete file is one file, opened read-only), marks the journal complete and fsyncs; the
// rename to .mbtiles is the caller's (after the layer names the file), so a file is never seen complete before it is.
// A .part written by an earlier version in WAL is turned into this mode when opened.
import Database from 'better-sqlite3';
import { closeSync, fsyncSync, openSync, renameSync, rmSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { LayerSource } from '../core/api-layers.ts';
import { tileKey, tmsRow } from '../core/tiles/tile-math.ts';
import { tileContentType } from '../db/mbtiles.ts';

/** MBTiles' `format` of each image type. */
const FORMATS: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

/** What a download was asked, kept in its file. */
export interface DownloadJournal {
  layer: string;
  /** The layer's source when the download began: a layer since changed does not get these tiles. */
  source: LayerSource;
  name: string;
  attribution?: string;
  boxes: [number, number, number, number][];
  bbox: [number, number, number, number];
  minZoom: number;
  maxZoom: number;
  total: number;
  started: string;
  /** Set once the file is complete and checked (finish): only the rename is left. */
  complete?: string;
  /** Tiles kept without (failed however often asked: finish with allowMissing), when any. */
  missing?: number;
}

export interface FetchedTile {
  z: number;
  x: number;
  y: number;
  /** null: the server has no tile there (404, 204), or none was got (`failed`). */
  data: Buffer | null;
  /** Why no tile was got after the retries: recorded as failed, fetched again by the next run. */
  failed?: string;
}

const SCHEMA = `
  CREATE TABLE metadata (name TEXT NOT NULL, value TEXT);
  CREATE TABLE tiles (zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL, tile_data BLOB NOT NULL);
  CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
  CREATE TABLE furrow_empty (zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL, PRIMARY KEY (zoom_level, tile_column, tile_row)) WITHOUT ROWID;
  CREATE TABLE furrow_download (journal TEXT NOT NULL);
`;
/** The tiles given up on after their retries (a file from before it has none: created when opened). */
const FAILED = 'CREATE TABLE IF NOT EXISTS furrow_failed (zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL, why TEXT NOT NULL, PRIMARY KEY (zoom_level, tile_column, tile_row)) WITHOUT ROWID';

/** Whether a layers-folder file name is a file being written, or one of SQLite's files beside it. */
export const isPartial = (fileName: string): boolean => /\.part(-wal|-shm|-journal)?$/.test(fileName);

/** Removes a .part file and SQLite's files beside it. */
export function removePart(path: string): void {
  for (const f of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) rmSync(f, { force: true });
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } catch {
    // a folder cannot be fsynced on every system (Windows): the rename is still atomic
  } finally {
    closeSync(fd);
  }
}

/** Bytes of tiles after which what the file holds is written out to the disk, off the host's thread. */
const FLUSH_BYTES = 16 * 1024 * 1024;

/**
 * fdatasync of a file on libuv's threads: the tiles checkpointed into it reach the disk while the download goes on,
 * so that completing it does not wait for all of them at once (a 1 GB area's one fsync took seconds). Best effort.
 */
async function flushFile(path: string): Promise<void> {
  const h = await openFile(path, 'r').catch(() => null);
  if (!h) return;
  try {
    await h.datasync();
  } catch {
    // the completion's own fsync still comes
  } finally {
    await h.close().catch(() => undefined);
  }
}

export class PartFile {
  private unflushed = 0;
  private flushing: Promise<void> | null = null;
  private readonly insertTile: Database.Statement<[number, number, number, Buffer]>;
  private readonly insertEmpty: Database.Statement<[number, number, number]>;
  private readonly insertFailed: Database.Statement<[number, number, number, string]> | null;
  private readonly deleteFailed: Database.Statement<[number, number, number]> | null;
  private readonly put: (tiles: readonly FetchedTile[]) => void;
  private journalCache: DownloadJournal;
  /** Tiles recorded as failed: while none, a tile done needs no look at them. */
  private failedCount = 0;

  private constructor(readonly path: string, private readonly db: Database.Database) {
    this.journalCache = JSON.parse(db.prepare('SELECT journal FROM furrow_download').pluck().get() as string) as DownloadJournal;
    // A complete file keeps no journal: it is published as one file, for readers that open it read-only.
    const writing = !this.journalCache.complete;
    if (writing) {
      db.pragma('journal_mode = PERSIST');
      db.pragma('synchronous = OFF');
      db.exec(FAILED);
      this.failedCount = db.prepare('SELECT count(*) FROM furrow_failed').pluck().get() as number;
    }
    this.insertTile = db.prepare('INSERT OR REPLACE INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (?, ?, ?, ?)');
    this.insertEmpty = db.prepare('INSERT OR IGNORE INTO furrow_empty (zoom_level, tile_column, tile_row) VALUES (?, ?, ?)');
    this.insertFailed = writing ? db.prepare('INSERT OR REPLACE INTO furrow_failed (zoom_level, tile_column, tile_row, why) VALUES (?, ?, ?, ?)') : null;
    this.deleteFailed = writing ? db.prepare('DELETE FROM furrow_failed WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?') : null;
    const countFailed = writing ? db.prepare('SELECT count(*) FROM furrow_failed').pluck() : null;
    this.put = db.transaction((tiles: readonly FetchedTile[]) => {
      let touched = false;
      for (const t of tiles) {
        const row = tmsRow(t.z, t.y);
        if (t.failed !== undefined) {
          this.insertFailed!.run(t.z, t.x, row, t.failed);
          touched = true;
          continue;
        }
        if (t.data) this.insertTile.run(t.z, t.x, row, t.data);
        else this.insertEmpty.run(t.z, t.x, row);
        if (this.failedCount) touched = this.deleteFailed!.run(t.z, t.x, row).changes > 0 || touched;
      }
      if (touched) this.failedCount = countFailed!.get() as number;
    });
  }

  /** A new file with its journal, both in one transaction (a file without a journal is no download's: removed). */
  static create(path: string, journal: DownloadJournal): PartFile {
    removePart(path);
    const db = new Database(path);
    try {
      db.pragma('page_size = 8192');
      db.transaction(() => {
        db.exec(SCHEMA);
        db.prepare('INSERT INTO furrow_download (journal) VALUES (?)').run(JSON.stringify(journal));
      })();
      return new PartFile(path, db);
    } catch (err) {
      db.close();
      removePart(path);
      throw err;
    }
  }

  /** The download in an existing file; null when it holds none (a file cut before its journal was committed). */
  static open(path: string): PartFile | null {
    let db: Database.Database;
    try {
      db = new Database(path, { fileMustExist: true });
    } catch {
      return null;
    }
    try {
      const has = db.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('furrow_download', 'tiles', 'furrow_empty')").pluck().get() as number;
      if (has !== 3) throw new Error('no journal');
      return new PartFile(path, db);
    } catch {
      db.close();
      return null;
    }
  }

  /** The journal kept in a file (a complete area's keeps it: what it was downloaded with), or null. */
  static journalOf(path: string): DownloadJournal | null {
    try {
      const db = new Database(path, { readonly: true, fileMustExist: true });
      try {
        return JSON.parse(db.prepare('SELECT journal FROM furrow_download').pluck().get() as string) as DownloadJournal;
      } finally {
        db.close();
      }
    } catch {
      return null;
    }
  }

  get journal(): DownloadJournal {
    return this.journalCache;
  }

  /** The tiles done (stored or empty), by tileKey of their XYZ coordinates. */
  doneKeys(): Set<number> {
    const done = new Set<number>();
    for (const table of ['tiles', 'furrow_empty']) {
      for (const r of this.db.prepare(`SELECT zoom_level AS z, tile_column AS x, tile_row AS row FROM ${table}`).raw().iterate() as Iterable<[number, number, number]>) {
        done.add(tileKey(r[0], r[1], tmsRow(r[0], r[2])));
      }
    }
    return done;
  }

  /** Tiles stored, tiles the server had none for, the bytes stored, and tiles given up on after their retries. */
  counts(): { tiles: number; empty: number; bytes: number; failed: number } {
    const t = this.db.prepare('SELECT count(*) AS n, coalesce(sum(length(tile_data)), 0) AS bytes FROM tiles').get() as { n: number; bytes: number };
    const empty = this.db.prepare('SELECT count(*) FROM furrow_empty').pluck().get() as number;
    // Read, not remembered: the tiles are written by another connection (the download's thread, offline-writer.ts).
    const failed = this.journalCache.complete ? 0 : this.db.prepare('SELECT count(*) FROM furrow_failed').pluck().get() as number;
    return { tiles: t.n, empty, bytes: t.bytes, failed };
  }

  /** Stores fetched tiles (and empty ones) in one transaction. */
  write(tiles: readonly FetchedTile[]): void {
    if (!tiles.length) return;
    this.put(tiles);
    for (const t of tiles) this.unflushed += t.data?.length ?? 0;
    if (this.unflushed >= FLUSH_BYTES && !this.flushing) {
      this.unflushed = 0;
      this.flushing = flushFile(this.path).finally(() => { this.flushing = null; });
    }
  }

  /** Once the last fdatasync begun by write() is over (a thread closing the file waits for it). */
  async settled(): Promise<void> {
    await this.flushing;
  }

  /**
   * Completes the file: every tile of the journal done (else an Error), the metadata written, the rollback journal
   * removed, the file fsynced and the journal marked complete. Closes it.
   */
  finish(opts: { allowMissing?: boolean } = {}): { tiles: number; bytes: number; missing: number; empty: number } {
    const j = this.journal;
    const c = this.counts();
    const missing = opts.allowMissing ? c.failed : 0;
    if (c.tiles + c.empty + missing !== j.total) throw new Error(`the file holds ${c.tiles + c.empty} tiles of ${j.total}${missing ? ` (${missing} failed)` : ''}`);
    const first = this.db.prepare('SELECT tile_data FROM tiles LIMIT 1').pluck().get() as Buffer | undefined;
    const format = FORMATS[first ? tileContentType(first) : 'image/png'] ?? 'png';
    const meta: Record<string, string> = {
      name: j.name, format, type: 'baselayer', version: '1.3',
      bounds: j.bbox.join(','), center: `${(j.bbox[0] + j.bbox[2]) / 2},${(j.bbox[1] + j.bbox[3]) / 2},${j.minZoom}`,
      minzoom: String(j.minZoom), maxzoom: String(j.maxZoom),
      description: 'An area made available offline by Furrow',
      ...(j.attribution ? { attribution: j.attribution } : {}),
    };
    const complete: DownloadJournal = { ...j, complete: new Date().toISOString(), ...(missing ? { missing } : {}) };
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM metadata').run();
      const ins = this.db.prepare('INSERT INTO metadata (name, value) VALUES (?, ?)');
      for (const [k, v] of Object.entries(meta)) ins.run(k, v);
      this.db.prepare('UPDATE furrow_download SET journal = ?').run(JSON.stringify(complete));
    })();
    this.journalCache = complete;
    this.db.pragma('journal_mode = DELETE');
    this.db.close();
    fsyncPath(this.path);
    return { tiles: c.tiles, bytes: c.bytes, missing, empty: c.empty };
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

/** Renames a complete .part to its final name, durably (the folder's entry fsynced). */
export function publish(part: string, final: string): void {
  renameSync(part, final);
  fsyncPath(dirname(final));
}
