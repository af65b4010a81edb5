// A batch of the push marked in flight by one row (db/batch-marks.ts) on a real mirror file: its ops are written only
// when their answer is booked, and anything else that looks at them first sees them in flight, exactly as if each op
// had been marked.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Mirror } from './mirror.ts';
import { commitBatch, markBatch, writeBatchMarks } from './batch-marks.ts';
import { markInFlight, bookCreated } from './op-transitions.ts';
import { inFlightToUncertain } from './outbox.ts';
import { blockAccount } from './sync-state.ts';
import { holdInConflict } from './conflicts.ts';
import { polygonParcel } from '../test/helpers/service.ts';
import { closeTestMirror, openTestMirror } from '../test/helpers/test-mirror.ts';

const ACC = 'acc-00000000-0000-4000-8000-000000000005';
const OTHER = 'acc-00000000-0000-4000-8000-000000000006';
const SENT = '2026-01-01T00:00:00.000Z';
const UNCERTAIN = { at: '2026-01-01T00:01:00.000Z', recheckAt: '2026-01-01T00:01:30.000Z' };
let dir: string;
let m: Mirror;

beforeEach(() => { ({ m, dir } = openTestMirror('furrow-batch-marks-', [ACC, { id: OTHER, service_url: 'http://127.0.0.1:2' }])); });
afterEach(() => closeTestMirror({ m, dir }));

type Made = { localId: string; opId: number };
let farms = 0;

function parcels(n: number, account = ACC): Made[] {
  const farm = m.write.createFarm(account, `Farm ${++farms}`);
  m.syncDb.prepare('UPDATE farms SET server_id = ? WHERE local_id = ?').run(farms, farm.local_id);
  const { created } = m.write.createParcels(farm.local_id, Array.from({ length: n }, (_, i) => polygonParcel(`p${i}`, -5.99 + i * 0.01, 37.39)));
  return created.map((c) => ({ localId: c.local_id, opId: m.syncDb.prepare("SELECT id FROM outbox WHERE local_id = ? AND op = 'create'").pluck().get(c.local_id) as number }));
}

const MARK_COLUMNS = 'state, attempts, checks, batch_id, sent_at';
const opsOf = (ids: readonly number[]) => m.syncDb.prepare(`SELECT ${MARK_COLUMNS} FROM outbox WHERE id IN (${ids.join(',')}) ORDER BY id`).all();
const rows = () => m.syncDb.prepare('SELECT id, account_id, ops, sent_at FROM push_batches ORDER BY id').all();
const idsOf = (made: readonly Made[]) => made.map((p) => p.opId);

describe('markBatch', () => {
  it('writes one row for the batch and none of its ops; an op no longer a queued first send is not marked', () => {
    const made = parcels(3);
    m.write.deleteParcel(made[2]!.localId); // never sent: its op goes
    m.syncDb.prepare("UPDATE outbox SET state = 'rejected' WHERE id = ?").run(made[1]!.opId);
    const before = opsOf(idsOf(made.slice(0, 2)));
    expect(markBatch(m.syncDb, ACC, idsOf(made), { id: 'b1', sentAt: SENT })).toEqual(new Set([made[0]!.opId]));
    expect(rows()).toEqual([{ id: 'b1', account_id: ACC, ops: JSON.stringify([made[0]!.opId]), sent_at: SENT }]);
    expect(opsOf(idsOf(made.slice(0, 2)))).toEqual(before);
    // Nothing left to mark: no row.
    expect(markBatch(m.syncDb, ACC, [made[1]!.opId], { id: 'b2', sentAt: SENT })).toEqual(new Set());
    expect(rows()).toHaveLength(1);
  });
});

describe('writeBatchMarks', () => {
  it('writes into each op what markInFlight writes, for one account or all, and drops the rows', () => {
    const mine = parcels(2);
    const theirs = parcels(2, OTHER);
    const twin = parcels(2);
    markBatch(m.syncDb, ACC, idsOf(mine), { id: 'b-mine', sentAt: SENT });
    markBatch(m.syncDb, OTHER, idsOf(theirs), { id: 'b-theirs', sentAt: SENT });
    // The same ops marked one by one, for comparison (its send time is the clock's).
    markInFlight(m.syncDb, idsOf(twin), 'b-twin');
    expect(writeBatchMarks(m.syncDb, ACC, '2026-01-01T00:00:05.000Z')).toBe(2);
    expect(opsOf(idsOf(mine))).toEqual(Array(2).fill({ state: 'in_flight', attempts: 1, checks: 0, batch_id: 'b-mine', sent_at: SENT }));
    expect(opsOf(idsOf(twin)).map((o) => ({ ...(o as object), batch_id: 'b-mine', sent_at: SENT }))).toEqual(opsOf(idsOf(mine)));
    expect(rows()).toEqual([expect.objectContaining({ id: 'b-theirs' })]);
    expect(opsOf(idsOf(theirs))).toEqual(Array(2).fill({ state: 'queued', attempts: 0, checks: 0, batch_id: null, sent_at: null }));
    expect(writeBatchMarks(m.syncDb)).toBe(2);
    expect(rows()).toEqual([]);
    // Nothing open: nothing to write.
    expect(writeBatchMarks(m.syncDb)).toBe(0);
  });
});

