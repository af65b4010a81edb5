import { describe, expect, it } from 'vitest';
import { geometryColumns, parcelColumnsOf } from './columns.ts';
import { validateParcel } from './validate.ts';

const ring = [[-5.9, 37.4], [-5.89, 37.4], [-5.89, 37.41], [-5.9, 37.41], [-5.9, 37.4]];

describe('parcel columns', () => {
  it('store a validated polygon as JSON text with its bbox as four numbers', () => {
    const { parcel } = validateParcel({ name: 'A', metadata: { crop: 'olive' }, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [ring] } } }, 0, { maxHectares: 1000 });
    const cols = parcelColumnsOf(parcel!);
    expect(cols).toEqual({
      name: 'A', metadata: '{"crop":"olive"}', source_type: 'Polygon', point: null, geometry: JSON.stringify(parcel!.geometry),
      hectares: parcel!.hectares, minx: -5.9, miny: 37.4, maxx: -5.89, maxy: 37.41,
    });
  });

  it('keep a point parcel\'s point, and compute the bbox of a geometry that comes without one', () => {
    const { parcel } = validateParcel({ name: 'P', geom: { type: 'Feature', properties: { metadata: { hectares: 2 } }, geometry: { type: 'Point', coordinates: [-5.9, 37.4] } } }, 0, { maxHectares: 1000 });
    const withBox = geometryColumns(parcel!);
    expect(withBox).toMatchObject({ source_type: 'Point', point: '[-5.9,37.4]', hectares: 2 });
    const { bbox: _bbox, ...without } = parcel!;
    expect(geometryColumns(without)).toEqual(withBox);
  });
});
