// A parcel's open conflict as the panel shows it: the two sides the conflict row keeps (mine and theirs, each a
// ParcelState as the merge saw it) turned into the fields that differ, as text. The panel's Keep mine / Keep theirs
// then call `resolve` with the id; nothing here writes.
import type { Mirror } from '../db/mirror.ts';
import type { CropState, ParcelState } from '../db/types.ts';
import type { ParcelConflict } from '../core/api.ts';
import { REF_KEY } from '../core/parcels/client-ref.ts';

type Side = Partial<ParcelState> | null;
type Difference = ParcelConflict['differences'][number];

const parse = (json: string | null): Side => {
  if (!json) return null;
  try {
    const v = JSON.parse(json) as unknown;
    return v && typeof v === 'object' ? (v as Partial<ParcelState>) : null;
  } catch {
    return null;
  }
};

const valueText = (v: unknown): string | null => (v === undefined ? null : v === null ? '(empty)' : typeof v === 'string' ? v : JSON.stringify(v));

/** The hectares and the vertex count: enough to tell two shapes apart at a glance. */
const shapeText = (s: Partial<ParcelState>): string | null => {
  if (!s.geometry && s.hectares === undefined) return null;
  const vertices = s.geometry ? Math.max(0, (s.geometry.coordinates[0]?.length ?? 1) - 1) : null;
  const ha = typeof s.hectares === 'number' ? `${s.hectares.toFixed(2)} ha` : '? ha';
  return s.source_type === 'Point' ? `${ha} (hectare point)` : vertices !== null ? `${ha}, ${vertices} vertices` : ha;
};

const shapeOf = (s: Partial<ParcelState>) => JSON.stringify([s.geometry ?? null, s.source_type ?? null, s.point ?? null, s.hectares ?? null]);

/** Every field where mine and theirs differ (the client reference aside): name, each metadata key, the shape. */
export function conflictDifferences(mine: Side, theirs: Side, overlapping: readonly string[]): Difference[] {
  const out: Difference[] = [];
  const m = mine ?? {};
  const t = theirs ?? {};
  const add = (field: string, a: string | null, b: string | null) => {
    if (a !== b || overlapping.includes(field)) out.push({ field, mine: a, theirs: b, overlaps: overlapping.includes(field) });
  };
  add('name', valueText(m.name), valueText(t.name));
  const mm = m.metadata ?? {};
  const tm = t.metadata ?? {};
  const own = (md: object, k: string) => (Object.prototype.hasOwnProperty.call(md, k) ? (md as Record<string, unknown>)[k] : undefined);
  const keys = [...new Set([...Object.keys(mm), ...Object.keys(tm)])].filter((k) => k !== REF_KEY).sort();
  for (const k of keys) add(`metadata.${k}`, valueText(own(mm, k)), valueText(own(tm, k)));
  // Two shapes of equal hectares and vertices still differ when the JSON does: say so on theirs.
  const [ms, ts] = [shapeText(m), shapeText(t)];
  if (shapeOf(m) !== shapeOf(t) && (ms !== null || ts !== null)) {
    out.push({ field: 'geometry', mine: ms, theirs: ts !== null && ts === ms ? `${ts} (another shape)` : ts, overlaps: overlapping.includes('geometry') });
  }
  return out;
}

/** An edit conflict row's sides as the fields that differ. */
export const parcelEditDifferences = (mine: string | null, theirs: string | null, overlapping: readonly string[]): Difference[] =>
  conflictDifferences(parse(mine), parse(theirs), overlapping);

/** The parcel's open conflict (the oldest, when it has several), or null. */
export function parcelConflict(m: Mirror, localId: string): ParcelConflict | null {
  const c = m.read.conflicts().find((r) => r.entity === 'parcel' && r.local_id === localId);
  if (!c) return null;
  const fields = JSON.parse(c.fields) as string[];
  const deletedOnService = c.kind === 'remote_delete';
  // Only an edit's two sides are parcel states; the other kinds explain themselves in their reason.
  const differences = c.kind === 'edit' ? conflictDifferences(parse(c.mine), parse(c.theirs), fields)
    : deletedOnService ? [{ field: 'name', mine: valueText(parse(c.mine)?.name), theirs: '(deleted on the service)', overlaps: true }]
      : [];
  return { id: c.id, kind: c.kind, reason: fields.join('; '), deletedOnService, differences };
}

/** A crop's fields (sync/merge.ts CROP_FIELDS) in the order the rotation timeline shows them. */
const CROP_FIELDS_SHOWN: readonly (keyof CropState)[] = ['name', 'campaign', 'variety', 'sowing', 'closure', 'harvested_qty', 'area', 'is_active', 'family_id'];

/**
 * A crop's edit conflict: every column where the two sides differ (or that both edited), as text; the family by its
 * name when the mirror knows it. Field names are the columns, as `resolve` takes them.
 */
export function cropDifferences(mineJson: string | null, theirsJson: string | null, overlapping: readonly string[], familyName: (id: number) => string | null): Difference[] {
  const m = (parse(mineJson) ?? {}) as Partial<CropState>;
  const t = (parse(theirsJson) ?? {}) as Partial<CropState>;
  const text = (f: keyof CropState, v: unknown): string | null => {
    if (f === 'family_id' && typeof v === 'number') return familyName(v) ?? `family #${v}`;
    if (f === 'is_active' && typeof v === 'boolean') return v ? 'active' : 'past';
    return valueText(v);
  };
  const out: Difference[] = [];
  for (const f of CROP_FIELDS_SHOWN) {
    const [a, b] = [text(f, m[f]), text(f, t[f])];
    if (a !== b || overlapping.includes(f)) out.push({ field: f, mine: a, theirs: b, overlaps: overlapping.includes(f) });
  }
  return out;
}
