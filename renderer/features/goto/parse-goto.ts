// What the Go to coordinate field reads (GoToCoordinate.tsx), as pure functions: decimal degrees, longitude first
// (lon-lat.ts, whose swap suggestion the field offers), degrees, minutes and seconds with hemisphere letters
// (coordinates/dms.ts), UTM on WGS84 by zone and latitude band ("30S 234567 4145678"), and an EPSG code's x and y
// ("EPSG:25830 234567 4145678"; the host answers its definition). A pair of numbers too large to be degrees is read
// in the EPSG code used last, when there is one: the form says so.
import { parseLonLat, type LonLat } from '../coordinates/lon-lat.ts';
import { looksLikeDms, parseDms } from '../coordinates/dms.ts';
import { bandLatitudes, utmToLonLat } from '../../../core/geo/utm.ts';

export type GoTo =
  | { kind: 'lonlat'; pos: LonLat }
  | { kind: 'dms'; pos: LonLat }
  | { kind: 'utm'; zone: number; band: string; pos: LonLat }
  /** Still to be placed: the page asks the host for the code's definition. */
  | { kind: 'epsg'; code: number; x: number; y: number; remembered: boolean };

const NUM = String.raw`[+-]?\d+(?:\.\d+)?`;
const PAIR = String.raw`(${NUM})\s*[,;\s]\s*(${NUM})`;
const EPSG = new RegExp(String.raw`^EPSG\s*:?\s*(\d{1,5})\s*[,;\s]\s*${PAIR}$`, 'i');
const UTM = new RegExp(String.raw`^(?:UTM\s*)?(\d{1,2})\s*([A-Za-z])\s*[,;\s]\s*(\d+(?:\.\d+)?)\s*(?:m?E)?\s*[,;\s]\s*(\d+(?:\.\d+)?)\s*(?:m?N)?$`);

/** UTM's eastings lie within about 166 km–834 km at the equator; wider near the poles: anything outside 0–1000 km is a typo. */
function utm(zoneText: string, bandText: string, e: number, n: number): GoTo | { error: string } {
  const zone = Number(zoneText);
  const band = bandText.toUpperCase();
  if (zone < 1 || zone > 60) return { error: `UTM zone ${zone} does not exist: zones are 1 to 60.` };
  const lats = bandLatitudes(band);
  if (!lats) return { error: `${band} is not a latitude band: bands are C to X (without I and O); N to X are north of the equator, C to M south.` };
  if (!(e > 0 && e < 1_000_000)) return { error: `Easting ${e} m is outside UTM's 0–1,000,000 m: the easting comes first, then the northing.` };
  if (!(n >= 0 && n <= 10_000_000)) return { error: `Northing ${n} m is outside UTM's 0–10,000,000 m.` };
  const north = lats[0] >= 0;
  const pos = utmToLonLat(zone, north, e, n);
  if (!pos) return { error: `${zone}${band} ${e} ${n} is not a place UTM can reach.` };
  // A band checks the northing: "30S" meant as "south" for a place north of the equator would land 8,000 km away.
  // Half a degree of slack: a position on a band's edge is often written in the next one.
  if (pos[1] < lats[0] - 0.5 || pos[1] > lats[1] + 0.5) {
    const hint = band === 'S' ? ' (S is the band of 32°–40°N; for the southern hemisphere give the band, C to M)' : '';
    return { error: `Northing ${n} m in zone ${zone} lies at ${pos[1].toFixed(2)}°, outside band ${band} (${lats[0]}° to ${lats[1]}°)${hint}.` };
  }
  return { kind: 'utm', zone, band, pos };
}

/** The text typed, read; `lastEpsg`: the EPSG code of the last projected position gone to, for a bare pair of metres. */
export function parseGoTo(text: string, lastEpsg: number | null = null): GoTo | { error: string } {
  const t = text.trim().replace(/\s+/g, ' ');
  if (!t) return { error: `Type a place: -5.98, 37.38 (longitude, latitude), 37°22'48"N 5°58'48"W, 30S 234567 4145678 (UTM) or EPSG:25830 234567 4145678.` };
  const epsg = EPSG.exec(t);
  if (epsg) {
    const code = Number(epsg[1]);
    if (code < 1 || code > 32767) return { error: `EPSG:${code} is not an EPSG code (1 to 32767).` };
    return { kind: 'epsg', code, x: Number(epsg[2]), y: Number(epsg[3]), remembered: false };
  }
  if (/^EPSG/i.test(t)) return { error: 'Type the EPSG code, then x (easting) and y (northing): EPSG:25830 234567 4145678.' };
  const u = UTM.exec(t);
  if (u) return utm(u[1]!, u[2]!, Number(u[3]), Number(u[4]));
  if (looksLikeDms(t)) {
    const r = parseDms(t);
    return 'pos' in r ? { kind: 'dms', pos: r.pos } : r;
  }
  const r = parseLonLat(t);
  if ('pos' in r) return { kind: 'lonlat', pos: r.pos };
  // Metres, not degrees: in the CRS used last, else the user is told how to name one.
  const pair = new RegExp(`^${PAIR}$`).exec(t);
  if (pair && (Math.abs(Number(pair[1])) > 360 || Math.abs(Number(pair[2])) > 360)) {
    if (lastEpsg !== null) return { kind: 'epsg', code: lastEpsg, x: Number(pair[1]), y: Number(pair[2]), remembered: true };
    return { error: `${t} is not longitude and latitude. For metres, name their coordinate system: EPSG:25830 ${pair[1]} ${pair[2]}, or UTM as 30S ${pair[1]} ${pair[2]}.` };
  }
  return r;
}
