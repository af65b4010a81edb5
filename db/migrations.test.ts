// The mirror's schema version: a new file is migrated to the latest version, reopening is a no-op, and a file
// written by a newer Furrow is refused without a single byte changed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { FutureSchemaError, MIRROR_PAGE_SIZE, migrate, openDb } from './open.ts';
import { migrations } from './migrations/index.ts';
import { Mirror } from './mirror.ts';
import { parcelsEditedSinceSent } from './op-transitions.ts';
import { readAfterState, saveReadAfterState } from './read-after.ts';
import { changeCursor, markPulled } from './pull.ts';
import { MirrorReader } from './reader.ts';
import { markBatch } from './batch-marks.ts';
import { inFlightToUncertain } from './outbox.ts';

let dir: string;
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'furrow-migrate-')); });
afterEach(() => { rmSync(dir, { recursive: true, force: true }); });

const tables = (db: Database.Database) =>
  (db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger') AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'parcels_rtree_%' AND name NOT LIKE 'parcels_fts_%' AND name NOT LIKE 'plants_rtree_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);

describe('migrations', () => {
  it('a new mirror is at the latest user_version with every table, WAL and synchronous FULL; reopening changes nothing', () => {
    expect(migrations).toHaveLength(19);
    const file = join(dir, 'new.db');
    const db = openDb(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('page_size', { simple: true })).toBe(MIRROR_PAGE_SIZE);
    const first = tables(db);
    expect(first).toEqual(expect.arrayContaining(['accounts', 'farms', 'parcels', 'parcels_rtree', 'parcels_fts', 'crops', 'crop_families', 'plants', 'outbox', 'push_batches', 'conflicts', 'history', 'settings', 'parcels_ai', 'parcels_au', 'parcels_box_au', 'parcels_ad', 'plants_rtree', 'plants_ai', 'plants_au', 'plants_ad', 'farm_totals', 'parcels_totals_ai', 'parcels_totals_au', 'parcels_totals_ad', 'held_deletions']));
    db.prepare("INSERT INTO settings (key, value) VALUES ('k', 'v')").run();
    db.close();

    const again = openDb(file);
    expect(again.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(tables(again)).toEqual(first);
    expect(again.prepare("SELECT value FROM settings WHERE key = 'k'").get()).toEqual({ value: 'v' });
    migrate(again);
    expect(again.pragma('user_version', { simple: true })).toBe(migrations.length);
    again.close();
  });

  it('002 adds the validation stamp: parcels written under version 1 keep their data and start unchecked', () => {
    const file = join(dir, 'v1.db');
    const old = new Database(file);
    migrate(old, 1);
    const t = '2026-01-01T00:00:00.000Z';
    old.prepare("INSERT INTO accounts (id, service_url, mode, created) VALUES ('acc-1', 'http://x', 'api_key', ?)").run(t);
    old.prepare("INSERT INTO farms (local_id, account_id, name, created, modified) VALUES ('f1', 'acc-1', 'Farm', ?, ?)").run(t, t);
    old.prepare(`INSERT INTO parcels (local_id, account_id, farm_local_id, name, source_type, geometry, hectares, minx, miny, maxx, maxy, created, modified)
      VALUES ('p1', 'acc-1', 'f1', 'Old field', 'Polygon', '{}', 1.5, 0, 0, 1, 1, ?, ?)`).run(t, t);
    expect(old.pragma('user_version', { simple: true })).toBe(1);
    old.close();

    const db = openDb(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(db.prepare("SELECT name, hectares, checked FROM parcels WHERE local_id = 'p1'").get()).toEqual({ name: 'Old field', hectares: 1.5, checked: null });
    // A mirror made before MIRROR_PAGE_SIZE keeps its 4 KiB pages.
    expect(db.pragma('page_size', { simple: true })).toBe(4096);
    db.close();
  });

  it('003 adds the sent state to the outbox: ops written under version 2 keep their state and have none', () => {
    const file = join(dir, 'v2.db');
    const old = new Database(file);
    migrate(old, 2);
    const t = '2026-01-01T00:00:00.000Z';
    old.prepare("INSERT INTO accounts (id, service_url, mode, created) VALUES ('acc-1', 'http://x', 'api_key', ?)").run(t);
    old.prepare("INSERT INTO outbox (account_id, entity, local_id, op, state, attempts, created, modified) VALUES ('acc-1', 'farm', 'f1', 'update', 'uncertain', 1, ?, ?)").run(t, t);
    old.close();

    const db = openDb(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(db.prepare("SELECT op, state, attempts, sent_state FROM outbox WHERE local_id = 'f1'").get()).toEqual({ op: 'update', state: 'uncertain', attempts: 1, sent_state: null });
    db.close();
  });

  it('004 adds the code of a block: an account blocked under version 3 gets the code of its reason, the others none', () => {
    const file = join(dir, 'v3.db');
    const old = new Database(file);
    migrate(old, 3);
    const t = '2026-01-01T00:00:00.000Z';
    const add = old.prepare('INSERT INTO accounts (id, service_url, mode, blocked, created) VALUES (?, ?, ?, ?, ?)');
    add.run('acc-gone', 'http://x', 'api_key', 'Account not found', t);
    add.run('acc-key', 'http://x', 'api_key', 'Invalid API key', t);
    add.run('acc-fine', 'http://x', 'api_key', null, t);
    old.close();

    const db = openDb(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(db.prepare('SELECT id, blocked, blocked_code FROM accounts ORDER BY id').all()).toEqual([
      { id: 'acc-fine', blocked: null, blocked_code: null },
      { id: 'acc-gone', blocked: 'Account not found', blocked_code: 'account_not_found' },
      { id: 'acc-key', blocked: 'Invalid API key', blocked_code: 'invalid_api_key' },
    ]);
    db.close();
  });

  it('005 gives each undo entry its account: from the rows it recorded, or the row itself for a bulk create recorded by id', () => {
    const file = join(dir, 'v4.db');
    const old = new Database(file);
    migrate(old, 4);
    const t = '2026-01-01T00:00:00.000Z';
    for (const id of ['acc-a', 'acc-b']) old.prepare('INSERT INTO accounts (id, service_url, mode, created) VALUES (?, ?, ?, ?)').run(id, 'http://x', 'api_key', t);
    old.prepare('INSERT INTO farms (local_id, account_id, name, created, modified) VALUES (?, ?, ?, ?, ?)').run('farm-b', 'acc-b', 'F', t, t);
    const farmA = { local_id: 'farm-a', account_id: 'acc-a', server_id: null, name: 'A', base: null, deleted: 0, created: t, modified: t };
    const add = old.prepare('INSERT INTO history (label, changes, created) VALUES (?, ?, ?)');
    add.run('Create farm A', JSON.stringify([{ entity: 'farm', local_id: 'farm-a', before: null, after: farmA }]), t);
    add.run('Rename farm', JSON.stringify([{ entity: 'farm', local_id: 'farm-a', before: farmA, after: { ...farmA, name: 'A2' } }]), t);
    add.run('Import', JSON.stringify([{ entity: 'farm', local_id: 'farm-b', before: null, after: 'current' }]), t);
    old.close();

    const db = openDb(file);
    expect(db.prepare('SELECT label, account_id FROM history ORDER BY id').all()).toEqual([
      { label: 'Create farm A', account_id: 'acc-a' }, { label: 'Rename farm', account_id: 'acc-a' }, { label: 'Import', account_id: 'acc-b' },
    ]);
    db.close();
  });

  it('006 indexes plants by point and crown: plants pulled under version 5 are indexed, and every write keeps the index in step', () => {
    const file = join(dir, 'v5.db');
    const old = new Database(file);
    migrate(old, 5);
    const t = '2026-01-01T00:00:00.000Z';
    old.prepare('INSERT INTO accounts (id, service_url, mode, created) VALUES (?, ?, ?, ?)').run('acc-1', 'http://x', 'api_key', t);
    const crown = (lon: number, lat: number, d: number) => JSON.stringify({ type: 'Polygon', coordinates: [[[lon - d, lat - d], [lon + d, lat - d], [lon + d, lat + d], [lon - d, lat + d], [lon - d, lat - d]]] });
    const plant = old.prepare("INSERT INTO plants (account_id, server_id, key, point, shape, area) VALUES ('acc-1', ?, ?, ?, ?, '1.00')");
    plant.run(1, 'k1', '[-4.5,37.5]', crown(-4.5, 37.5, 0.001));
    plant.run(2, 'k2', '[-4.6,37.6]', null);
    old.close();

    const db = openDb(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    // The crown's box, not the point's: a view meeting only the crown's edge finds the tree.
    const inBox = (minx: number, miny: number, maxx: number, maxy: number) => db.prepare(`SELECT p.server_id FROM plants_rtree r JOIN plants p ON p.rowid = r.id
      WHERE r.maxx >= ? AND r.minx <= ? AND r.maxy >= ? AND r.miny <= ? ORDER BY p.server_id`).pluck().all(minx, maxx, miny, maxy);
    expect(inBox(-4.5009, 37.5009, -4.4, 37.6)).toEqual([1]);
    expect(inBox(-4.4989, 37.5011, -4.4, 37.6)).toEqual([]);
    expect(inBox(-4.61, 37.59, -4.59, 37.61)).toEqual([2]);
    // Inserted, moved (point or crown), deleted: the index follows.
    db.prepare("INSERT INTO plants (account_id, server_id, key, point, shape, area) VALUES ('acc-1', 3, 'k3', '[10,50]', NULL, '0.00')").run();
    expect(inBox(9.9, 49.9, 10.1, 50.1)).toEqual([3]);
    db.prepare("UPDATE plants SET point = '[11,51]' WHERE server_id = 3").run();
    expect(inBox(9.9, 49.9, 10.1, 50.1)).toEqual([]);
    expect(inBox(10.9, 50.9, 11.1, 51.1)).toEqual([3]);
    db.prepare('UPDATE plants SET shape = ? WHERE server_id = 2').run(crown(-4.6, 37.6, 0.01));
    expect(inBox(-4.595, 37.605, -4.5, 37.7)).toEqual([2]);
    db.prepare('DELETE FROM plants WHERE server_id = 1').run();
    expect(inBox(-4.51, 37.49, -4.49, 37.51)).toEqual([]);
    // A removed account's plants go by cascade, and their entries with them.
    db.prepare("DELETE FROM accounts WHERE id = 'acc-1'").run();
    expect(db.prepare('SELECT count(*) FROM plants_rtree').pluck().get()).toBe(0);
    db.close();
  });

  it('007 indexes open conflicts by item: a mirror of version 6 gets the index, and the map\'s state lookup uses it', () => {
    const file = join(dir, 'v6.db');
    const old = new Database(file);
    migrate(old, 6);
    old.close();
    const db = openDb(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    const plan = (db.prepare("EXPLAIN QUERY PLAN SELECT id FROM conflicts WHERE entity = 'parcel' AND local_id = 'p' AND resolved IS NULL").all() as { detail: string }[]).map((r) => r.detail).join(' ');
    expect(plan).toContain('USING INDEX conflicts_open');
    db.close();
  });

  it('008 indexes open updates by item: a mirror of version 7 gets the index, holding only open updates, and the push\'s booking lookup uses it', () => {
    const file = join(dir, 'v7.db');
    const old = new Database(file);
    migrate(old, 7);
    old.exec("INSERT INTO accounts (id, service_url, mode, label, created) VALUES ('acc-1', 'http://x', 'api_key', 'a', 't')");
    const op = old.prepare("INSERT INTO outbox (account_id, entity, local_id, op, state, created, modified) VALUES ('acc-1', 'parcel', ?, ?, ?, 't', 't')");
    op.run('p1', 'create', 'in_flight');
    op.run('p1', 'update', 'queued');
    op.run('p2', 'create', 'in_flight');
    op.run('p3', 'update', 'committed');
    old.close();
    const db = openDb(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    const sql = "SELECT DISTINCT local_id FROM outbox WHERE entity = 'parcel' AND op = 'update' AND state != 'committed' AND local_id IN (SELECT value FROM json_each(?))";
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('[]') as { detail: string }[]).map((r) => r.detail).join(' ');
    expect(plan).toContain('USING INDEX outbox_open_updates');
    // Built from the rows already there: the open update only, not the creates nor the committed update.
    expect(db.prepare("SELECT count(*) FROM outbox INDEXED BY outbox_open_updates WHERE entity = 'parcel' AND op = 'update' AND state != 'committed'").pluck().get()).toBe(1);
    expect(parcelsEditedSinceSent(db as never, ['p1', 'p2', 'p3'])).toEqual(new Set(['p1']));
    // The update committed: out of the index, and no longer an edit pending.
    db.prepare("UPDATE outbox SET state = 'committed' WHERE local_id = 'p1' AND op = 'update'").run();
    expect(parcelsEditedSinceSent(db as never, ['p1', 'p2', 'p3'])).toEqual(new Set());
    db.close();
  });

  it('009 gives accounts a change cursor: a mirror of version 8 keeps its accounts, each to list everything at its next pull', () => {
    const file = join(dir, 'v8.db');
    const old = new Database(file);
    migrate(old, 8);
    old.exec("INSERT INTO accounts (id, service_url, mode, label, created, last_pull) VALUES ('acc-1', 'http://x', 'api_key', 'a', 't', 't2')");
    old.close();
    const db = openDb(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(db.prepare("SELECT id, last_pull, change_cursor FROM accounts").all()).toEqual([{ id: 'acc-1', last_pull: 't2', change_cursor: null }]);
    expect(changeCursor(db as never, 'acc-1')).toBeNull();
    markPulled(db as never, 'acc-1', 't3', '42.abcdefghij');
    expect(changeCursor(db as never, 'acc-1')).toBe('42.abcdefghij');
    db.close();
  });

  it('010 gives the parcels\' R*Tree their account and deleted flag: parcels of version 9 are indexed with theirs, and every write keeps them in step', () => {
    const file = join(dir, 'v9.db');
    const old = new Database(file);
    migrate(old, 9);
    const t = '2026-01-01T00:00:00.000Z';
    for (const id of ['acc-1', 'acc-2']) old.prepare('INSERT INTO accounts (id, service_url, mode, created) VALUES (?, ?, ?, ?)').run(id, 'http://x', 'api_key', t);
    old.prepare("INSERT INTO farms (local_id, account_id, name, created, modified) VALUES ('f1', 'acc-1', 'F', ?, ?), ('f2', 'acc-2', 'G', ?, ?)").run(t, t, t, t);
    const parcel = old.prepare(`INSERT INTO parcels (local_id, account_id, farm_local_id, name, source_type, geometry, hectares, minx, miny, maxx, maxy, deleted, created, modified)
      VALUES (?, ?, ?, ?, 'Polygon', '{}', 1, ?, 0, ?, 1, ?, ?, ?)`);
    parcel.run('p1', 'acc-1', 'f1', 'Olivar', 0, 1, 0, t, t);
    parcel.run('p2', 'acc-1', 'f1', 'Viña', 2, 3, 1, t, t);
    parcel.run('p3', 'acc-2', 'f2', 'Huerta', 4, 5, 0, t, t);
    old.close();

    const db = openDb(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    const index = () => db.prepare(`SELECT p.local_id, r.minx, r.account_id, r.deleted FROM parcels_rtree r JOIN parcels p ON p.rowid = r.id ORDER BY p.local_id`).raw().all();
    expect(index()).toEqual([['p1', 0, 'acc-1', 0], ['p2', 2, 'acc-1', 1], ['p3', 4, 'acc-2', 0]]);
    // Inserted, moved, deleted and undeleted, moved to another account, removed: the index follows.
    db.prepare(`INSERT INTO parcels (local_id, account_id, farm_local_id, name, source_type, geometry, hectares, minx, miny, maxx, maxy, created, modified)
      VALUES ('p4', 'acc-2', 'f2', 'Nueva', 'Polygon', '{}', 1, 6, 0, 7, 1, ?, ?)`).run(t, t);
    db.prepare("UPDATE parcels SET minx = 10, maxx = 11, deleted = 1 WHERE local_id = 'p1'").run();
    db.prepare("UPDATE parcels SET deleted = 0 WHERE local_id = 'p2'").run();
    db.prepare("UPDATE parcels SET account_id = 'acc-1' WHERE local_id = 'p3'").run();
    db.prepare("DELETE FROM parcels WHERE local_id = 'p4'").run();
    expect(index()).toEqual([['p1', 10, 'acc-1', 1], ['p2', 2, 'acc-1', 0], ['p3', 4, 'acc-1', 0]]);
    // The search index is kept in step by its own trigger, on a rename only.
    db.prepare("UPDATE parcels SET name = 'Olivar viejo' WHERE local_id = 'p2'").run();
    expect(db.prepare("SELECT rowid FROM parcels_fts WHERE parcels_fts MATCH 'viejo'").pluck().all()).toEqual([db.prepare("SELECT rowid FROM parcels WHERE local_id = 'p2'").pluck().get()]);
    expect(db.prepare("SELECT count(*) FROM parcels_fts WHERE parcels_fts MATCH 'vina'").pluck().get()).toBe(0);
    db.close();
  });

  it('011 counts parcels on indexes alone: the farm list\'s totals and the status\'s synced parcels read no parcel row, and count as before', () => {
    const file = join(dir, 'v10.db');
    const old = new Database(file);
    migrate(old, 10);
    const t = '2026-01-01T00:00:00.000Z';
    for (const id of ['acc-1', 'acc-2']) old.prepare('INSERT INTO accounts (id, service_url, mode, created) VALUES (?, ?, ?, ?)').run(id, 'http://x', 'api_key', t);
    old.prepare("INSERT INTO farms (local_id, account_id, name, created, modified) VALUES ('f1', 'acc-1', 'F', ?, ?), ('f2', 'acc-2', 'G', ?, ?)").run(t, t, t, t);
    const parcel = old.prepare(`INSERT INTO parcels (local_id, account_id, farm_local_id, server_id, name, source_type, geometry, hectares, minx, miny, maxx, maxy, deleted, created, modified)
      VALUES (?, ?, ?, ?, 'P', 'Polygon', '{}', ?, 0, 0, 1, 1, ?, ?, ?)`);
    // acc-1: two synced, one with an open op, one deleted, one never sent; acc-2: one synced.
    parcel.run('p1', 'acc-1', 'f1', 1, 1.5, 0, t, t);
    parcel.run('p2', 'acc-1', 'f1', 2, 2, 0, t, t);
    parcel.run('p3', 'acc-1', 'f1', 3, 4, 0, t, t);
    parcel.run('p4', 'acc-1', 'f1', 4, 8, 1, t, t);
    parcel.run('p5', 'acc-1', 'f1', null, 16, 0, t, t);
    parcel.run('p6', 'acc-2', 'f2', 1, 32, 0, t, t);
    const op = old.prepare("INSERT INTO outbox (account_id, entity, local_id, op, state, created, modified) VALUES ('acc-1', 'parcel', ?, 'update', ?, 't', 't')");
    op.run('p3', 'queued');
    op.run('p3', 'in_flight');
    op.run('p1', 'committed');
    old.close();

    const db = openDb(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    const m = new MirrorReader(db as never);
    expect(m.status('acc-1').synced).toBe(2);
    expect(m.status('acc-2').synced).toBe(1);
    expect(m.status().synced).toBe(3);
    expect(m.accountFarmTotals('acc-1')).toEqual(new Map([['f1', { parcels: 4, hectares: 23.5 }]]));
    expect(m.farmTotals('f2')).toEqual({ parcels: 1, hectares: 32 });
    // Each count on an index alone: the statements the reader runs, planned.
    const seen: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => { seen.push(sql); return prepare(sql); }) as typeof db.prepare;
    m.status('acc-1');
    m.accountFarmTotals('acc-1');
    m.farmTotals('f1');
    db.prepare = prepare;
    const plans = seen.map((sql) => (prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array((sql.match(/\?/g) ?? []).length).fill('acc-1')) as { detail: string }[]).map((r) => r.detail));
    // (Since 014 the farms' totals and the synced count come from farm_totals: the parcels left are the open ops'.)
    const parcelSteps = plans.flat().filter((d) => /^(SCAN|SEARCH) (parcels|p)\b/.test(d));
    expect(parcelSteps.length).toBeGreaterThanOrEqual(1);
    for (const d of parcelSteps) expect(d).toMatch(/COVERING INDEX parcels_farm|INDEX sqlite_autoindex_parcels_1 \(local_id=\?\)/);
    db.close();
  });

  it('012 gives accounts a read-after state: a mirror of version 11 keeps its accounts, with none', () => {
    const file = join(dir, 'v11.db');
    const old = new Database(file);
    migrate(old, 11);
    old.exec("INSERT INTO accounts (id, service_url, mode, label, created, last_pull) VALUES ('acc-1', 'http://x', 'api_key', 'a', 't', 't2')");
    old.close();
    const db = openDb(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(readAfterState(db as never, 'acc-1')).toBeNull();
    saveReadAfterState(db as never, 'acc-1', '{"lsn":"0/10","uncertain_at":null}');
    expect(readAfterState(db as never, 'acc-1')).toBe('{"lsn":"0/10","uncertain_at":null}');
    db.close();
  });

  it('013 adds the batch marks of the push: a mirror of the version before gets the table, its ops untouched, and a mark left by a crash makes its ops uncertain', () => {
    const file = join(dir, 'v12.db');
    const old = new Database(file);
    migrate(old, 12);
    old.exec("INSERT INTO accounts (id, service_url, mode, label, created) VALUES ('acc-1', 'http://x', 'api_key', 'a', 't')");
    const op = old.prepare("INSERT INTO outbox (account_id, entity, local_id, op, state, created, modified) VALUES ('acc-1', 'parcel', ?, 'create', 'queued', 't', 't')");
    for (const p of ['p1', 'p2', 'p3']) op.run(p);
    old.close();
    const db = openDb(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(db.prepare('SELECT count(*) FROM push_batches').pluck().get()).toBe(0);
    expect(db.prepare("SELECT count(*) FROM outbox WHERE state = 'queued' AND attempts = 0").pluck().get()).toBe(3);
    // Two of the three marked by one row; the ops themselves are not written.
    expect(markBatch(db as never, 'acc-1', [1, 2], { id: 'b-1', sentAt: '2026-01-01T00:00:00.000Z' })).toEqual(new Set([1, 2]));
    expect(db.prepare("SELECT count(*) FROM outbox WHERE state = 'queued' AND attempts = 0").pluck().get()).toBe(3);
    // A crash: whatever the row marked is uncertain, with the batch's mark, and the row is gone.
    expect(inFlightToUncertain(db as never, null, '2026-01-01T00:01:00.000Z')).toBe(2);
    expect(db.prepare('SELECT id, state, attempts, batch_id, sent_at, uncertain_at FROM outbox ORDER BY id').all()).toEqual([
      { id: 1, state: 'uncertain', attempts: 1, batch_id: 'b-1', sent_at: '2026-01-01T00:00:00.000Z', uncertain_at: '2026-01-01T00:01:00.000Z' },
      { id: 2, state: 'uncertain', attempts: 1, batch_id: 'b-1', sent_at: '2026-01-01T00:00:00.000Z', uncertain_at: '2026-01-01T00:01:00.000Z' },
      { id: 3, state: 'queued', attempts: 0, batch_id: null, sent_at: null, uncertain_at: null },
    ]);
    expect(db.prepare('SELECT count(*) FROM push_batches').pluck().get()).toBe(0);
    db.close();
  });

  it('014 keeps each farm\'s totals in farm_totals: a mirror of version 13 gets them counted, every write keeps them equal to a recount, and reading them reads no parcel', () => {
    const file = join(dir, 'v13.db');
    const old = new Database(file);
    migrate(old, 13);
    const t = '2026-01-01T00:00:00.000Z';
    for (const id of ['acc-1', 'acc-2']) old.prepare('INSERT INTO accounts (id, service_url, mode, created) VALUES (?, ?, ?, ?)').run(id, 'http://x', 'api_key', t);
    old.prepare("INSERT INTO farms (local_id, account_id, name, created, modified) VALUES ('f1', 'acc-1', 'F', ?, ?), ('f2', 'acc-1', 'G', ?, ?), ('f3', 'acc-2', 'H', ?, ?)").run(t, t, t, t, t, t);
    const sql = `INSERT INTO parcels (local_id, account_id, farm_local_id, server_id, name, source_type, geometry, hectares, minx, miny, maxx, maxy, deleted, created, modified)
      VALUES (?, ?, ?, ?, 'P', 'Polygon', '{}', ?, 0, 0, 1, 1, ?, '${t}', '${t}')`;
    const parcel = old.prepare(sql);
    parcel.run('p1', 'acc-1', 'f1', 1, 1.5, 0);
    parcel.run('p2', 'acc-1', 'f1', null, 2, 0);
    parcel.run('p3', 'acc-1', 'f1', 3, 8, 1);
    parcel.run('p4', 'acc-2', 'f3', 4, 32, 0);
    old.close();

    // At version 14: from 015 on, a server id written alone is counted by its writer, not the trigger (migration-015.test.ts).
    const db = new Database(file);
    migrate(db, 14);
    expect(db.pragma('user_version', { simple: true })).toBe(14);
    const m = new MirrorReader(db as never);
    const recount = (farm: string) => db.prepare('SELECT count(*) AS parcels, coalesce(sum(hectares), 0) AS hectares, count(server_id) AS synced FROM parcels WHERE farm_local_id = ? AND deleted = 0').get(farm);
    const kept = (farm: string) => db.prepare('SELECT parcels, hectares, synced FROM farm_totals WHERE farm_local_id = ?').get(farm) ?? { parcels: 0, hectares: 0, synced: 0 };
    const same = () => { for (const f of ['f1', 'f2', 'f3']) expect(kept(f), f).toEqual(recount(f)); };
    same();
    expect(m.accountFarmTotals('acc-1')).toEqual(new Map([['f1', { parcels: 2, hectares: 3.5 }]]));
    expect(m.status('acc-1').synced).toBe(1);
    // Every kind of write: a new parcel, one synced, one moved to another farm, its hectares changed, deleted (the
    // flag) and brought back, a row rewritten unchanged, deleted for good; then a farm deleted for good.
    const write = db.prepare(sql);
    write.run('p5', 'acc-1', 'f2', null, 4, 0);
    same();
    db.exec("UPDATE parcels SET server_id = 5 WHERE local_id = 'p5'");
    db.exec("UPDATE parcels SET farm_local_id = 'f1' WHERE local_id = 'p5'");
    same();
    expect(kept('f2')).toEqual({ parcels: 0, hectares: 0, synced: 0 });
    db.exec("UPDATE parcels SET hectares = 4.25 WHERE local_id = 'p1'");
    db.exec("UPDATE parcels SET deleted = 1 WHERE local_id = 'p2'");
    same();
    db.exec("UPDATE parcels SET deleted = 0 WHERE local_id = 'p3'");
    db.exec("UPDATE parcels SET name = 'Q', hectares = hectares, server_id = server_id WHERE local_id = 'p3'");
    same();
    db.exec("DELETE FROM parcels WHERE local_id IN ('p1', 'p2')");
    same();
    expect(m.status('acc-1').synced).toBe(2);
    expect(m.status().synced).toBe(3);
    expect(m.farmTotals('f1')).toEqual({ parcels: 2, hectares: 12 });
    expect(m.farmTotals('f2')).toEqual({ parcels: 0, hectares: 0 });
    db.exec("DELETE FROM farms WHERE local_id = 'f3'");
    expect(db.prepare("SELECT count(*) FROM farm_totals WHERE farm_local_id = 'f3'").pluck().get()).toBe(0);
    // The farm list's totals and one farm's read farm_totals alone.
    const plan = (q: string, ...a: string[]) => (db.prepare(`EXPLAIN QUERY PLAN ${q}`).all(...a) as { detail: string }[]).map((r) => r.detail).join(' | ');
    const seen: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((q: string) => { seen.push(q); return prepare(q); }) as typeof db.prepare;
    m.accountFarmTotals('acc-1');
    m.farmTotals('f1');
    db.prepare = prepare;
    for (const q of seen) expect(plan(q, ...Array((q.match(/\?/g) ?? []).length).fill('acc-1'))).not.toMatch(/\b(parcels|p)\b/);
    db.close();
  });

  it('a mirror from the future is refused, untouched: same bytes, no journal files, and the handle is released', () => {
    const file = join(dir, 'future.db');
    const raw = new Database(file);
    raw.exec("CREATE TABLE kept (x TEXT); INSERT INTO kept VALUES ('from a newer Furrow');");
    raw.pragma(`user_version = ${migrations.length + 1}`);
    raw.close();
    const before = readFileSync(file);

    expect(() => openDb(file)).toThrow(FutureSchemaError);
    expect(() => Mirror.open(file)).toThrow(/newer than this build of Furrow knows/);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(existsSync(`${file}-shm`)).toBe(false);

    // Nothing holds the file: it can be removed and reopened by someone else at once.
    const check = new Database(file, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(migrations.length + 1);
    expect(check.pragma('journal_mode', { simple: true })).toBe('delete');
    expect(check.prepare('SELECT x FROM kept').get()).toEqual({ x: 'from a newer Furrow' });
    check.close();
  });

  it('migrate() on an open handle refuses a future version too', () => {
    const db = new Database(':memory:');
    db.pragma(`user_version = ${migrations.length + 5}`);
    expect(() => migrate(db)).toThrow(FutureSchemaError);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length + 5);
    db.close();
  });
});
