// The bulk path of parcel creates (imports): createPreparedParcels with the parcels_ai trigger suspended must
// leave exactly what the trigger path leaves — rows, R*Tree, FTS5 (names and metadata values), outbox ops,
// one undo entry — and the trigger must be back afterwards, or never gone for anyone else.
import { validationStamp } from '../core/parcels/client-ref.ts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Mirror } from './mirror.ts';
import { idAt, suspendInsertTrigger, timeOrderedIdBytes, timeOrderedIds, SyncAhead, withoutCheckpointAtCommit } from './bulk.ts';
import type { PreparedParcel } from './writer.ts';
import type { ParcelRow } from './types.ts';
import { insertPulledParcels, type PulledParcel } from './pull.ts';
import { insertRow } from './rows.ts';
import { parcelColumnsOf } from '../core/parcels/columns.ts';
import { validateParcel } from '../core/parcels/validate.ts';
import { closeTestMirror, openTestMirror } from '../test/helpers/test-mirror.ts';

const ACC = 'acc-00000000-0000-4000-8000-000000000001';
let dir: string;
let m: Mirror;

beforeEach(() => { ({ m, dir } = openTestMirror('furrow-bulk-', [ACC])); });
afterEach(() => closeTestMirror({ m, dir }));

const square = (lon: number, lat: number) => [[lon, lat], [lon + 0.001, lat], [lon + 0.001, lat + 0.001], [lon, lat + 0.001], [lon, lat]];
// Names and metadata of every kind FTS5 sees: accents, numbers (integer and not), booleans, an empty string.
const inputs = [
  { name: 'Olivar del Pozo', metadata: { region: 'Andalucía', year: 2024, organic: true, note: '' }, geom: { type: 'Feature', geometry: { type: 'Polygon', coordinates: [square(-5.9, 37.4)] } } },
  { name: 'Viña 2', metadata: { ratio: 1 / 3, big: 1e21, small: -2.5e-7 }, geom: { type: 'Feature', geometry: { type: 'Polygon', coordinates: [square(-5.8, 37.4)] } } },
  { name: 'Pozo', metadata: {}, geom: { type: 'Feature', properties: { metadata: { hectares: 2 } }, geometry: { type: 'Point', coordinates: [-5.7, 37.4] } } },
];

function prepared(): PreparedParcel[] {
  return inputs.map((input, i) => {
    const p = validateParcel(input, i, { maxHectares: 100 }).parcel!;
    return { ...parcelColumnsOf(p), checked: validationStamp(p.metadata) };
  });
}

const triggerSql = () => m.syncDb.prepare("SELECT sql FROM sqlite_master WHERE name = 'parcels_ai'").pluck().get();
/** What the indexes hold for each parcel, by local id: its box, account and deleted flag, and which search terms find it. */
function indexed(terms: string[]): unknown {
  const db = m.syncDb;
  const rows = db.prepare('SELECT p.local_id, r.minx, r.miny, r.maxx, r.maxy, r.account_id, r.deleted FROM parcels p JOIN parcels_rtree r ON r.id = p.rowid ORDER BY p.rowid').all() as { local_id: string }[];
  const byRowid = (ids: number[]) => ids.map((id) => db.prepare('SELECT name FROM parcels WHERE rowid = ?').pluck().get(id)).sort();
  return {
    boxes: rows.map(({ local_id: _, ...box }) => box),
    search: Object.fromEntries(terms.map((t) => [t, byRowid(db.prepare('SELECT rowid FROM parcels_fts WHERE parcels_fts MATCH ?').pluck().all(`"${t}"`) as number[])])),
  };
}
const TERMS = ['olivar', 'andalucia', '2024', '1', '0', '333333333333333', '1.0e', '21', '2.5e', '5e', '07', 'vina', 'pozo', 'region', 'true'];

