import { describe, expect, it } from 'vitest';
import { billableLine, evidence, previewLines } from './sync-words.ts';
import type { SyncItem } from '../../../core/api.ts';

const none = { create: 0, update: 0, delete: 0 };
const preview = (over: Partial<Parameters<typeof previewLines>[0]> = {}) => ({ ops: { farm: none, parcel: none, crop: none }, hectaresAdded: 0, hectaresCreated: 0, hectaresDeleted: 0, uncertain: 0, ...over });

describe('the sync cockpit words', () => {
  it('says what the next sync sends, kind by kind, and nothing for nothing', () => {
    expect(previewLines(preview())).toEqual([]);
    expect(previewLines(preview({ ops: { farm: { create: 1, update: 0, delete: 0 }, parcel: { create: 1200, update: 2, delete: 1 }, crop: none } })))
      .toEqual(['Farms: 1 new', 'Parcels: 1,200 new, 2 changed, 1 deleted']);
  });

  it('says the change to the billed hectares, signed, with where it comes from', () => {
    expect(billableLine(preview({ hectaresAdded: 12.5, hectaresCreated: 12.5 }))).toBe('Billable area: +12.50 ha (12.50 ha new)');
    expect(billableLine(preview({ hectaresAdded: -1.25, hectaresDeleted: 3.5 }))).toBe('Billable area: −1.25 ha (3.50 ha deleted, shapes changed)');
    expect(billableLine(preview())).toBe('Billable area: ±0.00 ha');
  });

  it('words what is known of an uncertain item', () => {
    const item: SyncItem = { op: 1, entity: 'parcel', kind: 'create', localId: 'p', name: 'North', state: 'uncertain', reason: 'HTTP 504 Gateway Time-out', sentAt: '2026-11-26T10:00:05.000Z', checks: 2, nextAttemptAt: '2026-11-26T10:00:40.000Z', batch: '0b7e4a1c-2f3d' };
    expect(evidence(item)).toBe('Sent at 10:00:05 in batch 0b7e4a1c; no clear answer: HTTP 504 Gateway Time-out; looked for on the service 2 times: not listed yet; next look at 10:00:40.');
    expect(evidence({ ...item, kind: 'update', reason: null, checks: 0, nextAttemptAt: null, batch: null, state: 'in_flight' }))
      .toBe('Change sent at 10:00:05; the run stopped before the answer; sent again at the next sync (a change or a delete is safe to repeat).');
  });
});
