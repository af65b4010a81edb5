// The shared opener on its own, with migrations of its own: versions applied once and in order, a database from a
// newer build refused byte for byte untouched, owner-only files, and the statement cache per handle.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FutureSchemaError, cachedStatement, migrate, openSqlite, type Migration } from './sqlite.ts';

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

  it('migrate stops at the version asked for', () => {
    const db = openSqlite(':memory:', { ...schema([]), synchronous: 'FULL' });
    migrate(db, schema([v1, v2]), 1);
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    migrate(db, schema([v1, v2]));
    expect(db.pragma('user_version', { simple: true })).toBe(2);
    expect(() => migrate(db, schema([v1]))).toThrow(FutureSchemaError);
    db.close();
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

  it('creates an owner-only file in an owner-only folder when asked', () => {
    const file = join(dir, 'private', 'c.db');
    openSqlite(file, { ...schema([v1]), synchronous: 'FULL', ownerOnly: true }).close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'private')).mode & 0o777).toBe(0o700);
  });

  it('caches one prepared statement per handle and text', () => {
    const a = openSqlite(':memory:', { ...schema([v1]), synchronous: 'FULL' });
    const b = openSqlite(':memory:', { ...schema([v1]), synchronous: 'FULL' });
    expect(cachedStatement(a, 'SELECT 1')).toBe(cachedStatement(a, 'SELECT 1'));
    expect(cachedStatement(a, 'SELECT 1')).not.toBe(cachedStatement(b, 'SELECT 1'));
    a.close();
    b.close();
  });
});
