// MirrorWriter on a real mirror file: how edits coalesce in the outbox, undo/redo that survives a restart,
// and validation with the service's rules (EditError with the problems).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mirror } from './mirror.ts';
import { EditError } from './writer.ts';
import { markInFlight, setOpState } from './op-transitions.ts';
import type { OutboxRow } from './types.ts';
import { readAfterState, saveReadAfterState } from './read-after.ts';
import { parcelInputs } from '../test/helpers/sync.ts';
import { pointParcel, polygonParcel } from '../test/helpers/service.ts';

const ACC = 'acc-00000000-0000-4000-8000-000000000001';
let dir: string;
let file: string;
let m: Mirror;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-writer-'));
  file = join(dir, 'mirror.db');
  m = Mirror.open(file);
  m.write.addAccount({ id: ACC, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
});
afterEach(() => {
  m.close();
  rmSync(dir, { recursive: true, force: true });
});

const ops = (localId: string): OutboxRow[] => m.syncDb.prepare('SELECT * FROM outbox WHERE local_id = ? ORDER BY id').all(localId) as OutboxRow[];
const opKinds = (localId: string) => ops(localId).map((o) => `${o.op}:${o.state}`);

/** What a sync that committed the create does to the row: ids, base, op committed. */
function pretendSynced(localId: string, serverId: number): void {
  const row = m.read.parcel(localId)!;
  m.syncDb.prepare('UPDATE parcels SET server_id = ?, key = ?, base = ? WHERE local_id = ?')
    .run(serverId, `00000000-0000-4000-8000-${String(serverId).padStart(12, '0')}`, JSON.stringify({ name: row.name }), localId);
  setOpState(m.syncDb, ops(localId).map((o) => o.id), 'committed');
}

function farmWith(n: number) {
  const farm = m.write.createFarm(ACC, 'Finca');
  const { created } = m.write.createParcels(farm.local_id, parcelInputs(n, 'w'));
  return { farm, rows: created };
}

describe('outbox coalescing', () => {
  it('an edit of a parcel whose create is still queued is covered by the create', () => {
    const { rows } = farmWith(1);
    const p = rows[0]!;
    m.write.updateParcel(p.local_id, { name: 'renamed' });
    m.write.updateParcel(p.local_id, { metadata: { a: 1 } });
    expect(opKinds(p.local_id)).toEqual(['create:queued']);
    expect(m.read.parcel(p.local_id)).toMatchObject({ name: 'renamed', metadata: '{"a":1}' });
  });

  it('deleting a parcel never sent removes the row and its ops', () => {
    const { rows } = farmWith(2);
    const p = rows[0]!;
    m.write.updateParcel(p.local_id, { name: 'x' });
    m.write.deleteParcel(p.local_id);
    // Only a tombstone is left (for redo): gone from every listing, no op; purged with the redo stack.
    expect(m.read.parcel(p.local_id)).toMatchObject({ deleted: 1, server_id: null });
    expect(m.read.allParcels().map((r) => r.local_id)).not.toContain(p.local_id);
    expect(ops(p.local_id)).toEqual([]);
    expect(opKinds(rows[1]!.local_id)).toEqual(['create:queued']);
  });

  it('deleting a parcel whose create is uncertain keeps the create and adds a delete', () => {
    const { rows } = farmWith(1);
    const p = rows[0]!;
    const create = ops(p.local_id)[0]!;
    markInFlight(m.syncDb, [create.id], 'b1');
    setOpState(m.syncDb, [create.id], 'uncertain');
    m.write.deleteParcel(p.local_id);
    expect(opKinds(p.local_id)).toEqual(['create:uncertain', 'delete:queued']);
    expect(m.read.parcel(p.local_id)).toMatchObject({ deleted: 1 });
    expect(m.read.parcels(rows[0]!.farm_local_id)).toEqual([]);
  });

  it('deleting a parcel that was refused removes it: the service never had it', () => {
    const { rows } = farmWith(1);
    const p = rows[0]!;
    setOpState(m.syncDb, [ops(p.local_id)[0]!.id], 'rejected', { last_error: 'too big' });
    m.write.deleteParcel(p.local_id);
    // Only a tombstone is left (for redo): gone from every listing, no op; purged with the redo stack.
    expect(m.read.parcel(p.local_id)).toMatchObject({ deleted: 1, server_id: null });
    expect(m.read.allParcels().map((r) => r.local_id)).not.toContain(p.local_id);
    expect(ops(p.local_id)).toEqual([]);
  });

  it('an edit of a rejected create queues it again, with a clean slate', () => {
    const { rows } = farmWith(1);
    const p = rows[0]!;
    const create = ops(p.local_id)[0]!;
    markInFlight(m.syncDb, [create.id], 'b1');
    m.syncDb.prepare("UPDATE outbox SET state = 'rejected', attempts = 0, last_error = 'area exceeds the limit' WHERE id = ?").run(create.id);
    m.write.updateParcel(p.local_id, { name: 'fixed' });
    expect(ops(p.local_id)).toMatchObject([{ op: 'create', state: 'queued', attempts: 0, last_error: null, next_attempt_at: null }]);
  });

  it('edits of a synced parcel: one update op; a delete replaces it', () => {
    const { rows } = farmWith(1);
    const p = rows[0]!;
    pretendSynced(p.local_id, 7);
    m.write.updateParcel(p.local_id, { name: 'one' });
    m.write.updateParcel(p.local_id, { name: 'two' });
    expect(opKinds(p.local_id)).toEqual(['create:committed', 'update:queued']);
    m.write.deleteParcel(p.local_id);
    expect(opKinds(p.local_id)).toEqual(['create:committed', 'delete:queued']);
    expect(m.read.parcel(p.local_id)).toMatchObject({ deleted: 1, server_id: 7 });
  });

  it('an edit that changes nothing records nothing', () => {
    const { rows } = farmWith(1);
    const p = rows[0]!;
    pretendSynced(p.local_id, 8);
    const before = m.syncDb.prepare('SELECT COUNT(*) AS n FROM history').get() as { n: number };
    m.write.updateParcel(p.local_id, { name: p.name });
    expect(opKinds(p.local_id)).toEqual(['create:committed']);
    expect(m.syncDb.prepare('SELECT COUNT(*) AS n FROM history').get()).toEqual(before);
  });
});

