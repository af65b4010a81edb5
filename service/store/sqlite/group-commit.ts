import type { Db } from './db.ts';

interface Job<T> { run: () => T; resolve: (v: T) => void; reject: (e: unknown) => void }

/**
 * Group commit for bulk creates. Batches whose validation finished in the same turn of the event loop are
 * written in one transaction (one WAL fsync at synchronous=FULL instead of one each), each inside its own
 * savepoint so a failing batch rolls back alone. Nobody is answered before the shared COMMIT: a 201 still
 * means "on disk", and a crash before the COMMIT loses the whole group, never part of a batch.
 */
export class GroupCommit {
  private pending: Job<unknown>[] = [];
  private scheduled = false;

  constructor(private readonly db: Db) {}

  submit<T>(run: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ run, resolve, reject } as Job<unknown>);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const jobs = this.pending;
    this.pending = [];
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      this.db.transaction(() => {
        for (const job of jobs) {
          try {
            outcomes.push({ ok: true, value: this.db.transaction(job.run)() });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      })();
    } catch (error) {
      for (const job of jobs) job.reject(error);
      return;
    }
    jobs.forEach((job, i) => {
      const o = outcomes[i]!;
      if (o.ok) job.resolve(o.value);
      else job.reject(o.error);
    });
  }
}

const groups = new WeakMap<Db, GroupCommit>();
export function groupCommit(db: Db): GroupCommit {
  let g = groups.get(db);
  if (!g) groups.set(db, (g = new GroupCommit(db)));
  return g;
}
