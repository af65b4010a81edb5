// The mirror's long writing jobs, one at a time: an import (on its thread, holding SQLite's write lock for its whole
// all-or-nothing transaction) or a sync (on the host's thread). The other kind waits for its turn here,
// asynchronously: waiting on SQLite's lock instead would stop the host's thread (busy_timeout sleeps) and with it
// every answer to the app — a sync started during an import froze the host for over a second.
import { EditError } from '../db/writer.ts';
import { RpcError } from '../core/rpc.ts';
import { ApiErrorCode } from '../core/api-codes.ts';

export type JobKind = 'import' | 'sync';

export class Jobs {
  private job: { kind: JobKind; done: Promise<void> } | null = null;

  /** `flush`: sends the change events of the writes just made (backend/context.ts). */
  constructor(private readonly flush: () => void) {}

  /** The job running now, if any. */
  get running(): JobKind | null {
    return this.job?.kind ?? null;
  }

  /** Until no import holds the mirror's write lock (a sync writes on the host's own connection: no wait for it). */
  async idle(): Promise<void> {
    while (this.job?.kind === 'import') await this.job.done;
  }

  /**
   * Waits for the job running (a second sync is refused), then starts `kind`; call the result when it ends. The
   * check and the start happen in one turn of the event loop, so two calls can never both start.
   */
  async turn(kind: JobKind): Promise<() => void> {
    while (this.job) {
      if (kind === 'sync' && this.job.kind === 'sync') throw new RpcError(ApiErrorCode.busy, 'A sync is already running');
      await this.job.done;
    }
    let end!: () => void;
    this.job = { kind, done: new Promise<void>((resolve) => { end = resolve; }) };
    return () => {
      this.job = null;
      end();
    };
  }

  /** Runs `fn` as the job of the moment, so that no sync starts meanwhile (one running refuses it: busy). */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const end = await this.turn('sync');
    try {
      return await fn();
    } finally {
      end();
    }
  }

  /** Runs a write once no import holds the mirror, then sends its change events; an edit refused says why. */
  async write<T>(fn: () => T): Promise<T> {
    await this.idle();
    try {
      return fn();
    } catch (err) {
      if (err instanceof EditError) throw new RpcError(ApiErrorCode.invalidParcel, err.message, err.problems);
      throw err;
    } finally {
      this.flush();
    }
  }
}
