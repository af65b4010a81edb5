// Three-way merge of a local edit (mine) and a remote one (theirs) against the last pulled state (base).
// Pure: no I/O. Per metadata key for parcels, per field for crops; identical edits are not conflicts.

import type { CropState, ParcelState } from '../db/types.ts';

export interface MergeResult<T> {
  merged: T;
  /** Fields edited differently on both sides, e.g. 'name', 'geometry', 'metadata.region'. Empty: clean merge. */
  conflicts: string[];
}

export type Json = unknown;

/** Structural equality of JSON values; key order of objects does not matter. */
export function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as Json[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual((a as Record<string, Json>)[k], (b as Record<string, Json>)[k]));
}

/** One value: whichever side changed it wins; both changed it the same way is fine; otherwise a conflict (mine kept). */
export function mergeValue<V>(base: V, mine: V, theirs: V): { value: V; conflict: boolean } {
  if (jsonEqual(mine, theirs)) return { value: mine, conflict: false };
  if (jsonEqual(base, mine)) return { value: theirs, conflict: false };
  if (jsonEqual(base, theirs)) return { value: mine, conflict: false };
  return { value: mine, conflict: true };
}

// The geometry fields move together: a point parcel's square, its point and its hectares are one edit.
const geometryOf = (s: ParcelState) => ({ geometry: s.geometry, source_type: s.source_type, point: s.point, hectares: s.hectares });

export function mergeParcel(base: ParcelState, mine: ParcelState, theirs: ParcelState): MergeResult<ParcelState> {
  const conflicts: string[] = [];
  const name = mergeValue(base.name, mine.name, theirs.name);
  if (name.conflict) conflicts.push('name');
  const geom = mergeValue(geometryOf(base), geometryOf(mine), geometryOf(theirs));
  if (geom.conflict) conflicts.push('geometry');
  // Own keys only, and built with fromEntries: 'constructor' or 'toString' absent on a side must read as absent
  // (not as Object.prototype's member), and a '__proto__' key must stay an ordinary key.
  const own = (md: ParcelState['metadata'], k: string) => (Object.prototype.hasOwnProperty.call(md, k) ? md[k] : undefined);
  const metadata: [string, string | number | boolean][] = [];
  const keys = new Set([...Object.keys(base.metadata), ...Object.keys(mine.metadata), ...Object.keys(theirs.metadata)]);
  for (const k of [...keys].sort()) {
    const m = mergeValue(own(base.metadata, k), own(mine.metadata, k), own(theirs.metadata, k));
    if (m.conflict) conflicts.push(`metadata.${k}`);
    if (m.value !== undefined) metadata.push([k, m.value]);
  }
  return { merged: { name: name.value, metadata: Object.fromEntries(metadata), ...geom.value }, conflicts };
}

/** A crop's fields, each merged (and, settling a conflict, chosen) on its own. */
export const CROP_FIELDS = ['name', 'campaign', 'area', 'variety', 'harvested_qty', 'sowing', 'closure', 'is_active', 'family_id'] as const;

export function mergeCrop(base: CropState, mine: CropState, theirs: CropState): MergeResult<CropState> {
  const merged = { ...mine };
  const conflicts: string[] = [];
  for (const f of CROP_FIELDS) {
    const m = mergeValue(base[f], mine[f], theirs[f]);
    if (m.conflict) conflicts.push(f);
    (merged as Record<string, unknown>)[f] = m.value;
  }
  return { merged, conflicts };
}

export const mergeFarmName = (base: string, mine: string, theirs: string): MergeResult<string> => {
  const m = mergeValue(base, mine, theirs);
  return { merged: m.value, conflicts: m.conflict ? ['name'] : [] };
};
