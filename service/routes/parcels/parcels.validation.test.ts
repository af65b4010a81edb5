// POST /api/parcels/: every validation rule rejects the whole batch with a 400 and its stable code (spec: "Parcels", "Errors").
import { describe, expect, it } from 'vitest';
import { polygonParcel, square } from '../../../test/helpers/service.ts';
import { codesAt, create, farmOf, h, rejected, useParcelService } from './parcels.test-helpers.ts';

useParcelService();

describe('POST /api/parcels/ — every validation rule is a 400 with its stable code', () => {
  const base = () => polygonParcel('Rule', -4.78, 37.88, 100);
  const withCoords = (coordinates: unknown) => ({ name: 'Rule', geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates } } });
  const ring = square(-4.78, 37.88, 100)[0]!;
  const [sw, se, ne, nw] = [ring[0]!, ring[1]!, ring[2]!, ring[3]!];
  const cases: Array<[string, () => unknown, string]> = [
    ['name missing', () => { const { name: _n, ...rest } = base(); return rest; }, 'name_missing'],
    ['name empty', () => ({ ...base(), name: '' }), 'name_missing'],
    ['name only spaces', () => ({ ...base(), name: '   ' }), 'name_missing'],
    ['name not a string', () => ({ ...base(), name: 12 }), 'name_missing'],
    ['name too long', () => ({ ...base(), name: 'n'.repeat(256) }), 'name_too_long'],
    ['geom missing', () => ({ name: 'Rule' }), 'geom_not_feature'],
    ['geom a string', () => ({ name: 'Rule', geom: 'POLYGON((0 0, 1 0, 1 1, 0 0))' }), 'geom_not_feature'],
    ['geom a bare geometry', () => ({ name: 'Rule', geom: { type: 'Polygon', coordinates: [ring] } }), 'geom_not_feature'],
    ['geom a FeatureCollection', () => ({ name: 'Rule', geom: { type: 'FeatureCollection', features: [] } }), 'geom_not_feature'],
    ['geom.geometry missing', () => ({ name: 'Rule', geom: { type: 'Feature', properties: {} } }), 'geom_not_feature'],
    ['geometry MultiPolygon', () => ({ name: 'Rule', geom: { type: 'Feature', properties: {}, geometry: { type: 'MultiPolygon', coordinates: [[ring]] } } }), 'geometry_type'],
    ['geometry LineString', () => ({ name: 'Rule', geom: { type: 'Feature', properties: {}, geometry: { type: 'LineString', coordinates: ring } } }), 'geometry_type'],
    ['ring not closed', () => withCoords([[sw, se, ne, nw]]), 'ring_not_closed'],
    ['ring of 3 positions', () => withCoords([[sw, se, sw]]), 'ring_too_short'],
    ['no rings', () => withCoords([]), 'ring_too_short'],
    ['position with 1 number', () => withCoords([[sw, [se[0]!], ne, nw, sw]]), 'position_invalid'],
    ['position with 4 numbers', () => withCoords([[sw, [se[0]!, se[1]!, 0, 0], ne, nw, sw]]), 'position_invalid'],
    ['position with a string', () => withCoords([[sw, [String(se[0]), se[1]!], ne, nw, sw]]), 'position_invalid'],
    ['position with null', () => withCoords([[sw, [se[0]!, null], ne, nw, sw]]), 'position_invalid'],
    ['longitude 181', () => withCoords([[[181, 37.88], [181.001, 37.88], [181.001, 37.881], [181, 37.88]]]), 'longitude_out_of_range'],
    ['latitude -91', () => withCoords([[[-4.78, -91], [-4.77, -91], [-4.77, -90.99], [-4.78, -91]]]), 'latitude_out_of_range'],
    ['bow-tie self-intersection', () => withCoords([[sw, ne, se, nw, sw]]), 'self_intersection'],
    ['zero-area polygon', () => withCoords([[sw, se, sw, se, sw].map((p) => [...p])]), 'self_intersection|area_not_positive'],
    ['metadata value null', () => ({ ...base(), metadata: { region: null } }), 'metadata_invalid'],
    ['metadata value object', () => ({ ...base(), metadata: { region: { a: 1 } } }), 'metadata_invalid'],
    ['metadata value array', () => ({ ...base(), metadata: { region: ['a'] } }), 'metadata_invalid'],
    ['metadata an array', () => ({ ...base(), metadata: ['a'] }), 'metadata_invalid'],
    ['metadata a string', () => ({ ...base(), metadata: 'region=north' }), 'metadata_invalid'],
    ['unknown parcel field', () => ({ ...base(), area: 3 }), 'unknown_field'],
    ['parcel not an object', () => 'parcel', 'not_object'],
  ];
  for (const [label, make, code] of cases) {
    it(`${label} → 400 ${code}`, async () => {
      const farm = await farmOf();
      const b = await rejected(h, { farm: { id: farm }, parcels: [polygonParcel('Valid neighbour', -4.7, 37.9), make()] });
      expect(b.code).toBe('invalid_parcels');
      expect(b.detail).toBe(b.message);
      const codes = codesAt(b, 1);
      expect(codes.some((c) => new RegExp(`^(${code})$`).test(c)), `${JSON.stringify(b.errors)}`).toBe(true);
      for (const e of b.errors!) {
        expect(e.index).toBe(1);
        expect(e.path === 'parcels/1' || e.path.startsWith('parcels/1/')).toBe(true);
        expect(typeof e.message).toBe('string');
      }
    });
  }

  it('accepts 3-number positions, string/number/boolean metadata values and keys with spaces', async () => {
    const farm = await farmOf();
    const ring3 = square(-4.78, 37.88, 100)[0]!.map(([x, y]) => [x!, y!, 12.5]);
    const [f] = await create(h, farm, [{
      name: '  Trimmed  ', metadata: { 'Supplier ID': 'S-1', contract_year: 2024, certified: true },
      geom: { type: 'Feature', properties: null, geometry: { type: 'Polygon', coordinates: [ring3] } },
    }]);
    expect(f!.properties.name).toBe('Trimmed');
    expect(f!.properties.metadata).toEqual({ 'Supplier ID': 'S-1', contract_year: 2024, certified: true });
  });

  it('rejects an unknown top-level field of the request', async () => {
    const farm = await farmOf();
    const b = await rejected(h, { farm: { id: farm }, parcels: [polygonParcel('x')], dry_run: true });
    expect(b.errors?.[0]?.code).toBe('unknown_field');
  });
});
