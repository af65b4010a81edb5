// The shared opener on its own, with migrations of its own: the pragmas it sets, versions brought up to date on open,
// a database from a newer build refused byte for byte untouched, the page size of a new file, owner-only files.
import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqlite, whenNotBusy } from './sqlite.ts';
import { FutureSchemaError, type Migration } from './migrations.ts';

const dir = mkdtempSync(join(tmpdir(), 'furrow-platform-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const v1: Migration = (db) => db.exec('CREATE TABLE t (x INTEGER)');
const v2: Migration = (db) => db.exec('ALTER TABLE t ADD COLUMN y TEXT');
const schema = (migrations: Migration[]) => ({ migrations, future: (found: number, known: number) => `version ${found} > ${known}` });

describe('openSqlite', () => {
  it('applies each pending migration once, in order, and records the version', () => {
    const file = join(dir, 'a.db');
    const db = openSqlite(file, { ...schema([v1]), synchronous: 'FULL' });
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    db.close();
    const again = openSqlite(file, { ...schema([v1, v2]), synchronous: 'NORMAL' });
    expect(again.pragma('user_version', { simple: true })).toBe(2);
    expect(again.pragma('synchronous', { simple: true })).toBe(1);
    expect(again.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('t')).toEqual(['x', 'y']);
    again.close();
  });

  it('refuses a database from a newer build with its message, leaving the file as it was', () => {
    const file = join(dir, 'b.db');
    openSqlite(file, { ...schema([v1, v2]), synchronous: 'FULL' }).close();
    const before = readFileSync(file);
    expect(() => openSqlite(file, { ...schema([v1]), synchronous: 'FULL' })).toThrow(new FutureSchemaError('version 2 > 1'));
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('creates a new file with the page size asked for; a file that exists keeps its own', () => {
    const file = join(dir, 'pages.db');
    const db = openSqlite(file, { ...schema([v1]), synchronous: 'FULL', pageSize: 16384 });
    expect(db.pragma('page_size', { simple: true })).toBe(16384);
    db.close();
    const old = join(dir, 'pages-old.db');
    openSqlite(old, { ...schema([v1]), synchronous: 'FULL' }).close();
    const reopened = openSqlite(old, { ...schema([v1, v2]), synchronous: 'FULL', pageSize: 16384 });
    expect(reopened.pragma('page_size', { simple: true })).toBe(4096);
    expect(reopened.pragma('user_version', { simple: true })).toBe(2);
    reopened.close();
  });

  // Bytes this thread handed to write(2): better-sqlite3 runs statements on the calling thread.
  const written = () => Number(/wchar: (\d+)/.exec(readFileSync('/proc/thread-self/io', 'utf8'))![1]);

  it.skipIf(!existsSync('/proc/thread-self/io'))('writes a transaction as its WAL frames only: no statement journal file beside them', () => {
    const file = join(dir, 'journal.db');
    const db = openSqlite(file, { ...schema([(d) => d.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT UNIQUE, v TEXT)')]), synchronous: 'NORMAL' });
    const insert = db.prepare('INSERT INTO t (k, v) VALUES (?, ?)');
    db.transaction(() => { for (let i = 0; i < 2000; i++) insert.run(`k${i}`, 'x'.repeat(1000)); })();
    db.pragma('wal_checkpoint(TRUNCATE)');
    const before = written();
    // Every row's unique key changes: the statement may fail halfway, so it keeps a journal to undo itself alone (2 MB
    // of pages, a temporary file when temp_store is FILE: twice the bytes written).
    db.transaction(() => db.prepare("UPDATE t SET k = k || 'y'").run())();
    expect(written() - before).toBe(statSync(`${file}-wal`).size);
    expect(db.pragma('temp_store', { simple: true })).toBe(2);
    db.close();
  });

  it('creates an owner-only file in an owner-only folder when asked', () => {
    const file = join(dir, 'private', 'c.db');
    openSqlite(file, { ...schema([v1]), synchronous: 'FULL', ownerOnly: true }).close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'private')).mode & 0o777).toBe(0o700);
  });

  // SQLite's unix VFS creates the -wal, -shm and -journal files with the database file's permission bits, not the
  // umask's: under umask 000 a file it made on its own would be 0644.
  it('keeps the -wal, -shm and -journal files as private as the database, whatever the umask', () => {
    const umask = process.umask(0o000);
    try {
      const file = join(dir, 'private-wal', 'd.db');
      const db = openSqlite(file, { ...schema([v1]), synchronous: 'FULL', ownerOnly: true });
      db.exec('INSERT INTO t VALUES (1)');
      for (const f of [file, `${file}-wal`, `${file}-shm`]) expect([f, statSync(f).mode & 0o777]).toEqual([f, 0o600]);
      // A rollback journal (db/bulk.ts imports with one) lives as long as its transaction.
      expect(db.pragma('journal_mode = DELETE', { simple: true })).toBe('delete');
      db.exec('BEGIN IMMEDIATE; INSERT INTO t VALUES (2)');
      expect(statSync(`${file}-journal`).mode & 0o777).toBe(0o600);
      db.exec('COMMIT');
      db.close();
    } finally {
      process.umask(umask);
    }
  });

  it('narrows a database, its -wal and its -shm found wider (made by an older build) when asked for owner-only', () => {
    const file = join(dir, 'wider.db');
    // An older build's connection, still open: the -wal and -shm stay.
    const older = openSqlite(file, { ...schema([v1]), synchronous: 'FULL' });
    older.exec('INSERT INTO t VALUES (1)');
    const files = [file, `${file}-wal`, `${file}-shm`];
    for (const f of files) chmodSync(f, 0o644);
    const db = openSqlite(file, { ...schema([v1]), synchronous: 'FULL', ownerOnly: true });
    for (const f of files) expect([f, statSync(f).mode & 0o777]).toEqual([f, 0o600]);
    expect(db.prepare('SELECT x FROM t').pluck().all()).toEqual([1]);
    db.close();
    older.close();
  });
});

describe('whenNotBusy', () => {
  it('retries while another connection holds the write lock, and gives up after the tries it is given', () => {
    const file = join(dir, 'busy.db');
    openSqlite(file, { ...schema([v1]), synchronous: 'FULL' }).close();
    const holder = new Database(file);
    const waiter = new Database(file, { timeout: 0 });
    holder.exec('BEGIN IMMEDIATE');
    expect(() => whenNotBusy(() => waiter.exec('INSERT INTO t VALUES (1)'), 2)).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
    let tries = 0;
    whenNotBusy(() => {
      if (++tries === 3) holder.exec('COMMIT');
      waiter.exec('INSERT INTO t VALUES (2)');
    });
    expect(tries).toBe(3);
    expect(waiter.prepare('SELECT x FROM t').pluck().all()).toEqual([2]);
    holder.close();
    waiter.close();
  });
});