describe('createPreparedParcels with the trigger suspended', () => {
  it('indexes exactly as the trigger does, queues one create per parcel in order, and is one undo entry', () => {
    const farm = m.write.createFarm(ACC, 'A');
    m.write.createParcels(farm.local_id, inputs);
    const viaTrigger = indexed(TERMS);
    // The farm's totals (farm_totals, kept by triggers of their own that a bulk import does not suspend).
    const totals = m.read.farmTotals(farm.local_id);
    expect(totals.parcels).toBe(3);
    const sql = triggerSql();
    m.syncDb.exec('DELETE FROM outbox; DELETE FROM parcels; DELETE FROM history');
    expect(m.read.farmTotals(farm.local_id)).toEqual({ parcels: 0, hectares: 0 });

    m.syncDb.transaction(() => {
      const restore = suspendInsertTrigger(m.syncDb)!;
      expect(restore).not.toBeNull();
      expect(triggerSql()).toBeUndefined();
      expect(m.write.createPreparedParcels(farm.local_id, prepared(), 'Import x', { indexes: true, savepoint: false })).toBe(3);
      restore();
    })();
    expect(triggerSql()).toBe(sql);
    expect(indexed(TERMS)).toEqual(viaTrigger);
    expect(m.read.farmTotals(farm.local_id)).toEqual(totals);
    const rows = m.read.parcels(farm.local_id);
    expect(rows.map((r) => [r.name, r.source_type])).toEqual([['Olivar del Pozo', 'Polygon'], ['Viña 2', 'Polygon'], ['Pozo', 'Point']]);
    expect(m.read.outbox(ACC).map((o) => [o.local_id, o.op, o.state])).toEqual(rows.map((r) => [r.local_id, 'create', 'queued']));
    expect(m.write.undo()).toBe('Import x');
    expect(m.read.parcels(farm.local_id)).toEqual([]);
    expect(m.read.farmTotals(farm.local_id)).toEqual({ parcels: 0, hectares: 0 });
    expect(m.read.outbox(ACC)).toEqual([]);
  });

  it('takes text as UTF-8 bytes as well as strings, and stores the same TEXT', () => {
    const farm = m.write.createFarm(ACC, 'A');
    const utf8 = (t: string | Uint8Array) => new TextEncoder().encode(t as string);
    m.write.createPreparedParcels(farm.local_id, prepared(), 'as strings');
    m.write.createPreparedParcels(farm.local_id, prepared().map((p) => ({
      ...p, name: utf8(p.name), point: p.point === null ? null : utf8(p.point), geometry: utf8(p.geometry), metadata: utf8(p.metadata),
    })), 'as bytes');
    const rows = m.syncDb.prepare(`SELECT name, typeof(name) AS tn, point, typeof(point) AS tp, geometry, typeof(geometry) AS tg, metadata, typeof(metadata) AS tm
      FROM parcels ORDER BY rowid`).all();
    expect(rows.slice(3)).toEqual(rows.slice(0, 3));
    expect(rows[0]).toMatchObject({ name: 'Olivar del Pozo', tn: 'text', tg: 'text', tm: 'text' });
    expect(rows[2]).toMatchObject({ name: 'Pozo', tp: 'text' });
    expect(m.syncDb.prepare("SELECT count(*) FROM parcels_fts WHERE parcels_fts MATCH 'andalucia'").pluck().get()).toBe(2);
  });

  it('is undone with the transaction that suspended the trigger, trigger included', () => {
    const farm = m.write.createFarm(ACC, 'A');
    const sql = triggerSql();
    expect(() => m.syncDb.transaction(() => {
      suspendInsertTrigger(m.syncDb);
      m.write.createPreparedParcels(farm.local_id, prepared(), 'Import x', { indexes: true, savepoint: false });
      throw new Error('disk full');
    })()).toThrow('disk full');
    expect(triggerSql()).toBe(sql);
    expect(m.read.parcels(farm.local_id)).toEqual([]);
    // Inserts outside the bulk path still index through the trigger.
    m.write.createParcels(farm.local_id, inputs.slice(0, 1));
    expect(m.syncDb.prepare("SELECT count(*) FROM parcels_fts WHERE parcels_fts MATCH 'olivar'").pluck().get()).toBe(1);
  });

  it('leaves a trigger it does not know alone, and then writes no index entries of its own', () => {
    m.syncDb.exec(`DROP TRIGGER parcels_ai; CREATE TRIGGER parcels_ai AFTER INSERT ON parcels BEGIN
      INSERT INTO parcels_rtree (id, minx, maxx, miny, maxy) VALUES (new.rowid, new.minx, new.maxx, new.miny, new.maxy); END`);
    const farm = m.write.createFarm(ACC, 'A');
    m.syncDb.transaction(() => {
      expect(suspendInsertTrigger(m.syncDb)).toBeNull();
      m.write.createPreparedParcels(farm.local_id, prepared(), 'Import x', { indexes: false });
    })();
    expect(m.syncDb.prepare('SELECT count(*) FROM parcels_rtree').pluck().get()).toBe(3);
  });

  it('needs a transaction to suspend the trigger or to skip the savepoint', () => {
    const farm = m.write.createFarm(ACC, 'A');
    expect(() => suspendInsertTrigger(m.syncDb)).toThrow(/inside a transaction/);
    expect(() => m.write.createPreparedParcels(farm.local_id, prepared(), 'x', { savepoint: false })).toThrow(/open transaction/);
    expect(m.write.createPreparedParcels(farm.local_id, prepared(), 'x')).toBe(3);
    expect(m.read.parcels(farm.local_id)).toHaveLength(3);
  });
});

