// The push's parcel-create steps (db/op-transitions.ts) on a real mirror file: each does its whole step's reads and
// writes, books into the right row, and leaves every op in a definite state.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Mirror } from './mirror.ts';
import { bookCreated, refuseInBatch, settleReconciled, uncertainCreatesByFarm } from './op-transitions.ts';
import { polygonParcel } from '../test/helpers/service.ts';
import { closeTestMirror, openTestMirror } from '../test/helpers/test-mirror.ts';

const ACC = 'acc-00000000-0000-4000-8000-000000000004';
const KEY_A = '0b8f6c3e-1f2a-4c5d-9e8f-0a1b2c3d4e5f';
const KEY_B = '1c9a7d4f-2a3b-4d6e-8f9a-1b2c3d4e5f60';
const UNCERTAIN = { at: '2026-01-01T00:00:00.000Z', recheckAt: '2026-01-01T00:00:30.000Z' };
let dir: string;
let m: Mirror;

beforeEach(() => { ({ m, dir } = openTestMirror('furrow-parcel-creates-', [ACC])); });
afterEach(() => closeTestMirror({ m, dir }));

type Made = { localId: string; rowid: number; opId: number };

function parcels(n = 2, farmServerId: number | null = 7): Made[] {
  const farm = m.write.createFarm(ACC, 'Rows');
  if (farmServerId !== null) m.syncDb.prepare('UPDATE farms SET server_id = ? WHERE local_id = ?').run(farmServerId, farm.local_id);
  const inputs = Array.from({ length: n }, (_, i) => polygonParcel(`p${i}`, -5.99 + i * 0.01, 37.39));
  const { created } = m.write.createParcels(farm.local_id, inputs);
  return created.map((c) => ({
    localId: c.local_id,
    rowid: m.syncDb.prepare('SELECT rowid FROM parcels WHERE local_id = ?').pluck().get(c.local_id) as number,
    opId: m.syncDb.prepare("SELECT id FROM outbox WHERE local_id = ? AND op = 'create'").pluck().get(c.local_id) as number,
  }));
}

const ids = (localId: string) => m.syncDb.prepare('SELECT server_id, key, base FROM parcels WHERE local_id = ?').get(localId);
const op = (id: number) => m.syncDb.prepare('SELECT state, attempts, checks, last_error, next_attempt_at, uncertain_at FROM outbox WHERE id = ?').get(id) as Record<string, unknown>;
const sendOp = (p: Made, rowid: number | undefined = p.rowid) => ({ id: p.opId, local_id: p.localId, attempts: 1, rowid });
const created = (id: number, key: string) => ({ id, properties: { key } });
const setState = (state: string, extra = '') => m.syncDb.prepare(`UPDATE outbox SET state = ?${extra}`).run(state);

describe('bookCreated', () => {
  it('writes each parcel its ids by rowid, and by local id when the rowid is not known, and commits the ops', () => {
    const [a, b] = parcels() as [Made, Made];
    const booked = bookCreated(m.syncDb, [{ op: sendOp(a), feature: created(11, KEY_A) }, { op: sendOp(b, undefined), feature: created(12, KEY_B) }], UNCERTAIN);
    expect(booked).toEqual({ committed: 2, unread: 0 });
    expect(ids(a.localId)).toEqual({ server_id: 11, key: KEY_A, base: null });
    expect(ids(b.localId)).toEqual({ server_id: 12, key: KEY_B, base: null });
    expect(op(a.opId).state).toBe('committed');
    expect(op(b.opId).state).toBe('committed');
  });

  it("never writes another parcel: a rowid that is not the parcel's falls back to its local id", () => {
    const [a, b] = parcels() as [Made, Made];
    // A's ids with B's rowid (a row replaced under that rowid since the push planned it, say): B stays as it was.
    bookCreated(m.syncDb, [{ op: sendOp(a, b.rowid), feature: created(21, KEY_A) }], UNCERTAIN);
    expect(ids(a.localId)).toEqual({ server_id: 21, key: KEY_A, base: null });
    expect(ids(b.localId)).toEqual({ server_id: null, key: null, base: null });
  });

  it('gives a parcel edited while its create was out the created state as its base, and leaves one it cannot read whole uncertain', () => {
    const [a, b] = parcels() as [Made, Made];
    // Out: an edit now is an update of its own (a queued create would take it in).
    setState('in_flight', ', attempts = 1');
    m.write.updateParcel(a.localId, { name: 'renamed' });
    m.write.updateParcel(b.localId, { name: 'renamed too' });
    const ring = [[-5.99, 37.39], [-5.98, 37.39], [-5.98, 37.4], [-5.99, 37.39]];
    const whole = {
      type: 'Feature', id: 31, bbox: [-5.99, 37.39, -5.98, 37.4], geometry: { type: 'Polygon', coordinates: [ring] },
      properties: { key: KEY_A, name: 'p0', farm: 7, hectares: 1, metadata: {}, source_type: 'Polygon', point: null, center: [-5.985, 37.395], created: '2026-01-01T00:00:00Z', modified: '2026-01-01T00:00:00Z' },
    };
    const booked = bookCreated(m.syncDb, [
      { op: sendOp(a), feature: { ...created(31, KEY_A), text: () => JSON.stringify(whole) } },
      { op: sendOp(b), feature: { ...created(32, KEY_B), text: () => '{"id":32}' } },
    ], UNCERTAIN);
    expect(booked).toEqual({ committed: 1, unread: 1 });
    expect(JSON.parse((ids(a.localId) as { base: string }).base)).toMatchObject({ name: 'p0', hectares: 1 });
    expect(op(b.opId)).toMatchObject({ state: 'uncertain', uncertain_at: UNCERTAIN.at, next_attempt_at: UNCERTAIN.recheckAt });
    expect(ids(b.localId)).toMatchObject({ server_id: null });
  });
});

