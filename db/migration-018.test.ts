// Migration 018: parcels_farm indexes a farm's parcels by (farm, deleted) alone, so a farm's new parcels are appended
// to it in rowid order, as their rows are, instead of each going to a page at random by its hectares.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { migrate, openDb } from './open.ts';
import { migrations } from './migrations/index.ts';
import { MirrorReader } from './reader.ts';

let dir: string;
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'furrow-m018-')); });
afterEach(() => { rmSync(dir, { recursive: true, force: true }); });

const t = '2026-01-01T00:00:00.000Z';
const columns = (db: Database.Database) => (db.prepare("SELECT name FROM pragma_index_info('parcels_farm')").pluck().all() as string[]);

/** A mirror at `version` with one account and one farm; add(n) gives the farm n more parcels of random hectares, in one transaction. */
function mirrorAt(version: number): { db: Database.Database; add: (n: number) => void } {
  const db = new Database(join(dir, `v${version}.db`));
  migrate(db, version);
  db.prepare('INSERT INTO accounts (id, service_url, mode, created) VALUES (?, ?, ?, ?)').run('acc', 'http://x', 'api_key', t);
  db.prepare("INSERT INTO farms (local_id, account_id, name, created, modified) VALUES ('f1', 'acc', 'F', ?, ?)").run(t, t);
  const parcel = db.prepare(`INSERT INTO parcels (local_id, account_id, farm_local_id, name, source_type, geometry, hectares, minx, miny, maxx, maxy, deleted, created, modified)
    VALUES (?, 'acc', 'f1', ?, 'Polygon', '{}', ?, 0, 0, 1, 1, ?, '${t}', '${t}')`);
  // A fixed sequence of hectares in no order (a linear congruential generator), as a file's fields come.
  let h = 12345;
  let i = 0;
  const add = (n: number) => db.transaction(() => {
    for (const end = i + n; i < end; i++) {
      h = (h * 1103515245 + 12345) % 2147483648;
      parcel.run(`p-${String(i).padStart(6, '0')}`, `P${i}`, (h % 100_000) / 1000, i % 10 === 0 ? 1 : 0);
    }
  })();
  return { db, add };
}

describe('migration 018', () => {
  it('indexes a farm\'s parcels by farm and deleted flag; a mirror of version 17 keeps its parcels, counts and totals', () => {
    const { db: old, add } = mirrorAt(17);
    add(50);
    expect(columns(old)).toEqual(['farm_local_id', 'deleted', 'hectares']);
    old.close();
    const db = openDb(join(dir, 'v17.db'));
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(columns(db)).toEqual(['farm_local_id', 'deleted']);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const m = new MirrorReader(db as never);
    // 45 live parcels (every tenth deleted), counted and paged through the index.
    expect(m.farmParcelPage('f1', 0, 100).total).toBe(45);
    expect(m.farmParcelPage('f1', 0, 100).parcels).toHaveLength(45);
    const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('f1') as { detail: string }[]).map((r) => r.detail).join('; ');
    expect(plan('SELECT count(*) FROM parcels WHERE farm_local_id = ? AND deleted = 0')).toMatch(/COVERING INDEX parcels_farm \(farm_local_id=\? AND deleted=\?\)/);
    expect(plan('SELECT local_id FROM parcels WHERE farm_local_id = ?')).toMatch(/INDEX parcels_farm \(farm_local_id=\?\)/);
    db.close();
  });

  it('takes a farm\'s new parcels in order: a transaction adding 1,000 rewrites a few pages of the index, not all of them', () => {
    // By (farm, deleted, hectares) each new entry goes to a page at random among the farm's, and a transaction rewrites
    // nearly every page of the index; by (farm, deleted) the entries are appended.
    const indexPagesWritten = (version: number) => {
      const { db, add } = mirrorAt(version);
      db.pragma('journal_mode = WAL');
      add(20_000);
      db.pragma('wal_checkpoint(TRUNCATE)');
      add(1_000);
      // The pages the transaction wrote (each WAL frame's header starts with its page number) that are the index's.
      const pageSize = db.pragma('page_size', { simple: true }) as number;
      const wal = readFileSync(`${db.name}-wal`);
      const written = new Set<number>();
      for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) written.add(wal.readUInt32BE(at));
      const index = db.prepare("SELECT pageno FROM dbstat WHERE name = 'parcels_farm'").pluck().all() as number[];
      db.close();
      return { written: index.filter((p) => written.has(p)).length, of: index.length };
    };
    const before = indexPagesWritten(17);
    const lean = indexPagesWritten(18);
    // 20,000 then 1,000 parcels with 4 KiB pages: all 115 of 115 pages, against 7 of 63.
    expect(before.written).toBeGreaterThan(0.8 * before.of);
    expect(lean.written).toBeLessThan(0.2 * lean.of);
  });
});