describe('timeOrderedIds', () => {
  it('are version-7 UUIDs, unique and in increasing order, within a call and across calls', () => {
    const ids = [...timeOrderedIds(5000), ...timeOrderedIds(3), ...timeOrderedIds(7000)];
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    // The first 48 bits are the time they were made at.
    expect(Math.abs(parseInt(ids[0]!.slice(0, 8) + ids[0]!.slice(9, 13), 16) - Date.now())).toBeLessThan(60_000);
  });

  it('as ASCII in one buffer (what an import binds) read back by idAt: the same kind of ids, after the others', () => {
    const before = timeOrderedIds(1)[0]!;
    const bytes = timeOrderedIdBytes(3000);
    expect(bytes.length).toBe(3000 * 36);
    const ids = Array.from({ length: 3000 }, (_, i) => idAt(bytes, i));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]! > before).toBe(true);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
  });
});

describe('withoutCheckpointAtCommit', () => {
  it('commits a big transaction without copying the WAL into the file, and leaves the setting as it was', () => {
    const file = join(dir, 'mirror.db');
    const db = m.syncDb;
    // Half as much again as the automatic checkpoint's threshold (1,000 pages).
    const rows = (1500 * (db.pragma('page_size', { simple: true }) as number)) / 2000;
    const fill = () => db.transaction(() => {
      for (let i = 0; i < rows; i++) db.prepare('INSERT INTO settings (key, value) VALUES (?, ?)').run(`k${Math.random()}`, 'x'.repeat(2000));
    })();
    const before = statSync(file).size;
    withoutCheckpointAtCommit(db, fill);
    expect(statSync(file).size).toBe(before);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    // The next commit over the threshold checkpoints as always.
    fill();
    expect(statSync(file).size).toBeGreaterThan(before + rows * 2000);
  });
});

describe('SyncAhead', () => {
  const fds = () => readdirSync('/proc/self/fd').length;

  it.skipIf(!existsSync('/proc/self/fd'))('syncs the WAL on the thread pool while a transaction goes on, and closes its descriptor after the last sync', async () => {
    const before = fds();
    const sync = new SyncAhead(m.syncDb);
    expect(fds()).toBe(before + 1);
    m.syncDb.transaction(() => {
      const farm = m.write.createFarm(ACC, 'A');
      m.write.createPreparedParcels(farm.local_id, prepared(), 'Import x', { savepoint: false });
      sync.kick();
      sync.kick();
    })();
    sync.close();
    sync.kick(); // after close: nothing
    // Its syncs end on the thread pool, and the last one's callback closes the file.
    for (let i = 0; i < 200 && fds() > before; i++) await new Promise((r) => setTimeout(r, 10));
    expect(fds()).toBe(before);
    expect(m.read.parcels(m.read.farmByName(ACC, 'A')!.local_id)).toHaveLength(3);
  });

  // With a rollback journal (the CLI's import, withRollbackJournal) the pages go to the database file, which is synced
  // ahead instead. Closing any descriptor of that file releases every POSIX lock this process has on it, SQLite's
  // included: its descriptor is closed while SQLite holds none, after the transaction and before the WAL is back.
  it.skipIf(!existsSync('/proc/self/fd'))('syncs the database file with a rollback journal, and closes its descriptor at once, before the WAL is back', async () => {
    const db = m.syncDb;
    const file = join(dir, 'mirror.db');
    expect(db.pragma('journal_mode = DELETE', { simple: true })).toBe('delete');
    const before = fds();
    const sync = new SyncAhead(db);
    expect(fds()).toBe(before + 1);
    expect(readdirSync('/proc/self/fd').some((fd) => { try { return readlinkSync(`/proc/self/fd/${fd}`) === file; } catch { return false; } })).toBe(true);
    db.transaction(() => {
      const farm = m.write.createFarm(ACC, 'A');
      m.write.createPreparedParcels(farm.local_id, prepared(), 'Import x', { savepoint: false });
      sync.kick();
      sync.kick();
    })();
    sync.close();
    // At once, not once the syncs' callbacks have run.
    expect(fds()).toBe(before);
    expect(db.pragma('journal_mode = WAL', { simple: true })).toBe('wal');
    db.prepare('SELECT count(*) FROM sqlite_master').pluck().get();
    // The syncs' callbacks run now (the WAL and its index have descriptors of SQLite's own meanwhile): none closes anything.
    const inWal = fds();
    await new Promise((r) => setTimeout(r, 50));
    expect(fds()).toBe(inWal);
    // Another process cannot take the file out of WAL while this connection has it open: its shared lock is intact.
    const other = spawnSync(process.execPath, ['-e', `const D = require('better-sqlite3'); const d = new D(${JSON.stringify(file)}, { timeout: 0 });
      let mode; try { mode = d.pragma('journal_mode = DELETE', { simple: true }); } catch (e) { mode = e.code; } console.log(mode);`], { cwd: process.cwd(), encoding: 'utf8' });
    expect(other.stderr).toBe('');
    expect(other.stdout.trim()).toBe('SQLITE_BUSY');
    expect(m.read.parcels(m.read.farmByName(ACC, 'A')!.local_id)).toHaveLength(3);
  });

  it('does nothing for an in-memory database', () => {
    const mem = Mirror.open(':memory:');
    const sync = new SyncAhead(mem.syncDb);
    sync.kick();
    sync.close();
    mem.close();
  });
});

