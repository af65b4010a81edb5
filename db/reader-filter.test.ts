// The map's viewport under the embedded map's metadata filter (core/parcels/metadata-filter.ts, the condition the
// service's listings and embedded map run): values compared by their canonical text (2024 and "2024" alike, true as
// 'true'), any of a key's values, all keys; the bookkeeping key matches nothing; the box and the limit
// still apply; and no filter (or an empty one) is the unfiltered answer.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mirror } from './mirror.ts';
import { parcelInputs } from '../test/helpers/sync.ts';
import { REF_KEY } from '../core/parcels/client-ref.ts';
import type { ParcelFeature } from '../core/api.ts';

const dir = mkdtempSync(join(tmpdir(), 'furrow-filter-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ACC = 'acc-00000000-0000-4000-8000-0000000000f1';
const WORLD: [number, number, number, number] = [-180, -90, 180, 90];

describe('viewportJson with a metadata filter', () => {
  it('shows only the parcels the embedded map would, by canonical text', () => {
    const m = Mirror.open(join(dir, 'filter.db'));
    try {
      m.write.addAccount({ id: ACC, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
      m.write.addAccount({ id: `${ACC}2`, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
      const farm = m.write.createFarm(ACC, 'Filtered');
      const metas: Record<string, unknown>[] = [
        { year: 2024, 'Supplier ID': 'S-1', organic: true },
        { year: '2024', 'Supplier ID': 'S-2', organic: false },
        { year: 2025, 'Supplier ID': 'S-1', ratio: 2.5 },
        { 'Supplier ID': 's-1' },
        {},
      ];
      const inputs = parcelInputs(metas.length, 'f').map((p, i) => ({ ...(p as object), metadata: metas[i] }));
      const ids = m.write.createParcels(farm.local_id, inputs).created.map((p) => p.local_id);
      // Another account's parcel with the same metadata, inside the same box: never shown.
      m.write.createParcels(m.write.createFarm(`${ACC}2`, 'Other').local_id, [{ ...(parcelInputs(1, 'o')[0] as object), metadata: { year: 2024 } }]);
      const shown = (metadata?: Record<string, string[]>, bbox = WORLD, limit = 100) =>
        m.read.viewportJson(bbox, limit, ACC, metadata).map((t) => (JSON.parse(t) as ParcelFeature).id).sort();
      const of = (...i: number[]) => i.map((n) => ids[n]!).sort();

      expect(shown({ year: ['2024'] })).toEqual(of(0, 1));
      expect(shown({ year: ['2024', '2025'] })).toEqual(of(0, 1, 2));
      expect(shown({ year: ['2024'], 'Supplier ID': ['S-1'] })).toEqual(of(0));
      expect(shown({ 'Supplier ID': ['S-1'] })).toEqual(of(0, 2)); // case counts: s-1 is another value
      expect(shown({ organic: ['true'] })).toEqual(of(0));
      expect(shown({ organic: ['false'] })).toEqual(of(1));
      expect(shown({ ratio: ['2.5'] })).toEqual(of(2));
      expect(shown({ year: [''] })).toEqual([]);
      expect(shown({ missing: ['2024'] })).toEqual([]);
      expect(shown({ [REF_KEY]: [ids[0]!] })).toEqual([]);
      // The box and the limit (limit + 1: one more says it is cut) apply as without a filter.
      expect(shown({ year: ['2024'] }, [10, 10, 11, 11])).toEqual([]);
      expect(m.read.viewportJson(WORLD, 1, ACC, { year: ['2024', '2025'] })).toHaveLength(2);
      // No filter, or an empty one, is the unfiltered answer.
      expect(shown({})).toEqual(of(0, 1, 2, 3, 4));
      expect(m.read.viewportJson(WORLD, 100, ACC, {})).toEqual(m.read.viewportJson(WORLD, 100, ACC));
    } finally {
      m.close();
    }
  });
});