describe('commitBatch, through bookCreated', () => {
  it('commits the ops as one attempt without writing their batch\'s mark into them; an op whose mark was written meanwhile keeps it and its one attempt', () => {
    const made = parcels(2);
    const mark = { id: 'b1', sentAt: SENT };
    markBatch(m.syncDb, ACC, idsOf(made), mark);
    const pairs = made.map((p, i) => ({ op: { id: p.opId, local_id: p.localId, attempts: 0 }, feature: { id: 100 + i, properties: { key: `0b8f6c3e-1f2a-4c5d-9e8f-0a1b2c3d4e5${i}` } } }));
    expect(bookCreated(m.syncDb, pairs, UNCERTAIN, mark)).toEqual({ committed: 2, unread: 0 });
    // Settled: no batch id grows the row or the batch index, no send time (20,000 of each in a large push).
    expect(opsOf(idsOf(made))).toEqual(Array(2).fill({ state: 'committed', attempts: 1, checks: 0, batch_id: null, sent_at: null }));
    expect(rows()).toEqual([]);

    const again = parcels(2);
    const mark2 = { id: 'b2', sentAt: SENT };
    markBatch(m.syncDb, ACC, idsOf(again), mark2);
    writeBatchMarks(m.syncDb); // an edit looked at them while the request was out
    commitBatch(m.syncDb, mark2, idsOf(again), '2026-01-01T00:00:09.000Z');
    expect(opsOf(idsOf(again))).toEqual(Array(2).fill({ state: 'committed', attempts: 1, checks: 0, batch_id: 'b2', sent_at: SENT }));
  });
});

describe('whatever else looks at a batch marked by its row sees it in flight', () => {
  it('a crash found at start-up: uncertain, never queued for a resend', () => {
    const made = parcels(2);
    markBatch(m.syncDb, ACC, idsOf(made), { id: 'b1', sentAt: SENT });
    expect(inFlightToUncertain(m.syncDb, null, UNCERTAIN.at)).toBe(2);
    expect(opsOf(idsOf(made))).toEqual(Array(2).fill({ state: 'uncertain', attempts: 1, checks: 0, batch_id: 'b1', sent_at: SENT }));
    expect(rows()).toEqual([]);
  });

  it('an edit while the create is out is queued as an update of its own, not covered by the create that left without it', () => {
    const [p] = parcels(1) as [Made];
    markBatch(m.syncDb, ACC, [p.opId], { id: 'b1', sentAt: SENT });
    m.write.updateParcel(p.localId, { name: 'renamed while out' });
    const ops = m.syncDb.prepare('SELECT op, state FROM outbox WHERE local_id = ? ORDER BY id').all(p.localId);
    expect(ops).toEqual([{ op: 'create', state: 'in_flight' }, { op: 'update', state: 'queued' }]);
  });

  it('a delete while the create is out queues a delete (the service may have it), instead of forgetting a never-sent create', () => {
    const [p] = parcels(1) as [Made];
    markBatch(m.syncDb, ACC, [p.opId], { id: 'b1', sentAt: SENT });
    m.write.deleteParcel(p.localId);
    const ops = m.syncDb.prepare('SELECT op, state FROM outbox WHERE local_id = ? ORDER BY id').all(p.localId);
    expect(ops).toEqual([{ op: 'create', state: 'in_flight' }, { op: 'delete', state: 'queued' }]);
  });

  it('a blocked account: its ops out are blocked as ops in flight are (the refused request was no attempt)', () => {
    const made = parcels(2);
    markBatch(m.syncDb, ACC, idsOf(made), { id: 'b1', sentAt: SENT });
    blockAccount(m.syncDb, ACC, 'key revoked', 'invalid_key');
    expect(opsOf(idsOf(made))).toEqual(Array(2).fill({ state: 'blocked', attempts: 0, checks: 0, batch_id: 'b1', sent_at: SENT }));
  });

  it('a conflict holding the row\'s ops holds its create out as in flight', () => {
    const [p] = parcels(1) as [Made];
    markBatch(m.syncDb, ACC, [p.opId], { id: 'b1', sentAt: SENT });
    holdInConflict(m.syncDb, 'parcel', p.localId, 'held');
    expect(opsOf([p.opId])).toEqual([{ state: 'conflict', attempts: 1, checks: 0, batch_id: 'b1', sent_at: SENT }]);
  });
});