describe('refuseInBatch', () => {
  it("rejects the parcels a 400 named, each with its own reasons, and puts the whole batch's attempts back to 0", () => {
    const ps = parcels(3);
    setState('in_flight', ', attempts = 2');
    refuseInBatch(m.syncDb, ps.map((p) => p.opId), [{ id: ps[1]!.opId, reason: 'too large' }]);
    expect(op(ps[1]!.opId)).toMatchObject({ state: 'rejected', attempts: 0, last_error: 'too large' });
    expect(op(ps[0]!.opId)).toMatchObject({ state: 'in_flight', attempts: 0 });
    expect(op(ps[2]!.opId)).toMatchObject({ state: 'in_flight', attempts: 0 });
  });
});

describe('uncertainCreatesByFarm', () => {
  it("groups the due uncertain creates by their farm's server id, commits those whose parcel is gone, and skips farms not created yet", () => {
    const inFarm = parcels(2, 7);
    const waiting = parcels(1, null);
    setState('uncertain');
    m.syncDb.prepare('DELETE FROM parcels WHERE local_id = ?').run(inFarm[1]!.localId);
    const { total, byFarm } = uncertainCreatesByFarm(m.syncDb, ACC, '2030-01-01T00:00:00.000Z');
    expect(total).toBe(3);
    expect([...byFarm.keys()]).toEqual([7]);
    expect(byFarm.get(7)!.map((o) => o.id)).toEqual([inFarm[0]!.opId]);
    expect(Object.keys(byFarm.get(7)![0]!)).not.toContain('farm_server_id');
    expect(op(inFarm[1]!.opId)).toMatchObject({ state: 'committed', last_error: 'row gone' });
    expect(op(waiting[0]!.opId).state).toBe('uncertain');
  });

  it('leaves what is not due yet', () => {
    parcels(1);
    setState('uncertain', ", next_attempt_at = '2031-01-01T00:00:00.000Z'");
    expect(uncertainCreatesByFarm(m.syncDb, ACC, '2030-01-01T00:00:00.000Z').total).toBe(0);
  });
});

describe('settleReconciled', () => {
  it('books what was found, keeps the conflicts, requeues the absent, forgets an absent parcel the user deleted, and checks the rest again', () => {
    const [found, absent, deleted, notYet] = parcels(4) as [Made, Made, Made, Made];
    setState('uncertain', ', checks = 1');
    m.syncDb.prepare('UPDATE parcels SET deleted = 1 WHERE local_id = ?').run(deleted.localId);
    const row = (id: number) => m.syncDb.prepare('SELECT * FROM outbox WHERE id = ?').get(id) as never;
    const out = settleReconciled(m.syncDb, {
      found: [{ op: sendOp(found), feature: created(41, KEY_A) }],
      conflicts: [{ account_id: ACC, entity: 'parcel', local_id: found.localId, kind: 'duplicate_on_service', fields: ['twice'], base: null, mine: null, theirs: '{"duplicates":[42]}' }],
      absent: [row(absent.opId), row(deleted.opId)],
      notYet: [{ id: notYet.opId, at: '2026-01-01T00:01:00.000Z' }],
    }, UNCERTAIN);
    expect(out).toEqual({ committed: 1, unread: 0, conflicts: 1 });
    expect(ids(found.localId)).toMatchObject({ server_id: 41 });
    expect(op(found.opId).state).toBe('committed');
    expect(op(absent.opId)).toMatchObject({ state: 'queued', attempts: 0, checks: 0, next_attempt_at: null });
    expect(op(deleted.opId)).toBeUndefined();
    expect(m.syncDb.prepare('SELECT count(*) FROM parcels WHERE local_id = ?').pluck().get(deleted.localId)).toBe(0);
    expect(op(notYet.opId)).toMatchObject({ state: 'uncertain', checks: 2, next_attempt_at: '2026-01-01T00:01:00.000Z' });
    expect(m.syncDb.prepare('SELECT kind FROM conflicts WHERE local_id = ?').pluck().all(found.localId)).toEqual(['duplicate_on_service']);
  });

  it('writes nothing when a step of it fails', () => {
    const [found, absent] = parcels(2) as [Made, Made];
    setState('uncertain', ', checks = 1');
    const row = m.syncDb.prepare('SELECT * FROM outbox WHERE id = ?').get(absent.opId) as never;
    const bad = { account_id: 'acc-nobody', entity: 'parcel', local_id: found.localId, kind: 'partial_batch', fields: [], base: null, mine: null, theirs: null } as const;
    expect(() => settleReconciled(m.syncDb, { found: [{ op: sendOp(found), feature: created(51, KEY_A) }], conflicts: [bad], absent: [row], notYet: [] }, UNCERTAIN)).toThrow();
    expect(ids(found.localId)).toMatchObject({ server_id: null });
    expect(op(found.opId).state).toBe('uncertain');
    expect(op(absent.opId).state).toBe('uncertain');
  });
});
