// The migration runner on its own, with migrations of its own and a real file: versions applied once, in order and
// all or none, and a database from a newer build refused.
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FutureSchemaError, migrate, refuseFuture, type Migration } from './migrations.ts';

const dir = mkdtempSync(join(tmpdir(), 'furrow-migrations-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const fresh = () => new Database(join(dir, `${files++}.db`));

const v1: Migration = (db) => db.exec('CREATE TABLE t (x INTEGER)');
const v2: Migration = (db) => db.exec('ALTER TABLE t ADD COLUMN y TEXT');
const schema = (migrations: Migration[]) => ({ migrations, future: (found: number, known: number) => `version ${found} > ${known}` });
const version = (db: Database.Database) => db.pragma('user_version', { simple: true });

describe('migrate', () => {
  it('applies each pending migration once, in order, and records the version', () => {
    const db = fresh();
    const applied: number[] = [];
    const counted = (n: number, m: Migration): Migration => (d) => { applied.push(n); m(d); };
    migrate(db, schema([counted(1, v1)]));
    migrate(db, schema([counted(1, v1), counted(2, v2)]));
    migrate(db, schema([counted(1, v1), counted(2, v2)]));
    expect(applied).toEqual([1, 2]);
    expect(version(db)).toBe(2);
    expect(db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('t')).toEqual(['x', 'y']);
    db.close();
  });

  it('stops at the version asked for', () => {
    const db = fresh();
    migrate(db, schema([v1, v2]), 1);
    expect(version(db)).toBe(1);
    migrate(db, schema([v1, v2]));
    expect(version(db)).toBe(2);
    db.close();
  });

  it('runs the pending migrations as one transaction: a failing one leaves the schema as it was', () => {
    const db = fresh();
    const broken: Migration = (d) => d.exec('CREATE TABLE nope (');
    expect(() => migrate(db, schema([v1, broken]))).toThrow();
    expect(version(db)).toBe(0);
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 't'").pluck().get()).toBe(0);
    db.close();
  });

  it('refuses a database from a newer build with its message, and runs nothing', () => {
    const db = fresh();
    migrate(db, schema([v1, v2]));
    let ran = false;
    const older = schema([(d) => { ran = true; v1(d); }]);
    expect(() => refuseFuture(db, older)).toThrow(new FutureSchemaError('version 2 > 1'));
    expect(() => migrate(db, older)).toThrow(FutureSchemaError);
    expect(ran).toBe(false);
    expect(version(db)).toBe(2);
    db.close();
  });
});
