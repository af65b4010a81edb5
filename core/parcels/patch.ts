// Validation of PATCH /api/parcels/{id}/ bodies: a partial parcel plus an optional echo of the id.

import type { GeomResult } from './geom.ts';
import { checkGeom } from './geom.ts';
import { checkMetadata } from './metadata.ts';
import type { Metadata } from './metadata.ts';
import { checkName } from './name.ts';
import { describeValue, isPlainObject, joinPath, report, reporter } from './problems.ts';
import type { ParcelProblem } from './problems.ts';

export interface ParcelPatch {
  name?: string;
  metadata?: Metadata;
  geom?: GeomResult;
}

const PATCH_KEYS = new Set(['id', 'name', 'metadata', 'geom']);

/**
 * Paths are relative to the PATCH body ("metadata/crop_type") and every problem has
 * index 0; messages name the parcel by its id. Metadata replaces the stored object
 * as a whole, so it is validated as a whole.
 */
export function validateParcelPatch(
  input: unknown, pathId: number, opts: { maxHectares: number },
): { patch: ParcelPatch | null; problems: ParcelProblem[] } {
  const r = reporter(0, `Parcel id ${pathId}`);
  if (!isPlainObject(input)) {
    report(r, '', 'not_object', `the patch must be an object with name, metadata or geom, got ${describeValue(input)}`);
    return { patch: null, problems: r.problems };
  }
  for (const key of Object.keys(input)) {
    if (!PATCH_KEYS.has(key)) {
      report(r, joinPath('', key), 'unknown_field',
        `unknown field ${describeValue(key)}; a patch allows id, name, metadata and geom`);
    }
  }
  const id = input['id'];
  if (id !== undefined && !(Number.isInteger(id) && id === pathId)) {
    report(r, 'id', 'id_mismatch', `id ${describeValue(id)} in the body does not match id ${pathId} in the path`);
  }
  const patch: ParcelPatch = {};
  const has = (key: string): boolean => input[key] !== undefined;
  if (!has('name') && !has('metadata') && !has('geom')) {
    report(r, '', 'empty_patch', 'the patch changes nothing: send at least one of name, metadata or geom');
  }
  if (has('name')) {
    const name = checkName(input['name'], r, 'name');
    if (name !== null) patch.name = name;
  }
  if (has('metadata')) {
    const metadata = checkMetadata(input['metadata'], r, 'metadata');
    if (metadata !== null) patch.metadata = metadata;
  }
  if (has('geom')) {
    const geom = checkGeom(input['geom'], r, 'geom', opts.maxHectares);
    if (geom !== null) patch.geom = geom;
  }
  return r.problems.length > 0 ? { patch: null, problems: r.problems } : { patch, problems: r.problems };
}
