// Problem codes, the problem record and the helpers every parcel check reports through.

export type ParcelProblemCode =
  | 'not_object' | 'unknown_field' | 'name_missing' | 'name_too_long' | 'metadata_invalid'
  | 'geom_not_feature' | 'geometry_type' | 'ring_not_closed' | 'ring_too_short' | 'position_invalid'
  | 'longitude_out_of_range' | 'latitude_out_of_range' | 'self_intersection' | 'hole_outside'
  | 'area_not_positive' | 'too_many_positions' | 'hectares_missing' | 'area_over_limit'
  | 'id_mismatch' | 'empty_patch';

/**
 * `path` is JSON-pointer-like, relative to the request body and without the leading
 * slash, e.g. "parcels/3/geom/geometry/coordinates/0/2"; `index` is the parcel's
 * position in the request (0 for PATCH).
 */
export interface ParcelProblem {
  index: number;
  path: string;
  code: ParcelProblemCode;
  message: string;
}

/** Collects the problems of one parcel; `label` starts every message ("Parcel 3"). */
export interface Reporter {
  readonly index: number;
  readonly label: string;
  readonly problems: ParcelProblem[];
}

export function reporter(index: number, label = `Parcel ${index}`): Reporter {
  return { index, label, problems: [] };
}

/**
 * A batch problem's message without the parcel's place in its batch ("Parcel 3: area …" → "area …"), for a client
 * that keeps the reason with the parcel itself, where the place means nothing.
 */
export const withoutPlace = (message: string): string => message.replace(/^Parcel \d+: /, '');

export function report(r: Reporter, path: string, code: ParcelProblemCode, detail: string): ParcelProblem {
  const problem: ParcelProblem = { index: r.index, path, code, message: `${r.label}: ${detail}` };
  r.problems.push(problem);
  return problem;
}

/** Appends path segments; user-supplied keys are escaped as in RFC 6901 (~ → ~0, / → ~1). */
export function joinPath(base: string, segment: string | number): string {
  const s = typeof segment === 'number' ? String(segment)
    : segment.includes('~') || segment.includes('/') ? segment.replace(/~/g, '~0').replace(/\//g, '~1') : segment;
  return base === '' ? s : `${base}/${s}`;
}

/** JSON.parse yields objects with Object.prototype; anything else (arrays, class instances) is not a JSON object. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Short, quotable rendering of what the client sent, for messages; never the whole of a big value. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return value.length > 40 ? `${JSON.stringify(value.slice(0, 40))}…` : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    const small = value.length <= 4 && value.every((v) => v === null || ['number', 'string', 'boolean'].includes(typeof v));
    return small ? JSON.stringify(value) : `an array of ${value.length} items`;
  }
  return typeof value === 'object' ? 'an object' : typeof value;
}

/**
 * True when `s` has more than `max` characters counted as code points, as people
 * and databases count them, not UTF-16 units (an emoji is one character).
 */
export function longerThan(s: string, max: number): boolean {
  // Code points never outnumber UTF-16 units, so most strings need no walk.
  if (s.length <= max) return false;
  return charLength(s) > max;
}

export function charLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * Hectares for messages: two decimals, or more when two would round a value over
 * the limit down onto it ("100.00 ha exceeds 100 ha" would read as a contradiction).
 */
export function formatHectares(value: number, limit?: number): string {
  for (let digits = 2; digits < 8; digits++) {
    const s = value.toFixed(digits);
    if (limit === undefined || value <= limit || Number(s) > limit) return s;
  }
  return String(value);
}

/**
 * A longitude or latitude for messages: at most 7 decimals (about 1 cm, more than any GPS means), trailing zeros
 * dropped, so a float's noise (37.605000000000004) never reaches a person; more decimals only when 7 would round a
 * value outside `limit` onto it (90.00000001 is not "90, outside [-90, 90]").
 */
export function formatCoordinate(value: number, limit?: number): string {
  if (!Number.isFinite(value)) return String(value);
  for (let digits = 7; digits < 16; digits++) {
    const n = Number(value.toFixed(digits));
    if (limit === undefined || Math.abs(value) <= limit || Math.abs(n) > limit) return String(n);
  }
  return String(value);
}

export function formatPoint(lon: number, lat: number): string {
  return `[${formatCoordinate(lon)}, ${formatCoordinate(lat)}]`;
}
