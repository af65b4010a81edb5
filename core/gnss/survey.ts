// The survey record of a parcel (issue 31): each vertex made from a position keeps its fix quality, satellites, HDOP,
// accuracy and time, so an office can judge the survey later. It lives in the parcel's metadata, which holds strings
// of at most 2,000 characters under at most 200 keys, and syncs with the parcel like any other metadata:
//
//   "furrow:survey"    "1;2026-11-29T08:00:00Z;<vertex>;<vertex>;…"
//   "furrow:survey:2"  "<vertex>;<vertex>;…"          (continued under :3, :4… while it does not fit in one)
//   <vertex> = lon,lat,quality,satellites,hdop,accuracy,seconds
//
// lon and lat in degrees to 7 decimals (about a centimetre: which vertex of the shape it is); quality one letter
// (QUALITY_CODE below); satellites, HDOP and accuracy (metres, one sigma) empty when the receiver did not say; seconds
// after the time in the header (the first vertex's), to a tenth. A vertex typed or drawn has no record. Documented in
// docs/field-work.md.
import type { FixQuality } from '../api-position.ts';
import { MAX_METADATA_KEYS, MAX_METADATA_STRING_LENGTH } from '../parcels/limits.ts';

export const SURVEY_KEY = 'furrow:survey';
const VERSION = '1';

export interface SurveyVertex {
  lon: number; lat: number;
  quality: FixQuality;
  satellites: number | null; hdop: number | null;
  /** Metres, one sigma; for an averaged vertex, the spread of the fixes averaged when it is larger. */
  accuracy: number | null;
  /** When the fix was taken (ISO 8601, UTC). */
  time: string;
}

export const QUALITY_CODE: Readonly<Record<FixQuality, string>> = {
  none: 'n', gps: 'g', dgps: 'd', pps: 'p', 'rtk-fixed': 'R', 'rtk-float': 'F', estimated: 'e', manual: 'm', simulation: 's', system: 'y',
};
const QUALITY_OF = new Map(Object.entries(QUALITY_CODE).map(([q, c]) => [c, q as FixQuality]));

/** A key of the survey record: the first, or a continuation. */
export const isSurveyKey = (key: string): boolean => key === SURVEY_KEY || /^furrow:survey:\d+$/.test(key);
const keyAt = (i: number) => (i === 0 ? SURVEY_KEY : `${SURVEY_KEY}:${i + 1}`);

const num = (x: number | null, digits: number) => (x === null ? '' : String(Number(x.toFixed(digits))));
/** The vertex's place as the record writes it: which vertex of the shape a record is for. */
export const vertexKey = (lon: number, lat: number): string => `${num(lon, 7)},${num(lat, 7)}`;

function wholeSecondsIso(ms: number): string { return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z'); }

/**
 * The record's metadata entries for these vertices; `freeKeys`: how many keys the parcel's metadata has left. An
 * error (a sentence) when it does not fit (at 2,000 characters a key, about 45 vertices a key).
 */
export function encodeSurvey(vertices: readonly SurveyVertex[], freeKeys = MAX_METADATA_KEYS): Record<string, string> | { error: string } {
  if (!vertices.length) return {};
  const base = Math.floor(Math.min(...vertices.map((v) => Date.parse(v.time))) / 1000) * 1000;
  const entries = vertices.map((v) => [vertexKey(v.lon, v.lat), QUALITY_CODE[v.quality], v.satellites ?? '', num(v.hdop, 2), num(v.accuracy, 3),
    num((Date.parse(v.time) - base) / 1000, 1)].join(','));
  const values: string[] = [];
  let cur = `${VERSION};${wholeSecondsIso(base)}`;
  for (const e of entries) {
    if (cur.length + 1 + e.length > MAX_METADATA_STRING_LENGTH) { values.push(cur); cur = e; }
    else cur = cur === '' ? e : `${cur};${e}`;
  }
  values.push(cur);
  if (values.length > freeKeys) return { error: `The survey record of ${vertices.length} vertices needs ${values.length} metadata keys; the parcel has ${freeKeys} left.` };
  return Object.fromEntries(values.map((v, i) => [keyAt(i), v]));
}

/** The record kept in a parcel's metadata, or [] when it has none (or one this version cannot read). */
export function decodeSurvey(metadata: Readonly<Record<string, unknown>>): SurveyVertex[] {
  const parts: string[] = [];
  for (let i = 0; typeof metadata[keyAt(i)] === 'string'; i++) parts.push(metadata[keyAt(i)] as string);
  if (!parts.length) return [];
  const [version, baseIso, ...first] = parts[0]!.split(';');
  const base = Date.parse(baseIso ?? '');
  if (version !== VERSION || Number.isNaN(base)) return [];
  const entries = [...first, ...parts.slice(1).flatMap((p) => p.split(';'))].filter((e) => e !== '');
  const out: SurveyVertex[] = [];
  const opt = (s: string | undefined) => (s === undefined || s === '' ? null : Number(s));
  for (const e of entries) {
    const [lon, lat, q, sats, hdop, acc, dt] = e.split(',');
    const quality = QUALITY_OF.get(q ?? '');
    if (!quality || lon === undefined || lat === undefined) continue;
    out.push({ lon: Number(lon), lat: Number(lat), quality, satellites: opt(sats), hdop: opt(hdop), accuracy: opt(acc),
      time: new Date(base + Math.round(Number(dt ?? 0) * 1000)).toISOString() });
  }
  return out;
}

/**
 * The parcel's metadata with its survey record replaced by one for the vertices of `rings` that have one (in `records`,
 * matched by vertexKey: a vertex moved or removed since loses its record; a vertex typed never had one).
 */
export function withSurvey<V>(metadata: Readonly<Record<string, V>>, records: readonly SurveyVertex[], rings: readonly (readonly (readonly [number, number])[])[]):
  Record<string, V | string> | { error: string } {
  const rest = Object.fromEntries(Object.entries(metadata).filter(([k]) => !isSurveyKey(k)));
  const byPlace = new Map(records.map((r) => [vertexKey(r.lon, r.lat), r]));
  const seen = new Set<string>();
  const kept: SurveyVertex[] = [];
  for (const ring of rings) for (const [lon, lat] of ring) {
    const k = vertexKey(lon, lat);
    const r = byPlace.get(k);
    if (r && !seen.has(k)) { seen.add(k); kept.push(r); }
  }
  const survey = encodeSurvey(kept, MAX_METADATA_KEYS - Object.keys(rest).length);
  if (typeof survey.error === 'string' && !(SURVEY_KEY in survey)) return { error: survey.error };
  return { ...rest, ...survey };
}