describe('insertPulledParcels (a first pull\'s new parcels)', () => {
  // Hectares whose sum depends on the order they are added in: the totals must be the trigger's to the last bit.
  const HECTARES = [0.1, 0.2, 0.3, 1e16, 1, 3, 0.7];
  const pulled = (n: number, base: number): PulledParcel[] => Array.from({ length: n }, (_, i) => {
    const p = validateParcel({ ...inputs[i % inputs.length]!, name: `P${base + i}` }, i, { maxHectares: 1e17 }).parcel!;
    return { columns: { ...parcelColumnsOf(p), hectares: HECTARES[i % HECTARES.length]! }, server_id: base + i, key: `k${base + i}` };
  });
  const totals = (farm: string) => m.syncDb.prepare('SELECT parcels, hectares, synced FROM farm_totals WHERE farm_local_id = ?').get(farm);

  it('writes the rows, index entries and farm totals a row at a time through the triggers would, the triggers back after', () => {
    const one = m.write.createFarm(ACC, 'One');
    const bulk = m.write.createFarm(ACC, 'Bulk');
    const at = '2026-01-01T00:00:00.000Z';
    // Both farms hold a parcel already: the pulled ones add to its totals.
    m.write.createParcels(one.local_id, inputs.slice(0, 1));
    m.write.createParcels(bulk.local_id, inputs.slice(0, 1));
    const sql = m.syncDb.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all();
    m.syncDb.transaction(() => {
      for (const p of pulled(HECTARES.length, 100)) {
        insertRow(m.syncDb, 'parcel', { local_id: `l${p.server_id}`, account_id: ACC, farm_local_id: one.local_id, server_id: p.server_id, key: p.key,
          ...p.columns, base: null, deleted: 0, created: at, modified: at, checked: null } as ParcelRow);
      }
    })();
    m.syncDb.transaction(() => expect(insertPulledParcels(m.syncDb, ACC, bulk.local_id, pulled(HECTARES.length, 200), at)).toBe(HECTARES.length))();
    expect(m.syncDb.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all()).toEqual(sql);
    expect(totals(bulk.local_id)).toEqual(totals(one.local_id));
    expect(totals(bulk.local_id)).toMatchObject({ parcels: 1 + HECTARES.length, synced: HECTARES.length });
    const rows = (farm: string) => m.syncDb.prepare(`SELECT p.name, p.key, p.geometry, p.metadata, p.hectares, r.minx, r.maxy, r.account_id, r.deleted
      FROM parcels p JOIN parcels_rtree r ON r.id = p.rowid WHERE p.farm_local_id = ? ORDER BY p.rowid`).all(farm) as { name: string; key: string }[];
    const strip = (rs: { name: string; key: string }[]) => rs.map(({ name: _n, key: _k, ...r }) => r);
    expect(strip(rows(bulk.local_id))).toEqual(strip(rows(one.local_id)));
    expect(m.syncDb.prepare("SELECT count(*) FROM parcels_fts WHERE parcels_fts MATCH 'andalucia'").pluck().get()).toBe(2 + 2 * Math.ceil(HECTARES.length / 3));
    // A farm with no totals row yet gets one.
    const fresh = m.write.createFarm(ACC, 'Fresh');
    m.syncDb.transaction(() => insertPulledParcels(m.syncDb, ACC, fresh.local_id, pulled(3, 300), at))();
    expect(totals(fresh.local_id)).toEqual({ parcels: 3, hectares: 0.1 + 0.2 + 0.3, synced: 3 });
  });
});
