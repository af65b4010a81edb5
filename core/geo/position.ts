import type { Position } from './types.ts';

/** True for an array of 2 or 3 finite numbers; says nothing about the range of lon/lat. */
export function isPosition(value: unknown): value is Position {
  if (!Array.isArray(value)) return false;
  const n = value.length;
  if (n !== 2 && n !== 3) return false;
  for (let i = 0; i < n; i++) {
    const v: unknown = value[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) return false;
  }
  return true;
}

/**
 * GeoJSON (RFC 7946 §3.1.6) asks the closing position to hold identical values,
 * so a z present on one end only, or differing, makes the positions different.
 */
export function samePosition(a: Position, b: Position): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
