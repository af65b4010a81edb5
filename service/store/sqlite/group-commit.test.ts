// Group commit: batches share one COMMIT, yet each stays all-or-nothing on its own.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { GroupCommit } from './group-commit.ts';

let db: Database.Database;
beforeEach(() => {
  db = new Database(':memory:');
  db.exec('CREATE TABLE t (batch TEXT NOT NULL, n INTEGER NOT NULL CHECK (n >= 0))');
});
afterEach(() => db.close());

const insertBatch = (batch: string, values: number[]) => () => {
  const ins = db.prepare('INSERT INTO t (batch, n) VALUES (?, ?)');
  for (const v of values) ins.run(batch, v);
  return values.length;
};
const rows = (batch: string) => (db.prepare('SELECT COUNT(*) AS c FROM t WHERE batch = ?').get(batch) as { c: number }).c;

describe('GroupCommit', () => {
  it('writes batches submitted in the same turn in one transaction, and a failing batch rolls back alone', async () => {
    const g = new GroupCommit(db);
    let commits = 0;
    const origTransaction = db.transaction.bind(db);
    (db as unknown as { transaction: typeof db.transaction }).transaction = ((fn: () => unknown) => {
      const t = origTransaction(fn);
      return Object.assign((...a: unknown[]) => { if (!db.inTransaction) commits++; return t(...(a as [])); }, t);
    }) as typeof db.transaction;
    const results = await Promise.allSettled([
      g.submit(insertBatch('a', [1, 2, 3])),
      g.submit(insertBatch('bad', [1, 2, -1])), // the CHECK fails on the third row
      g.submit(insertBatch('c', [4, 5])),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect([rows('a'), rows('bad'), rows('c')]).toEqual([3, 0, 2]);
    expect(commits).toBe(1);
  });

  it('answers nobody before the shared COMMIT: when it fails, every batch fails and nothing is stored', async () => {
    const g = new GroupCommit(db);
    // A deferred foreign key only fails at COMMIT time.
    db.exec('PRAGMA foreign_keys = ON; CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE child (p INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)');
    const results = await Promise.allSettled([
      g.submit(insertBatch('a', [1])),
      g.submit(() => db.prepare('INSERT INTO child (p) VALUES (42)').run().changes),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(rows('a')).toBe(0);
  });
});
