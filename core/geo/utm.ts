// UTM on WGS84 (EPSG:32601–32660, 32701–32760) as people write a position in it: a zone, a latitude band letter and
// the easting and northing in metres ("30S 234567 4145678"). The band is MGRS's (C–X without I and O, 8° each from
// 80°S, X 12°): it says the hemisphere, and checks the northing. Projected with proj4's transverse Mercator
// (Poder/Engsager, as PROJ's; within a millimetre of cs2cs, utm.test.ts checks).
import proj4 from 'proj4';

export const BANDS = 'CDEFGHJKLMNPQRSTUVWX';

/** The latitude band letter of `lat` (−80…84), or null outside UTM's latitudes. */
export function latitudeBand(lat: number): string | null {
  if (!(lat >= -80 && lat <= 84)) return null;
  return BANDS[Math.min(19, Math.floor((lat + 80) / 8))]!;
}

/** South and north edges of a band, in degrees (X reaches 84°N). */
export function bandLatitudes(band: string): [number, number] | null {
  const i = BANDS.indexOf(band.toUpperCase());
  if (i < 0) return null;
  return [-80 + 8 * i, i === 19 ? 84 : -72 + 8 * i];
}

export const utmProj4 = (zone: number, north: boolean): string => `+proj=utm +zone=${zone}${north ? '' : ' +south'} +datum=WGS84 +units=m +no_defs`;

/** The EPSG code of WGS84's UTM zone: 326zz north, 327zz south. */
export const utmEpsg = (zone: number, north: boolean): number => (north ? 32600 : 32700) + zone;

/** [lon, lat] of an easting and northing in a zone (1–60) of a hemisphere; null when proj4 has none. */
export function utmToLonLat(zone: number, north: boolean, easting: number, northing: number): [number, number] | null {
  const out = proj4(utmProj4(zone, north), 'WGS84').forward([easting, northing]);
  return Number.isFinite(out[0]) && Number.isFinite(out[1]) ? [out[0]!, out[1]!] : null;
}
