import { describe, expect, it } from 'vitest';
import type { ParcelFeature } from '../../../core/api.ts';
import { startParcels } from './start-view.ts';

const parcel = (id: string, farm: string) => ({ type: 'Feature', id, geometry: { type: 'Polygon', coordinates: [] }, properties: { farm } }) as unknown as ParcelFeature;
const sample = [parcel('a', 'f1'), parcel('b', 'f2'), parcel('c', 'f2'), parcel('d', 'f3')];
const ids = (fs: ParcelFeature[]) => fs.map((f) => f.id);

describe('startParcels', () => {
  it("fits the farm's parcels when the sample holds some", () => {
    expect(ids(startParcels(sample, 'f1', false))).toEqual(['a']);
  });
  it('falls back to the farm the sample holds most of at start', () => {
    expect(ids(startParcels(sample, 'f9', false))).toEqual(['b', 'c']);
  });
  it('fits nothing when a farm the list asked for is not in the sample', () => {
    expect(startParcels(sample, 'f9', true)).toEqual([]);
  });
  it('fits the whole sample when the account has no farm', () => {
    expect(ids(startParcels(sample, null, false))).toEqual(['a', 'b', 'c', 'd']);
    expect(startParcels([], 'f1', false)).toEqual([]);
  });
});
