// Migration 017: a parcel without a server id keeps room for the ids its booking writes (id_room), so booking rewrites
// the row in place instead of splitting its full page; the room never leaves the mirror's readers.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { migrate, openDb } from './open.ts';
import { migrations } from './migrations/index.ts';
import { Mirror } from './mirror.ts';
import { bookCreated } from './op-transitions.ts';
import { ID_ROOM_BYTES, updateRow } from './rows.ts';
import { syncedParcelsOf } from './pull.ts';
import { validateParcel } from '../core/parcels/validate.ts';
import { parcelColumnsOf } from '../core/parcels/columns.ts';
import { validationStamp } from '../core/parcels/client-ref.ts';

let dir: string;
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'furrow-m017-')); });
afterEach(() => { rmSync(dir, { recursive: true, force: true }); });

const t = '2026-01-01T00:00:00.000Z';
const uncertain = { at: t, recheckAt: '2026-01-01T00:01:00.000Z' };
const square = (i: number) => {
  const x = -5 + (i % 100) * 0.01;
  const y = 40 + Math.floor(i / 100) * 0.01;
  return { name: `Parcel ${i}`, metadata: { crop: 'wheat', plot: i }, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[x, y], [x + 0.002, y], [x + 0.002, y + 0.002], [x, y + 0.002], [x, y]]] } } };
};
// A key as the service gives them (time-ordered UUID).
const keyOf = (i: number) => `01a22d7f-f804-7000-8000-${String(i).padStart(12, '0')}`;
const room = (db: Database.Database, localId: string) => db.prepare('SELECT id_room FROM parcels WHERE local_id = ?').pluck().get(localId) as Buffer | null;
/** A new mirror with one account and one farm. */
function farmMirror(): { m: Mirror; db: Database.Database; farm: string } {
  const m = Mirror.open(join(dir, 'mirror.db'));
  m.write.addAccount({ id: 'acc', service_url: 'http://x', mode: 'api_key' });
  return { m, db: m.syncDb, farm: m.write.createFarm('acc', 'F').local_id };
}

describe('migration 017', () => {
  it('adds the room to a mirror of version 16; its rows keep none and read as before', () => {
    const file = join(dir, 'v16.db');
    const old = new Database(file);
    migrate(old, 16);
    old.prepare('INSERT INTO accounts (id, service_url, mode, created) VALUES (?, ?, ?, ?)').run('acc', 'http://x', 'api_key', t);
    old.prepare("INSERT INTO farms (local_id, account_id, server_id, name, created, modified) VALUES ('f1', 'acc', 5, 'F', ?, ?)").run(t, t);
    const parcel = old.prepare(`INSERT INTO parcels (local_id, account_id, farm_local_id, server_id, key, name, source_type, geometry, hectares, minx, miny, maxx, maxy, deleted, created, modified)
      VALUES (?, 'acc', 'f1', ?, ?, 'P', 'Polygon', '{}', 1, 0, 0, 1, 1, 0, '${t}', '${t}')`);
    parcel.run('p1', 1, keyOf(1));
    parcel.run('p2', null, null);
    old.close();
    const db = openDb(file);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(db.prepare('SELECT local_id, id_room FROM parcels ORDER BY local_id').all()).toEqual([{ local_id: 'p1', id_room: null }, { local_id: 'p2', id_room: null }]);
    // Readers name their columns: the room is never part of a row handed out.
    expect(Object.keys(syncedParcelsOf(db, 'f1')[0]!)).not.toContain('id_room');
    db.close();
    const m = Mirror.open(file);
    expect(Object.keys(m.read.parcel('p2')!)).not.toContain('id_room');
    expect(m.read.allParcels().every((p) => !('id_room' in p))).toBe(true);
    m.close();
  });

  it('a parcel created here has room until its booking writes the ids, and the table splits no page for them', () => {
    const { m, db, farm } = farmMirror();
    const { created } = m.write.createParcels(farm, Array.from({ length: 3000 }, (_, i) => square(i)));
    expect(room(db, created[0]!.local_id)).toEqual(Buffer.alloc(ID_ROOM_BYTES));
    const pages = () => db.prepare("SELECT count(*) FROM dbstat WHERE name = 'parcels'").pluck().get() as number;
    const before = pages();
    const ops = db.prepare("SELECT o.id, o.local_id, p.rowid FROM outbox o JOIN parcels p ON p.local_id = o.local_id WHERE o.op = 'create' ORDER BY o.id").all() as { id: number; local_id: string; rowid: number }[];
    // Booked as a push books them: 50 a batch, ids of up to 4 bytes.
    for (let i = 0; i < ops.length; i += 50) {
      bookCreated(db, ops.slice(i, i + 50).map((o, j) => ({ op: { ...o, attempts: 0 }, feature: { id: 100_000_000 + i + j, properties: { key: keyOf(i + j), metadata: {} } } })), uncertain);
    }
    expect(db.prepare('SELECT count(*) FROM parcels WHERE server_id IS NULL OR id_room IS NOT NULL').pluck().get()).toBe(0);
    // Without the room each row grew by its ids after its page was full, and most pages split.
    expect(pages()).toBe(before);
    m.close();
  });

  it('the bulk path of an import gives its rows the same room', () => {
    const { m, farm } = farmMirror();
    const prepared = [0, 1, 2].map((i) => {
      const p = validateParcel(square(i), i, { maxHectares: 100 }).parcel!;
      return { ...parcelColumnsOf(p), checked: validationStamp(p.metadata) };
    });
    expect(m.write.createPreparedParcels(farm, prepared, 'Import')).toBe(3);
    expect(m.syncDb.prepare('SELECT id_room FROM parcels').pluck().all()).toEqual(prepared.map(() => Buffer.alloc(ID_ROOM_BYTES)));
    m.close();
  });

  it('a row that loses its server id gets room again, and one given it through updateRow gives its room up', () => {
    const { m, db, farm } = farmMirror();
    const [p] = m.write.createParcels(farm, [square(1)]).created;
    updateRow(db, 'parcel', p!.local_id, { server_id: 9, key: keyOf(9) });
    expect(room(db, p!.local_id)).toBeNull();
    updateRow(db, 'parcel', p!.local_id, { server_id: null, key: null });
    expect(room(db, p!.local_id)).toEqual(Buffer.alloc(ID_ROOM_BYTES));
    // Other writes leave the room as it is.
    updateRow(db, 'parcel', p!.local_id, { name: 'Renamed' });
    expect(room(db, p!.local_id)).toEqual(Buffer.alloc(ID_ROOM_BYTES));
    m.close();
  });
});
