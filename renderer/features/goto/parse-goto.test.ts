import { describe, expect, it } from 'vitest';
import { parseGoTo } from './parse-goto.ts';

const err = (t: string, last: number | null = null) => { const r = parseGoTo(t, last); return 'error' in r ? r.error : r; };

describe('parseGoTo', () => {
  it('reads decimal degrees longitude first, as the vertex fields do (their swap suggestion is the form\'s)', () => {
    expect(parseGoTo('-5.98, 37.38')).toEqual({ kind: 'lonlat', pos: [-5.98, 37.38] });
    // Typed latitude first: read as typed here; the form asks whether to swap (lon-lat.ts swapSuggestion).
    expect(parseGoTo('37.38, -5.98')).toEqual({ kind: 'lonlat', pos: [37.38, -5.98] });
    expect(err('37.38, 200')).toMatch(/Latitude 200 is outside/);
  });

  it('reads degrees, minutes and seconds', () => {
    const r = parseGoTo(`37°22'48"N 5°58'48"W`);
    expect(r).toMatchObject({ kind: 'dms' });
    expect((r as { pos: number[] }).pos[1]).toBeCloseTo(37.38, 12);
    expect(parseGoTo('37 22 48 N, 5 58 48 W')).toMatchObject({ kind: 'dms' });
    expect(err(`37°22'48"N 5°58'48"N`)).toMatch(/Two latitudes/);
  });

  it('reads UTM by zone and latitude band, checking the northing against the band', () => {
    const r = parseGoTo('30S 234567 4145678');
    expect(r).toMatchObject({ kind: 'utm', zone: 30, band: 'S' });
    const [lon, lat] = (r as { pos: number[] }).pos;
    expect(lon).toBeCloseTo(-5.98, 1);
    expect(lat).toBeCloseTo(37.4, 1);
    for (const t of ['30s 234567 4145678', '30 S 234567, 4145678', 'UTM 30S 234567mE 4145678mN', '30S 234567.25 4145678.5']) expect(parseGoTo(t), t).toMatchObject({ kind: 'utm', zone: 30 });
    // South of the equator: a band C to M.
    const chile = parseGoTo('19H 350000 6300000');
    expect((chile as { pos: number[] }).pos[1]).toBeCloseTo(-33.4, 1);
  });

  it('refuses UTM that cannot be, saying why', () => {
    expect(err('61S 234567 4145678')).toMatch(/UTM zone 61 does not exist/);
    expect(err('30I 234567 4145678')).toMatch(/I is not a latitude band/);
    expect(err('30S 4145678 234567')).toMatch(/Easting 4145678 m is outside UTM's/);
    expect(err('30S 234567 12000000')).toMatch(/Northing 12000000 m is outside/);
    // "S" meant as south, for a place in Chile: the band (32°–40°N) does not hold it.
    expect(err('19S 350000 6300000')).toMatch(/lies at 56.\d+°, outside band S \(32° to 40°\) \(S is the band of 32°–40°N/);
  });

  it('reads an EPSG code and its x and y, to be placed with the host\'s definition', () => {
    expect(parseGoTo('EPSG:25830 234567 4145678')).toEqual({ kind: 'epsg', code: 25830, x: 234567, y: 4145678, remembered: false });
    expect(parseGoTo('epsg 25830, 234567.5, 4145678')).toEqual({ kind: 'epsg', code: 25830, x: 234567.5, y: 4145678, remembered: false });
    expect(parseGoTo('EPSG:2154 652000 6862000')).toMatchObject({ code: 2154 });
    expect(err('EPSG:99999 1 2')).toMatch(/EPSG:99999 is not an EPSG code/);
    expect(err('EPSG:25830')).toMatch(/Type the EPSG code, then x \(easting\) and y \(northing\)/);
  });

  it('reads a bare pair of metres in the EPSG code used last, and without one says how to name it', () => {
    expect(parseGoTo('234567 4145678', 25830)).toEqual({ kind: 'epsg', code: 25830, x: 234567, y: 4145678, remembered: true });
    expect(err('234567 4145678')).toMatch(/is not longitude and latitude. For metres, name their coordinate system: EPSG:25830 234567 4145678/);
    // Degrees stay degrees, whatever was used last.
    expect(parseGoTo('-5.98 37.38', 25830)).toMatchObject({ kind: 'lonlat' });
  });

  it('says what it reads when given nothing or nonsense', () => {
    expect(err('')).toMatch(/Type a place/);
    expect(err('Seville')).toMatch(/not part of a position|not two numbers/);
  });
});
