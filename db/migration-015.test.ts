// Migration 015: farm_totals.synced no longer follows server_id through the row trigger alone (the push's bookings
// paid for it per row); the booking counts each batch's newly synced parcels itself and every other writer of a
// server id fires the trigger (rows.ts updateRow). Every kind of write keeps the totals equal to a recount.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { migrate, openDb } from './open.ts';
import { migrations } from './migrations/index.ts';
import { Mirror } from './mirror.ts';
import { bookCreated } from './op-transitions.ts';
import { deleteRow, updateRow } from './rows.ts';

let dir: string;
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'furrow-m015-')); });
afterEach(() => { rmSync(dir, { recursive: true, force: true }); });

const square = (i: number) => {
  const x = -5 + i * 0.01;
  return { name: `P${i}`, metadata: {}, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[x, 40], [x + 0.002, 40], [x + 0.002, 40.002], [x, 40.002], [x, 40]]] } } };
};
const uncertain = { at: '2026-01-01T00:00:00.000Z', recheckAt: '2026-01-01T00:01:00.000Z' };

describe('migration 015', () => {
  it('a mirror of version 14 keeps its totals; the trigger no longer fires on a server id written alone', () => {
    const file = join(dir, 'v14.db');
    const old = new Database(file);
    migrate(old, 14);
    const t = '2026-01-01T00:00:00.000Z';
    old.prepare('INSERT INTO accounts (id, service_url, mode, created) VALUES (?, ?, ?, ?)').run('acc', 'http://x', 'api_key', t);
    old.prepare("INSERT INTO farms (local_id, account_id, name, created, modified) VALUES ('f1', 'acc', 'F', ?, ?)").run(t, t);
    const parcel = old.prepare(`INSERT INTO parcels (local_id, account_id, farm_local_id, server_id, name, source_type, geometry, hectares, minx, miny, maxx, maxy, deleted, created, modified)
      VALUES (?, 'acc', 'f1', ?, 'P', 'Polygon', '{}', 1, 0, 0, 1, 1, 0, '${t}', '${t}')`);
    parcel.run('p1', 1);
    parcel.run('p2', null);
    old.close();
    const db = openDb(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    const synced = () => db.prepare("SELECT synced FROM farm_totals WHERE farm_local_id = 'f1'").pluck().get();
    expect(synced()).toBe(1);
    // Raw SQL that writes a server id alone is no longer counted: the mirror's writers count it (below).
    db.exec("UPDATE parcels SET server_id = 2 WHERE local_id = 'p2'");
    expect(synced()).toBe(1);
    // Any of the trigger's columns named beside it: counted by the trigger, as under 014.
    db.exec("UPDATE parcels SET server_id = NULL, hectares = hectares WHERE local_id = 'p1'");
    expect(synced()).toBe(0);
    db.close();
  });

  it('every write of a server id through the mirror keeps farm_totals equal to a recount', () => {
    const m = Mirror.open(join(dir, 'mirror.db'));
    const db = m.syncDb;
    m.write.addAccount({ id: 'acc', service_url: 'http://x', mode: 'api_key' });
    const f1 = m.write.createFarm('acc', 'F').local_id;
    const f2 = m.write.createFarm('acc', 'G').local_id;
    const a = m.write.createParcels(f1, [0, 1, 2, 3, 4].map(square)).created;
    const b = m.write.createParcels(f2, [5, 6].map(square)).created;
    const recount = (farm: string) => db.prepare('SELECT count(*) AS parcels, count(server_id) AS synced FROM parcels WHERE farm_local_id = ? AND deleted = 0').get(farm);
    const kept = (farm: string) => (db.prepare('SELECT parcels, synced FROM farm_totals WHERE farm_local_id = ?').get(farm) ?? { parcels: 0, synced: 0 }) as { parcels: number; synced: number };
    const same = () => { for (const f of [f1, f2]) expect(kept(f), f).toEqual(recount(f)); };
    const ops = new Map((db.prepare("SELECT id, local_id, attempts FROM outbox WHERE entity = 'parcel' AND op = 'create'").all() as { id: number; local_id: string; attempts: number }[])
      .map((o) => [o.local_id, o]));
    const rowid = (localId: string) => db.prepare('SELECT rowid FROM parcels WHERE local_id = ?').pluck().get(localId) as number;
    let next = 100;
    const created = (localId: string, withRowid: number | undefined) => ({ op: { ...ops.get(localId)!, rowid: withRowid }, feature: { id: next++, properties: { key: randomUUID() } } });
    same();
    // One booking over both farms: by rowid; a wrong rowid and none (found by the local id); a parcel deleted while
    // its create was out (the flag: not counted).
    m.write.deleteParcel(a[4]!.local_id);
    bookCreated(db, [created(a[0]!.local_id, rowid(a[0]!.local_id)), created(a[1]!.local_id, rowid(b[0]!.local_id)), created(a[2]!.local_id, undefined),
      created(a[4]!.local_id, rowid(a[4]!.local_id)), created(b[0]!.local_id, rowid(b[0]!.local_id))], uncertain);
    same();
    expect(kept(f1)).toEqual({ parcels: 4, synced: 3 });
    expect(kept(f2)).toEqual({ parcels: 2, synced: 1 });
    // Booked again (a reconciliation finding what a lost answer had booked): counted once.
    bookCreated(db, [created(a[0]!.local_id, rowid(a[0]!.local_id)), created(b[0]!.local_id, undefined)], uncertain);
    same();
    // A pull matching a row by its reference (sync/pull-merge.ts): the server id alone.
    updateRow(db, 'parcel', a[3]!.local_id, { server_id: 500, key: randomUUID(), base: null });
    same();
    expect(kept(f1).synced).toBe(4);
    // The service lost it (remote-deletes.ts, conflicts.ts, undo.ts): server id cleared with the flag.
    updateRow(db, 'parcel', a[0]!.local_id, { server_id: null, key: null, base: null, deleted: 0 });
    // … and alone.
    updateRow(db, 'parcel', a[1]!.local_id, { server_id: null, key: null, base: null });
    same();
    expect(kept(f1).synced).toBe(2);
    // Moved to the other farm with its id, and deleted for good.
    updateRow(db, 'parcel', a[3]!.local_id, { farm_local_id: f2 });
    deleteRow(db, 'parcel', a[2]!.local_id);
    same();
    expect(kept(f1)).toEqual({ parcels: 2, synced: 0 });
    expect(kept(f2)).toEqual({ parcels: 3, synced: 2 });
    m.close();
  });
});
