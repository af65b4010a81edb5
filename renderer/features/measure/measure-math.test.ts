import { describe, expect, it } from 'vitest';
import geodesic from 'geographiclib-geodesic';
import { polygonHectares } from '../../../core/geo/area.ts';
import { formatArea, formatLength, measure, measurementText } from './measure-math.ts';

// A parcel's outline, as the demo's are: an irregular field near Seville.
const FIELD: [number, number][] = [[-5.98, 37.38], [-5.9712, 37.3805], [-5.9708, 37.3861], [-5.9769, 37.3874], [-5.9811, 37.3842]];

describe('measure', () => {
  it("gives a polygon the parcels' own hectares, bit for bit, and GeographicLib's PolygonArea", () => {
    const m = measure('area', FIELD);
    expect(m.areaM2 / 10_000).toBe(polygonHectares([[...FIELD, FIELD[0]!]]));
    const poly = geodesic.Geodesic.WGS84.Polygon(false);
    for (const [lon, lat] of FIELD) poly.AddPoint(lat, lon);
    const theirs = poly.Compute(false, true);
    expect(m.areaM2).toBe(Math.abs(theirs.area ?? NaN));
    expect(m.lengthM).toBeCloseTo(theirs.perimeter ?? NaN, 6);
    expect(m.vertices).toBe(5);
    expect(m.segments).toHaveLength(5); // the closing edge too
  });

  it('gives a line its geodesic length and each segment, with no area', () => {
    const m = measure('line', FIELD.slice(0, 3));
    expect(m.segments).toHaveLength(2);
    expect(m.lengthM).toBe(m.segments[0]! + m.segments[1]!);
    expect(m.areaM2).toBe(0);
    expect(measure('line', [[0, 0]])).toMatchObject({ lengthM: 0, segments: [] });
    expect(measure('area', [[0, 0], [0.001, 0]])).toMatchObject({ areaM2: 0 });
  });

  it('formats in metric or US units', () => {
    expect(formatLength(123.456, 'metric')).toBe('123.46 m');
    expect(formatLength(12345.6, 'metric')).toBe('12.346 km');
    expect(formatLength(100, 'us')).toBe('328.1 ft');
    expect(formatLength(1609.344 * 2.5, 'us')).toBe('2.500 mi');
    expect(formatArea(23456.4, 'metric')).toBe('2.3456 ha (23,456 m²)');
    expect(formatArea(4046.8564224, 'us')).toBe('1.0000 ac (43,560 ft²)');
  });

  it('writes the clipboard text the panel shows', () => {
    expect(measurementText(measure('line', [[0, 0], [0, 0.001], [0.001, 0.001]]), 'metric')).toMatch(/^Length 221\.\d\d m \(segments: 110\.57 m, 111\.\d\d m\), geodesic on WGS84$/);
    expect(measurementText(measure('area', FIELD), 'metric')).toMatch(/^Area \d+\.\d{4} ha \([\d,]+ m²\), perimeter [\d.,]+ (m|km), geodesic on WGS84$/);
  });
});