describe('undo / redo', () => {
  it('survives closing and reopening the mirror file', () => {
    const { farm, rows } = farmWith(3);
    const p = rows[0]!;
    m.write.updateParcel(p.local_id, { name: 'edited', metadata: { region: 'norte' } });
    m.write.deleteParcel(rows[1]!.local_id);
    m.close();

    m = Mirror.open(file);
    expect(m.read.canUndo()).toBe(true);
    expect(m.write.undo()).toBe('Delete parcel');
    expect(m.read.parcel(rows[1]!.local_id)).toMatchObject({ name: rows[1]!.name, deleted: 0 });
    expect(opKinds(rows[1]!.local_id)).toEqual(['create:queued']);
    expect(m.write.undo()).toBe('Edit parcel');
    expect(m.read.parcel(p.local_id)).toMatchObject({ name: p.name, metadata: p.metadata });
    m.close();

    m = Mirror.open(file);
    expect(m.read.canRedo()).toBe(true);
    expect(m.write.redo()).toBe('Edit parcel');
    expect(m.read.parcel(p.local_id)).toMatchObject({ name: 'edited', metadata: '{"region":"norte"}' });
    m.close();

    m = Mirror.open(file);
    expect(m.write.redo()).toBe('Delete parcel');
    expect(m.read.parcel(rows[1]!.local_id)).toMatchObject({ deleted: 1 });
    expect(m.write.redo()).toBeNull();
    expect(m.read.parcels(farm.local_id).map((r) => r.name)).toEqual(['edited', rows[2]!.name]);
    // Undoing all the way back: nothing left but the empty history's first steps.
    expect(m.write.undo()).toBe('Delete parcel');
    expect(m.write.undo()).toBe('Edit parcel');
    expect(m.write.undo()).toBe('Create 3 parcel(s)');
    expect(m.read.parcels(farm.local_id)).toEqual([]);
    expect(m.syncDb.prepare("SELECT COUNT(*) AS n FROM outbox WHERE entity = 'parcel'").get()).toEqual({ n: 0 });
    // A new edit drops the redo stack, and with it the tombstones only redo could have revived.
    m.write.renameFarm(farm.local_id, 'Renamed');
    expect(m.read.canRedo()).toBe(false);
    expect(m.syncDb.prepare('SELECT COUNT(*) AS n FROM parcels').get()).toEqual({ n: 0 });
  });

  it('a bulk create is recorded by reference, and undo/redo of it still restores every parcel', () => {
    const farm = m.write.createFarm(ACC, 'Bulk');
    const inputs = parcelInputs(250, 'b');
    m.write.createParcels(farm.local_id, inputs);
    const entry = m.syncDb.prepare('SELECT changes FROM history ORDER BY id DESC LIMIT 1').get() as { changes: string };
    expect(entry.changes.length).toBeLessThan(250 * 200); // ids, not 250 geometries
    expect(m.write.undo()).toBe('Create 250 parcel(s)');
    expect(m.read.parcels(farm.local_id)).toEqual([]);
    expect(m.write.redo()).toBe('Create 250 parcel(s)');
    expect(m.read.parcels(farm.local_id).map((r) => r.name).sort()).toEqual(inputs.map((x) => (x as { name: string }).name).sort());
    expect(opKinds(m.read.parcels(farm.local_id)[0]!.local_id)).toEqual(['create:queued']);
  });

  it('undo of a synced parcel delete withdraws the delete; a new edit clears the redo stack', () => {
    const { rows } = farmWith(2);
    const p = rows[0]!;
    pretendSynced(p.local_id, 11);
    m.write.deleteParcel(p.local_id);
    expect(opKinds(p.local_id)).toEqual(['create:committed', 'delete:queued']);
    m.write.undo();
    expect(ops(p.local_id).some((o) => o.op === 'delete')).toBe(false);
    expect(m.read.parcel(p.local_id)).toMatchObject({ deleted: 0, server_id: 11 });
    expect(m.read.canRedo()).toBe(true);
    m.write.updateParcel(rows[1]!.local_id, { name: 'new edit' });
    expect(m.read.canRedo()).toBe(false);
    expect(m.write.redo()).toBeNull();
  });
});

