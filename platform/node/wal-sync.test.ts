import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { WalSync } from './wal-sync.ts';

const dir = mkdtempSync(join(tmpdir(), 'wal-sync-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function walDb(name: string): Database.Database {
  const db = new Database(join(dir, name));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE t (x INTEGER)');
  return db;
}

/** This process's descriptors open on a path (Linux /proc). */
const openOn = (path: string) => readdirSync('/proc/self/fd').filter((fd) => {
  try { return readlinkSync(`/proc/self/fd/${fd}`) === path; } catch { return false; }
}).length;

describe('WalSync: a durable commit whose fsync runs off the thread', () => {
  it('only for a database file in WAL mode', () => {
    const mem = new Database(':memory:');
    expect(WalSync.of(mem)).toBeNull();
    mem.close();
    const rollback = new Database(join(dir, 'rollback.db'));
    rollback.exec('CREATE TABLE t (x INTEGER)');
    expect(WalSync.of(rollback)).toBeNull();
    rollback.close();
    const db = walDb('wal.db');
    expect(WalSync.of(db)).not.toBeNull();
    db.close();
  });

  it('commits the transaction without its own fsync, restores the durability, and a flush syncs the WAL through a descriptor of its own', async () => {
    const db = walDb('commit.db');
    const file = join(dir, 'commit.db');
    const wal = WalSync.of(db)!;
    const before = openOn(`${file}-wal`);
    let inside: unknown;
    const n = wal.write(() => {
      inside = db.pragma('synchronous', { simple: true });
      db.prepare('INSERT INTO t VALUES (1), (2)').run();
      return db.inTransaction;
    });
    expect(n).toBe(true);
    expect(inside).toBe(1); // NORMAL while it commits
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL again
    expect(openOn(`${file}-wal`)).toBe(before); // nothing synced yet
    await wal.flush();
    // The WAL was opened once more, for its fdatasync.
    expect(openOn(`${file}-wal`)).toBe(before + 1);
    const other = new Database(file, { readonly: true });
    expect(other.prepare('SELECT count(*) FROM t').pluck().get()).toBe(2);
    other.close();
    await wal.close();
    expect(openOn(`${file}-wal`)).toBe(before);
    db.close();
  });

  it('a failing transaction rolls back, leaves the durability as it was and syncs nothing', async () => {
    const db = walDb('fail.db');
    const wal = WalSync.of(db)!;
    expect(() => wal.write(() => {
      db.prepare('INSERT INTO t VALUES (1)').run();
      throw new Error('no');
    })).toThrow('no');
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(openOn(join(dir, 'fail.db-wal'))).toBe(1); // SQLite's own only
    db.close();
  });

  it('refuses to run inside a transaction, whose commit is not its own', async () => {
    const db = walDb('nested.db');
    const wal = WalSync.of(db)!;
    db.exec('BEGIN');
    expect(() => wal.write(() => 1)).toThrow(/inside a transaction/);
    db.exec('ROLLBACK');
    db.close();
  });
});
