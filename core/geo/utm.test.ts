// UTM's bands and codes; its projection against PROJ's cs2cs is test/coordinates-cs2cs.test.ts (core runs no programs).
import { describe, expect, it } from 'vitest';
import { bandLatitudes, latitudeBand, utmEpsg, utmToLonLat } from './utm.ts';

describe('latitude bands', () => {
  it('are 8° each from 80°S, X being 12°, without I and O', () => {
    expect(latitudeBand(37.38)).toBe('S');
    expect(latitudeBand(0)).toBe('N');
    expect(latitudeBand(-0.1)).toBe('M');
    expect(latitudeBand(-80)).toBe('C');
    expect(latitudeBand(83.9)).toBe('X');
    expect(latitudeBand(84)).toBe('X');
    expect(latitudeBand(85)).toBeNull();
    expect(latitudeBand(-81)).toBeNull();
    expect(bandLatitudes('s')).toEqual([32, 40]);
    expect(bandLatitudes('X')).toEqual([72, 84]);
    expect(bandLatitudes('I')).toBeNull();
  });

  it('name the EPSG codes of the zones', () => {
    expect(utmEpsg(30, true)).toBe(32630);
    expect(utmEpsg(19, false)).toBe(32719);
  });
});

describe('UTM to longitude and latitude', () => {
  it("places the issue's example near Seville, and the central meridian's false easting on it", () => {
    const [lon, lat] = utmToLonLat(30, true, 234567, 4145678)!;
    expect(lon).toBeCloseTo(-5.98, 1);
    expect(lat).toBeCloseTo(37.4, 1);
    expect(utmToLonLat(30, true, 500000, 0)![0]).toBeCloseTo(-3, 12);
    expect(utmToLonLat(19, false, 500000, 10_000_000)![0]).toBeCloseTo(-69, 9);
  });
});
