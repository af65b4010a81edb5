// The rotation rule farm managers are warned by: the same botanical family grown twice in a row on one parcel
// (wheat after barley, both Poaceae) carries over its pests, diseases and weeds and drains the same nutrients, the
// classic reason to rotate. Pure: the backend feeds it a parcel's crops as the mirror has them.
//
// When does crop B follow crop A (both on the same parcel)?
// - Both have a campaign with a year in it ('2023/2024', '2024', 'Campaign 2024'): B follows A when B's campaign
//   year is the one right after A's. The campaign is the unit of a rotation, so crops of the same campaign never
//   follow one another, and a campaign with no crop in between (a fallow year) breaks the succession.
// - Otherwise (either campaign missing or without a year), by their sowing → closure periods, when both were sown:
//   B follows A when it was sown while A was still on the ground (on or before A's closure; an active crop without
//   a closure is still there), or when A is the last crop sown before B and B was sown less than a year
//   (REST_DAYS) after A's closure: a year's rest is what a fallow campaign is in the campaign rule. A past crop
//   without a recorded closure is taken to have ended a season (SEASON_DAYS) after its sowing.
// - Crops with neither (no campaign year, no sowing date) cannot be placed in time: no warning either way.
// Families are the same when their ids are equal or, for a family not yet synced (named on a new crop), their
// names are equal ignoring case, as the service matches a family named on write.

export interface RotationEntry {
  id: string;
  campaign: string | null;
  sowing: string | null;
  closure: string | null;
  active: boolean;
  family: { id: number | null; name: string | null } | null;
}

export interface FamilyRepeat {
  /** The earlier crop of the same family that this one follows. */
  after: string;
  family: string;
  /** Which rule saw it: consecutive campaigns, or sowing → closure periods. */
  by: 'campaign' | 'dates';
}

/** A whole year without a crop rests the ground: sown this long (or longer) after the closure, B no longer follows A. */
export const REST_DAYS = 365;
/** A past crop without a recorded closure is taken to have left the ground this long after its sowing. */
export const SEASON_DAYS = 365;

const YEAR = /(?<!\d)(1[89]\d\d|2[01]\d\d)(?!\d)/;

/** The first year written in a campaign ('2023/2024' → 2023, '2024-25' → 2024), or null when it has none. */
export function campaignYear(campaign: string | null): number | null {
  const m = campaign === null ? null : YEAR.exec(campaign);
  return m ? Number(m[1]) : null;
}

const norm = (name: string | null) => (name === null ? null : name.trim().toLowerCase());

export function sameFamily(a: RotationEntry['family'], b: RotationEntry['family']): boolean {
  if (!a || !b) return false;
  if (a.id !== null && b.id !== null) return a.id === b.id;
  const [x, y] = [norm(a.name), norm(b.name)];
  return x !== null && x !== '' && x === y;
}

const day = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;

/** The day a crop left the ground: its closure; none recorded, still there if active, else a season after sowing. */
function end(c: RotationEntry): number {
  if (c.closure !== null) return day(c.closure);
  return c.active ? Number.POSITIVE_INFINITY : day(c.sowing!) + SEASON_DAYS;
}

/** Does B follow A, and by which rule? `sown`: the place of each sown crop of the parcel in sowing order. */
function follows(a: RotationEntry, b: RotationEntry, sown: ReadonlyMap<RotationEntry, number>): FamilyRepeat['by'] | null {
  const [ya, yb] = [campaignYear(a.campaign), campaignYear(b.campaign)];
  if (ya !== null && yb !== null) return yb === ya + 1 ? 'campaign' : null;
  const [ia, ib] = [sown.get(a), sown.get(b)];
  // Both sown, A first (sown the same day: the one first by id, an arbitrary but stable order).
  if (ia === undefined || ib === undefined || ia > ib) return null;
  const gap = day(b.sowing!) - end(a);
  const overlap = gap <= 0;
  return overlap || (ib === ia + 1 && gap < REST_DAYS) ? 'dates' : null;
}

/**
 * Every crop that follows a crop of its own family on the parcel, with the crops it follows (`crops`: all of one
 * parcel's crops, in any order). A crop absent from the answer repeats nothing.
 */
export function familyRepeats(crops: readonly RotationEntry[]): Map<string, FamilyRepeat[]> {
  const out = new Map<string, FamilyRepeat[]>();
  const byKey = (x: RotationEntry) => `${x.sowing} ${x.id}`;
  const order = crops.filter((c) => c.sowing !== null).sort((x, y) => (byKey(x) < byKey(y) ? -1 : 1));
  const sown = new Map(order.map((c, i) => [c, i]));
  for (const b of crops) {
    for (const a of crops) {
      if (a === b || !sameFamily(a.family, b.family)) continue;
      const by = follows(a, b, sown);
      if (!by) continue;
      const list = out.get(b.id) ?? [];
      list.push({ after: a.id, family: a.family!.name ?? b.family!.name ?? `#${a.family!.id}`, by });
      out.set(b.id, list);
    }
  }
  return out;
}

/** Where a crop stands in time, for ordering: its sowing date, else its campaign year; null when neither is known. */
const when = (c: { sowing: string | null; campaign: string | null }): string | null => c.sowing ?? (campaignYear(c.campaign)?.toString() ?? null);

/** Newest first: by sowing (or campaign year when not sown), then campaign, then the newest created; undated last. */
export function newestFirst<T extends { sowing: string | null; campaign: string | null; created: string }>(a: T, b: T): number {
  const [wa, wb] = [when(a), when(b)];
  if (wa !== wb) return wa === null ? 1 : wb === null ? -1 : wa < wb ? 1 : -1;
  if (a.campaign !== b.campaign) return a.campaign === null ? 1 : b.campaign === null ? -1 : a.campaign < b.campaign ? 1 : -1;
  return a.created < b.created ? 1 : a.created > b.created ? -1 : 0;
}

/** Campaign labels oldest first: by their year, then by label (those without a year after); null (no campaign) last. */
export function campaignOrder(campaigns: Iterable<string | null>): (string | null)[] {
  const key = (c: string) => campaignYear(c) ?? Number.POSITIVE_INFINITY;
  return [...new Set(campaigns)].sort((a, b) => {
    if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
    return key(a) - key(b) || (a < b ? -1 : a > b ? 1 : 0);
  });
}
