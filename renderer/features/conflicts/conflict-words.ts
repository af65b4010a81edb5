// The conflict panel's words: a field of the conflict as the user knows it, and what each choice did. Pure, tested
// beside it.
import type { ParcelConflict } from '../../../core/api.ts';

/** 'name' → Name, 'metadata.soil type' → soil type (a metadata key is shown as the user typed it), 'geometry' → Shape. */
export function fieldLabel(field: string): string {
  if (field === 'name') return 'Name';
  if (field === 'geometry') return 'Shape';
  if (field.startsWith('metadata.')) return field.slice('metadata.'.length);
  return CROP_LABEL[field] ?? field;
}

/** A crop's columns (its conflicts are settled in the sync cockpit) as the rotation timeline names them. */
const CROP_LABEL: Record<string, string> = {
  campaign: 'Campaign', variety: 'Variety', sowing: 'Sowing', closure: 'Closure', harvested_qty: 'Harvested quantity',
  area: 'Area', is_active: 'Active or past', family_id: 'Family',
};

/** What a side holds for a field: absent reads as "not set", never as an empty cell. */
export const sideText = (v: string | null): string => v ?? '(not set)';

/** The status line after a choice: what happens next, so nobody has to guess whether it reached the service. */
export function resolvedMessage(c: Pick<ParcelConflict, 'kind' | 'deletedOnService'>, keep: 'mine' | 'theirs', name: string): string {
  if (keep === 'theirs') {
    return c.deletedOnService ? `Kept the service's version: ${name} is deleted here too.` : `Kept the service's version of ${name}.`;
  }
  if (c.kind === 'duplicate_on_service') return `Kept mine: the duplicates of ${name} were deleted on the service.`;
  return c.deletedOnService ? `Kept mine: ${name} is created on the service again at the next sync.` : `Kept mine: ${name} is sent to the service at the next sync.`;
}

/** Above the choice, for the kinds whose two sides are not two versions of the parcel. */
export function kindNote(kind: string): string | null {
  if (kind === 'remote_delete') return 'Deleted on the service while you edited it here. Keep mine creates it there again; keep theirs deletes it here.';
  if (kind === 'duplicate_on_service') return 'The service holds this parcel more than once. Keep mine deletes the duplicates there; keep theirs leaves them.';
  if (kind === 'partial_batch') return 'It did not arrive with the rest of its batch. Keep mine sends it again; keep theirs discards it here.';
  return null;
}

/** The status line after a field-by-field choice: how many fields came from each side, and what happens next. */
export function resolvedFieldsMessage(fields: Readonly<Record<string, 'mine' | 'theirs'>>, name: string): string {
  const sides = Object.values(fields);
  const mine = sides.filter((s) => s === 'mine').length;
  const theirs = sides.length - mine;
  if (!mine) return `Kept the service's version of ${name}.`;
  const n = (k: number) => `${k} field${k === 1 ? '' : 's'}`;
  return `Kept ${n(mine)} of mine and ${n(theirs)} of the service's: ${name} is sent to the service at the next sync.`;
}
