import { describe, it, expect } from 'vitest';
import type { Position } from '../geo/types.ts';
import { validateParcelPatch } from './validate.ts';

const opts = { maxHectares: 100 };
const ring: Position[] = [[5, 52], [5.005, 52], [5.005, 52.005], [5, 52.005], [5, 52]];
const geom = { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [ring] } };
const summary = (input: unknown, id = 17) => validateParcelPatch(input, id, opts).problems.map((p) => [p.code, p.path]);

describe('validateParcelPatch', () => {
  it('accepts the spec\'s shape: id and metadata', () => {
    const { patch, problems } = validateParcelPatch({ id: 17, metadata: { 'Supplier ID': 'S-1' } }, 17, opts);
    expect(problems).toEqual([]);
    expect(patch).toEqual({ metadata: { 'Supplier ID': 'S-1' } });
  });

  it('returns only the fields sent, name trimmed and geom measured', () => {
    const { patch } = validateParcelPatch({ name: ' East ', geom }, 17, opts);
    expect(Object.keys(patch!).sort()).toEqual(['geom', 'name']);
    expect(patch!.name).toBe('East');
    expect(patch!.geom!.sourceType).toBe('Polygon');
    expect(patch!.geom!.hectares).toBeGreaterThan(18);
  });

  it('accepts a point geom and returns its square', () => {
    const point = { type: 'Feature', properties: { metadata: { hectares: 3 } }, geometry: { type: 'Point', coordinates: [5, 52] } };
    const { patch, problems } = validateParcelPatch({ geom: point }, 17, opts);
    expect(problems).toEqual([]);
    expect(patch!.geom!.hectares).toBe(3);
    expect(patch!.geom!.point).toEqual([5, 52]);
  });

  it.each([null, [], 'metadata', 5])('reports not_object for %j', (input) => {
    const { patch, problems } = validateParcelPatch(input, 17, opts);
    expect(patch).toBeNull();
    expect(problems).toEqual([expect.objectContaining({ index: 0, path: '', code: 'not_object' })]);
  });

  it('reports unknown_field, e.g. for a read-only key', () => {
    expect(summary({ metadata: {}, key: 'uuid', farm: 2 })).toEqual([['unknown_field', 'key'], ['unknown_field', 'farm']]);
  });

  it.each([18, '17', 17.5, null])('reports id_mismatch for an id of %j in the body', (id) => {
    const { problems } = validateParcelPatch({ id, metadata: {} }, 17, opts);
    expect(problems.map((p) => [p.code, p.path])).toEqual([['id_mismatch', 'id']]);
    expect(problems[0]!.message).toContain('17');
  });

  it('reports empty_patch when nothing would change', () => {
    expect(summary({})).toEqual([['empty_patch', '']]);
    expect(summary({ id: 17 })).toEqual([['empty_patch', '']]);
  });

  it('validates each present field, with paths relative to the body and index 0', () => {
    const { patch, problems } = validateParcelPatch(
      { name: '  ', metadata: { ok: 1, bad: {} }, geom: { ...geom, geometry: { type: 'MultiPolygon', coordinates: [] } } }, 17, opts);
    expect(patch).toBeNull();
    expect(problems.map((p) => [p.index, p.code, p.path])).toEqual([
      [0, 'name_missing', 'name'],
      [0, 'metadata_invalid', 'metadata/bad'],
      [0, 'geometry_type', 'geom/geometry/type'],
    ]);
  });

  it('names the parcel by its id in messages', () => {
    expect(validateParcelPatch({ name: '' }, 17, opts).problems[0]!.message).toMatch(/^Parcel id 17: /);
  });

  it('rejects null for fields that cannot be cleared, validating metadata as a whole', () => {
    expect(summary({ name: null })).toEqual([['name_missing', 'name']]);
    expect(summary({ metadata: null })).toEqual([['metadata_invalid', 'metadata']]);
    expect(summary({ geom: null })).toEqual([['geom_not_feature', 'geom']]);
  });

  it('reports the area limit on a patched geometry', () => {
    const big: Position[] = [[5, 52], [5.02, 52], [5.02, 52.02], [5, 52.02], [5, 52]];
    expect(summary({ geom: { ...geom, geometry: { type: 'Polygon', coordinates: [big] } } })).toEqual([['area_over_limit', 'geom/geometry/coordinates']]);
  });

  it('reports every problem at once', () => {
    expect(summary({ id: 3, colour: 'red' })).toEqual([['unknown_field', 'colour'], ['id_mismatch', 'id'], ['empty_patch', '']]);
  });
});
