// A position typed by a person: "longitude, latitude", as the map's cursor read-out shows it, for placing and moving
// vertices without a pointer. Longitude first, as in GeoJSON and the read-out: a swap is never guessed, but a typed
// pair whose first number cannot be a latitude while the second could be a longitude is named as a probable swap.

export type LonLat = [number, number];

/** One number as typed: a decimal point, or a decimal comma when the pair is not separated by a comma. */
const NUMBER = /^[+-]?(\d+([.,]\d*)?|[.,]\d+)$/;

function number(token: string, decimalComma: boolean): number {
  if (!NUMBER.test(token) || (!decimalComma && token.includes(','))) return NaN;
  return Number(token.replace(',', '.'));
}

/**
 * "-4.0123, 37.2045", "-4.0123 37.2045", "-4,0123; 37,2045" or "-4,0123 37,2045": a [lon, lat] in range, or why not.
 * Separators: a semicolon, else a comma (when there is exactly one), else spaces; with a semicolon or spaces the
 * numbers may have decimal commas.
 */
export function parseLonLat(text: string): { pos: LonLat } | { error: string } {
  const t = text.trim();
  if (!t) return { error: 'Type a longitude and a latitude, such as -4.0123, 37.2045.' };
  let parts: string[];
  let decimalComma = true;
  if (t.includes(';')) parts = t.split(/\s*;\s*/);
  else if ((t.match(/,/g) ?? []).length === 1) {
    parts = t.split(/\s*,\s*/);
    decimalComma = false;
  } else parts = t.split(/\s+/);
  if (parts.length !== 2) return { error: `"${t}" is not two numbers: type the longitude, a comma, then the latitude (-4.0123, 37.2045).` };
  const [lon, lat] = parts.map((p) => number(p, decimalComma)) as [number, number];
  if (Number.isNaN(lon) || Number.isNaN(lat)) return { error: `"${t}" is not two numbers: type the longitude, a comma, then the latitude (-4.0123, 37.2045).` };
  if (Math.abs(lat) > 90) {
    const swap = Math.abs(lon) <= 90 && Math.abs(lat) <= 180 ? ' Longitude comes first: were they swapped?' : '';
    return { error: `Latitude ${lat} is outside −90…90.${swap}` };
  }
  if (Math.abs(lon) > 180) return { error: `Longitude ${lon} is outside −180…180.` };
  return { pos: [lon, lat] };
}

type Box = readonly [number, number, number, number];

/** Degrees around a place within which a position counts as near it: the place's own size, and at least about 50 km. */
const NEAR_MIN_DEGREES = 0.5;

function near([lon, lat]: LonLat, box: Box): boolean {
  const pad = Math.max(box[2] - box[0], box[3] - box[1], NEAR_MIN_DEGREES);
  return lon >= box[0] - pad && lon <= box[2] + pad && lat >= box[1] - pad && lat <= box[3] + pad;
}

/**
 * The position with its two numbers swapped, when it was most likely typed as latitude, longitude: the position as
 * typed is far from every place the user works at (the farm's box, the map's view), and swapped it is near one of
 * them (37.88, -4.79 typed for a farm at -4.79, 37.88 in Spain lands in Kenya). Null otherwise: without a place to go
 * by, or when the typed position is near one, the typed order stands.
 */
export function swapSuggestion(pos: LonLat, places: readonly Box[]): LonLat | null {
  const swapped: LonLat = [pos[1], pos[0]];
  if (Math.abs(swapped[1]) > 90 || places.length === 0 || places.some((b) => near(pos, b))) return null;
  return places.some((b) => near(swapped, b)) ? swapped : null;
}

/** A [lon, lat] as the field shows it: the map read-out's six decimals (about 10 cm), without trailing zeros. */
export const formatLonLat = ([lon, lat]: LonLat): string => `${+lon.toFixed(6)}, ${+lat.toFixed(6)}`;
