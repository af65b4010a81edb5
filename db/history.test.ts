// The stored form of undo entries: rows a bulk edit created as lists of ids, everything else as it was; entries
// written in the older form (a Change per created row) still read the same.
import { describe, expect, it } from 'vitest';
import { loadChanges, storeChanges, type Change } from './history.ts';
import type { Row } from './types.ts';

const row = { local_id: 'f1', name: 'Farm' } as unknown as Row;
const changes: Change[] = [
  { entity: 'farm', local_id: 'f1', before: null, after: row },
  { entity: 'parcel', local_id: 'p1', before: null, after: 'current' },
  { entity: 'parcel', local_id: 'p2', before: null, after: 'current' },
  { entity: 'crop', local_id: 'c1', before: row, after: null },
  { entity: 'crop', local_id: 'c2', before: null, after: 'current' },
];

describe('storeChanges / loadChanges', () => {
  it('store bulk-created rows as ids per entity, the other changes whole, and read back the same changes', () => {
    const json = storeChanges(changes);
    expect(JSON.parse(json)).toEqual([changes[0], changes[3], { entity: 'parcel', created: ['p1', 'p2'] }, { entity: 'crop', created: ['c2'] }]);
    expect(loadChanges(json)).toEqual([changes[0], changes[3], changes[1], changes[2], changes[4]]);
  });

  it('read entries written a Change per created row, as before', () => {
    expect(loadChanges(JSON.stringify(changes))).toEqual(changes);
  });

  it('take about 40 bytes per created row', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `0193a0b1-${String(i).padStart(4, '0')}-7000-8000-000000000000`);
    const json = storeChanges(ids.map((id) => ({ entity: 'parcel', local_id: id, before: null, after: 'current' })));
    expect(json.length / ids.length).toBeLessThan(40);
    expect(loadChanges(json).map((c) => c.local_id)).toEqual(ids);
  });
});
