// The panel's view of a parcel's conflict: the conflict row's two sides, as the sync engine records them, turned
// into the fields that differ; none once it is resolved.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mirror } from '../db/mirror.ts';
import { openConflict } from '../db/conflicts.ts';
import { parcelStateOfRow } from '../db/parcel-state.ts';
import { resolveConflict } from '../sync/conflicts.ts';
import { parcelInputs } from '../test/helpers/sync.ts';
import { conflictDifferences, parcelConflict } from './parcel-conflict.ts';

const dir = mkdtempSync(join(tmpdir(), 'furrow-parcel-conflict-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ACC = 'acc-00000000-0000-4000-8000-0000000000c1';

describe("a parcel's conflict for the panel", () => {
  it('lists what differs between mine and theirs, the overlapping fields marked, and nothing once resolved', () => {
    const m = Mirror.open(join(dir, 'mirror.db'));
    try {
      m.write.addAccount({ id: ACC, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
      const farm = m.write.createFarm(ACC, 'F');
      const [p, other] = m.write.createParcels(farm.local_id, parcelInputs(2, 'c')).created;
      const base = parcelStateOfRow(m.read.parcel(p!.local_id)!);
      const mine = { ...base, name: 'Olivar B mine', metadata: { ...base.metadata, soil: 'loam', furrow_ref: p!.local_id } };
      const theirs = { ...base, name: 'Olivar B theirs', metadata: { ...base.metadata, soil: 'clay', crop: 'olive' }, hectares: base.hectares + 1 };
      openConflict(m.syncDb, { account_id: ACC, entity: 'parcel', local_id: p!.local_id, kind: 'edit', fields: ['name', 'metadata.soil'], base: JSON.stringify(base), mine: JSON.stringify(mine), theirs: JSON.stringify(theirs) });

      expect(parcelConflict(m, other!.local_id)).toBeNull();
      const c = parcelConflict(m, p!.local_id)!;
      expect(c).toMatchObject({ kind: 'edit', reason: 'name; metadata.soil', deletedOnService: false });
      expect(c.differences).toEqual([
        { field: 'name', mine: 'Olivar B mine', theirs: 'Olivar B theirs', overlaps: true },
        { field: 'metadata.crop', mine: null, theirs: 'olive', overlaps: false },
        { field: 'metadata.soil', mine: 'loam', theirs: 'clay', overlaps: true },
        { field: 'geometry', mine: expect.stringMatching(/ ha, 4 vertices$/) as string, theirs: expect.stringMatching(/ ha, 4 vertices$/) as string, overlaps: false },
      ]);

      resolveConflict(m.syncDb, c.id, 'theirs');
      expect(parcelConflict(m, p!.local_id)).toBeNull();
      expect(m.read.parcel(p!.local_id)!.name).toBe('Olivar B theirs');
    } finally {
      m.close();
    }
  });

  it('says a deleted parcel is gone on theirs, and two shapes alike in numbers still differ', () => {
    const sq = { type: 'Polygon' as const, coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]] };
    const moved = { type: 'Polygon' as const, coordinates: [[[1, 0], [2, 0], [2, 1], [1, 1], [1, 0]]] };
    const d = conflictDifferences({ name: 'a', geometry: sq, hectares: 2, source_type: 'Polygon' }, { name: 'a', geometry: moved, hectares: 2, source_type: 'Polygon' }, ['geometry']);
    expect(d).toEqual([{ field: 'geometry', mine: '2.00 ha, 4 vertices', theirs: '2.00 ha, 4 vertices (another shape)', overlaps: true }]);
    expect(conflictDifferences({ name: 'a', metadata: { n: 2, x: true } }, { name: 'a', metadata: { n: 3 } }, [])).toEqual([
      { field: 'metadata.n', mine: '2', theirs: '3', overlaps: false },
      { field: 'metadata.x', mine: 'true', theirs: null, overlaps: false },
    ]);
  });
});