describe('undo / redo per account', () => {
  const OTHER = 'acc-00000000-0000-4000-8000-000000000009';
  it("undo and redo of one account never touch another's edits, and a new edit ends only its own account's redo", () => {
    m.write.addAccount({ id: OTHER, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
    const a = m.write.createFarm(ACC, 'Finca A');
    const b = m.write.createFarm(OTHER, 'Farm B');
    m.write.renameFarm(a.local_id, 'Finca A2');
    m.write.renameFarm(b.local_id, 'Farm B2');
    expect(m.read.history(ACC)).toEqual({ undo: 'Rename farm to Finca A2', redo: null });
    expect(m.write.undo(ACC)).toBe('Rename farm to Finca A2');
    expect([m.read.farm(a.local_id)!.name, m.read.farm(b.local_id)!.name]).toEqual(['Finca A', 'Farm B2']);
    // A new edit in the other account leaves this account's redo alone.
    m.write.renameFarm(b.local_id, 'Farm B3');
    expect(m.read.history(ACC)).toEqual({ undo: 'Create farm Finca A', redo: 'Rename farm to Finca A2' });
    expect(m.write.redo(ACC)).toBe('Rename farm to Finca A2');
    expect(m.read.farm(a.local_id)!.name).toBe('Finca A2');
    expect(m.write.undo(OTHER)).toBe('Rename farm to Farm B3');
    expect(m.write.undo(OTHER)).toBe('Rename farm to Farm B2');
    expect(m.write.undo(OTHER)).toBe('Create farm Farm B');
    expect(m.write.undo(OTHER)).toBeNull();
    expect(m.read.farm(a.local_id)!.name).toBe('Finca A2');
    expect(m.read.history(OTHER)).toEqual({ undo: null, redo: 'Create farm Farm B' });
  });

  it("a new edit in one account keeps the tombstones another account's redo needs", () => {
    m.write.addAccount({ id: OTHER, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
    const farm = m.write.createFarm(OTHER, 'Farm B');
    m.write.createParcels(farm.local_id, parcelInputs(250, 'bulk'), { label: 'Import 250' });
    expect(m.write.undo(OTHER)).toBe('Import 250');
    expect(m.read.parcels(farm.local_id)).toHaveLength(0);
    m.write.createFarm(ACC, 'Finca A');
    expect(m.write.redo(OTHER)).toBe('Import 250');
    expect(m.read.parcels(farm.local_id)).toHaveLength(250);
  });
});

describe('validation', () => {
  it('invalid parcels: EditError with a problem per parcel, nothing created', () => {
    const farm = m.write.createFarm(ACC, 'V');
    const bad = [polygonParcel('ok'), pointParcel('no hectares', undefined), { name: '', geom: polygonParcel('x').geom }, polygonParcel('huge', -4, 37, 1100)];
    let err: unknown;
    try {
      m.write.createParcels(farm.local_id, bad);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EditError);
    const problems = (err as EditError).problems as readonly { index: number; message: string }[];
    expect([...new Set(problems.map((p) => p.index))].sort()).toEqual([1, 2, 3]);
    expect(problems.find((p) => p.index === 3)!.message).toMatch(/limit of 100 ha/);
    expect((err as EditError).message).toMatch(/3 of 4 parcel\(s\) are invalid; nothing was created/);
    expect(m.read.parcels(farm.local_id)).toEqual([]);

    const partial = m.write.createParcels(farm.local_id, bad, { skipInvalid: true });
    expect(partial.created.map((c) => c.name)).toEqual(['ok']);
    expect(partial.problems.length).toBeGreaterThanOrEqual(3);
  });

  it("the account's agreed limit applies locally", () => {
    const farm = m.write.createFarm(ACC, 'Lim');
    m.write.setParcelLimit(ACC, 5);
    expect(m.write.parcelLimit(ACC)).toBe(5);
    expect(() => m.write.createParcels(farm.local_id, [polygonParcel('8 ha', -4, 37, 283)])).toThrow(EditError);
    m.write.setParcelLimit(ACC, null);
    expect(m.write.createParcels(farm.local_id, [polygonParcel('8 ha', -4, 37, 283)]).created).toHaveLength(1);
  });

  it('a parcel limit that is not a positive number is refused, and one stored earlier does not turn the check off', () => {
    const farm = m.write.createFarm(ACC, 'NaN limit');
    m.write.setParcelLimit(ACC, 5);
    for (const bad of [NaN, Infinity, 0, -3]) expect(() => m.write.setParcelLimit(ACC, bad)).toThrow(RangeError);
    expect(m.write.parcelLimit(ACC)).toBe(5);
    // As an older Furrow could write it: the default limit applies, not none.
    m.syncDb.prepare("UPDATE settings SET value = 'NaN' WHERE key = ?").run(`parcel_limit:${ACC}`);
    expect(m.write.parcelLimit(ACC)).toBe(100);
    expect(() => m.write.createParcels(farm.local_id, [polygonParcel('121 ha', -4, 37, 1100)])).toThrow(EditError);
  });

  it('invalid edits, crops and farms are refused with the problems', () => {
    const { farm, rows } = farmWith(1);
    const p = rows[0]!;
    expect(() => m.write.updateParcel(p.local_id, { name: '' })).toThrow(EditError);
    expect(() => m.write.updateParcel(p.local_id, { geom: { type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [-4, 37] } } })).toThrow(EditError);
    expect(m.read.parcel(p.local_id)!.name).toBe(p.name);
    expect(() => m.write.createFarm(ACC, '   ')).toThrow(/needs a name/);
    try {
      m.write.createCrop(ACC, p.local_id, { name: 'Wheat', sowing: '2024-05-01', closure: '2024-01-01' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(EditError);
      expect((e as EditError).problems).toMatchObject([{ path: 'closure', code: 'closure_before_sowing' }]);
    }
    expect(() => m.write.createCrop(ACC, p.local_id, { name: 'x', sowing: '2024-02-30' })).toThrow(/YYYY-MM-DD/);
    expect(() => m.write.updateParcel('no-such-parcel', { name: 'x' })).toThrow(/No such parcel/);
    expect(m.read.crops(p.local_id)).toEqual([]);
    expect(m.read.farms(ACC).map((f) => f.local_id)).toEqual([farm.local_id]);
  });
});

describe('connecting an account again', () => {
  it('keeps what its reads must come after for the same service only: another service\'s WAL positions mean nothing there', () => {
    saveReadAfterState(m.syncDb, ACC, '{"lsn":"0/10","uncertain_at":null}');
    m.write.addAccount({ id: ACC, service_url: 'http://127.0.0.1:1', mode: 'api_key', label: 'renamed' });
    expect(readAfterState(m.syncDb, ACC)).toBe('{"lsn":"0/10","uncertain_at":null}');
    m.write.addAccount({ id: ACC, service_url: 'http://127.0.0.1:2', mode: 'api_key' });
    expect(readAfterState(m.syncDb, ACC)).toBeNull();
  });
});
