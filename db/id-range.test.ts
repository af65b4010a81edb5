// The push's statements read and write a run of ids as one range (db/id-range.ts): for any other set they must still
// touch exactly the ids given, never one between them. On a real mirror file.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Mirror } from './mirror.ts';
import { idRange, idsIn } from './id-range.ts';
import { commitBatch, markBatch } from './batch-marks.ts';
import { bookCreated } from './op-transitions.ts';
import { parcelsToSend } from './rows.ts';
import { polygonParcel } from '../test/helpers/service.ts';
import { closeTestMirror, openTestMirror } from '../test/helpers/test-mirror.ts';

describe('idRange', () => {
  it('is [lo, hi] only for the integers lo…hi, each once, in increasing order', () => {
    expect(idRange([7])).toEqual([7, 7]);
    expect(idRange([3, 4, 5, 6])).toEqual([3, 6]);
    expect(idRange([])).toBeNull();
    expect(idRange([3, 5])).toBeNull();
    expect(idRange([4, 3])).toBeNull();
    expect(idRange([3, 3, 4])).toBeNull();
    expect(idRange([3, 4, 4])).toBeNull();
    expect(idRange([1.5, 2.5])).toBeNull();
    expect(idRange([2 ** 53, 2 ** 53 + 1])).toBeNull();
  });

  it('makes the condition a range for a run, the JSON list otherwise', () => {
    expect(idsIn('id', [4, 5, 6])).toEqual({ sql: 'id BETWEEN ? AND ?', params: [4, 6] });
    expect(idsIn('rowid', [4, 6])).toEqual({ sql: 'rowid IN (SELECT value FROM json_each(?))', params: ['[4,6]'] });
  });
});

const ACC = 'acc-00000000-0000-4000-8000-000000000007';
let dir: string;
let m: Mirror;
beforeEach(() => { ({ m, dir } = openTestMirror('furrow-id-range-', [ACC])); });
afterEach(() => closeTestMirror({ m, dir }));

/** Five parcels of one farm the service has, created together: consecutive rowids and op ids. */
function five(): { localIds: string[]; rowids: number[]; ops: number[]; farm: string } {
  const farm = m.write.createFarm(ACC, 'Cortijo');
  m.syncDb.prepare('UPDATE farms SET server_id = 1 WHERE local_id = ?').run(farm.local_id);
  const { created } = m.write.createParcels(farm.local_id, Array.from({ length: 5 }, (_, i) => polygonParcel(`p${i}`, -5.99 + i * 0.01, 37.39)));
  const localIds = created.map((c) => c.local_id);
  const one = (sql: string) => localIds.map((l) => m.syncDb.prepare(sql).pluck().get(l) as number);
  return { localIds, rowids: one('SELECT rowid FROM parcels WHERE local_id = ?'), ops: one("SELECT id FROM outbox WHERE local_id = ? AND op = 'create'"), farm: farm.local_id };
}
const states = (ops: readonly number[]) => ops.map((id) => m.syncDb.prepare('SELECT state FROM outbox WHERE id = ?').pluck().get(id));

describe('the push\'s statements, by range and by list', () => {
  it('parcelsToSend reads exactly the rows asked for, live ones only', () => {
    const p = five();
    const names = (rowids: number[]) => parcelsToSend(m.syncDb, rowids).map((r) => r.name).sort();
    expect(idRange(p.rowids.slice(1, 4))).not.toBeNull();
    expect(names(p.rowids.slice(1, 4))).toEqual(['p1', 'p2', 'p3']);
    expect(names([p.rowids[1]!, p.rowids[3]!])).toEqual(['p1', 'p3']);
    expect(names([p.rowids[3]!, p.rowids[2]!])).toEqual(['p2', 'p3']);
    m.write.deleteParcel(p.localIds[2]!);
    expect(names(p.rowids)).toEqual(['p0', 'p1', 'p3', 'p4']);
  });

  it('markBatch marks exactly the queued first sends asked for', () => {
    const p = five();
    m.syncDb.prepare("UPDATE outbox SET state = 'rejected' WHERE id = ?").run(p.ops[2]);
    expect(markBatch(m.syncDb, ACC, p.ops.slice(1, 4), { id: 'b1', sentAt: 't' })).toEqual(new Set([p.ops[1], p.ops[3]]));
    expect(markBatch(m.syncDb, ACC, [p.ops[0]!, p.ops[4]!], { id: 'b2', sentAt: 't' })).toEqual(new Set([p.ops[0], p.ops[4]]));
  });

  it('commitBatch commits exactly the ops asked for, none between them', () => {
    const p = five();
    commitBatch(m.syncDb, { id: 'b1', sentAt: 't' }, [p.ops[0]!, p.ops[2]!], 't2');
    expect(states(p.ops)).toEqual(['committed', 'queued', 'committed', 'queued', 'queued']);
    commitBatch(m.syncDb, { id: 'b2', sentAt: 't' }, p.ops.slice(3, 5), 't2');
    expect(states(p.ops)).toEqual(['committed', 'queued', 'committed', 'committed', 'committed']);
  });

  it('a booking counts exactly its newly synced parcels in the farm\'s totals', () => {
    const p = five();
    const book = (is: number[], first: number) => bookCreated(m.syncDb, is.map((i, k) => ({
      op: { id: p.ops[i]!, local_id: p.localIds[i]!, attempts: 0, rowid: p.rowids[i]! },
      feature: { id: first + k, properties: { key: `0b8f6c3e-1f2a-4c5d-9e8f-0a1b2c3d4e${String(first + k).padStart(2, '0')}` } },
    })), { at: 't', recheckAt: 't' });
    book([1, 2, 3], 10);
    expect(m.read.status(ACC).synced).toBe(3);
    book([0, 4], 20);
    expect(m.read.status(ACC).synced).toBe(5);
    expect(m.syncDb.prepare('SELECT count(*) FROM parcels WHERE server_id IS NOT NULL').pluck().get()).toBe(5);
  });
});
