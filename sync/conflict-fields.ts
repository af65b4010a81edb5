// Settling an edit conflict field by field: for each field that differs, mine or theirs, instead of one side whole.
// The fields are the ones the app shows (backend/parcel-conflict.ts): a parcel's 'name', 'metadata.<key>' and
// 'geometry' (its shape, with the source type, the hectare point and the hectares, which only go together); a crop's
// columns by name. The result is written over the row with the service's side as its base, so the next push sends
// exactly the fields kept from mine as an update over what the service holds.
import type { CropState, ParcelState } from '../db/types.ts';
import { validateParcel } from '../core/parcels/validate.ts';
import { REF_KEY, parcelInput } from './state.ts';
import { CROP_FIELDS } from './merge.ts';

export type Side = 'mine' | 'theirs';
/** Field → side; a field not named takes `rest`. */
export type FieldChoices = Readonly<Record<string, Side>>;

export class FieldChoiceError extends Error {}

const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** Mine where chosen, theirs elsewhere, for a parcel; refused when a field named is not one of the parcel's. */
export function chooseParcelFields(mine: ParcelState, theirs: ParcelState, choices: FieldChoices, rest: Side): ParcelState {
  const keys = new Set([...Object.keys(mine.metadata), ...Object.keys(theirs.metadata)].filter((k) => k !== REF_KEY));
  for (const f of Object.keys(choices)) {
    if (f !== 'name' && f !== 'geometry' && !(f.startsWith('metadata.') && keys.has(f.slice('metadata.'.length)))) {
      throw new FieldChoiceError(`"${f}" is not a field of this parcel (name, geometry or metadata.<key> of either side)`);
    }
  }
  const pick = (field: string): Side => choices[field] ?? rest;
  const metadata: ParcelState['metadata'] = {};
  // The client reference is this copy's own, whichever side the rest comes from.
  if (own(mine.metadata, REF_KEY)) metadata[REF_KEY] = mine.metadata[REF_KEY]!;
  for (const k of [...keys].sort()) {
    const from = pick(`metadata.${k}`) === 'mine' ? mine.metadata : theirs.metadata;
    // A key the chosen side does not have is removed.
    if (own(from, k)) metadata[k] = from[k]!;
  }
  const shape = pick('geometry') === 'mine' ? mine : theirs;
  return {
    name: pick('name') === 'mine' ? mine.name : theirs.name,
    metadata,
    geometry: shape.geometry, source_type: shape.source_type, point: shape.point, hectares: shape.hectares,
  };
}

/** The merged parcel's problems with the service's rules (two valid sides can still make too many metadata keys). */
export function mergedParcelProblems(localId: string, merged: ParcelState, maxHectares: number): string[] {
  return validateParcel(parcelInput(localId, merged), 0, { maxHectares }).problems.map((p) => p.message);
}

/** Mine where chosen, theirs elsewhere, for a crop. */
export function chooseCropFields(mine: CropState, theirs: CropState, choices: FieldChoices, rest: Side): CropState {
  for (const f of Object.keys(choices)) {
    if (!(CROP_FIELDS as readonly string[]).includes(f)) throw new FieldChoiceError(`"${f}" is not a crop field (${CROP_FIELDS.join(', ')})`);
  }
  const out = { ...theirs };
  for (const f of CROP_FIELDS) {
    if ((choices[f] ?? rest) === 'mine') (out as Record<string, unknown>)[f] = mine[f];
  }
  return out;
}
