// One colour per crop family (or crop name), for every map and table that shows them: the app's parcel timeline,
// rotation table, map and legend, and the service's embedded map. Both assign colours with the one rule here
// (cropColours) over the same names — the organization's crop families, which the service lists and the mirror pulls —
// so a family has the same colour in the app and on the embedded map, on every start, under every filter and view.
//
// The palette starts with Paul Tol's colour-blind-safe 'muted' and 'light' sets; the embedded map once had its own,
// with reds beside greens that run together for the commonest colour blindness. Eight more, each the farthest (CIELAB)
// from those already in, make twenty: a hash into twelve gave Lentil and Durum wheat the same #ee8866, so names now
// take a colour no other name in the set has (cropColours) while the palette lasts.

/**
 * Tol's nine 'muted' colours, three 'light' ones, then eight chosen to stay apart from them and from the greys
 * (CIELAB ΔE ≥ 26 from every other) while light and soft enough for a map's fill (L* 42–82, chroma 30–62).
 */
export const FAMILY_PALETTE = [
  '#cc6677', '#332288', '#ddcc77', '#117733', '#88ccee', '#882255', '#44aa99', '#999933', '#aa4499',
  '#ee8866', '#77aadd', '#bbcc33',
  '#88dd88', '#ddaaff', '#0077dd', '#995500', '#776633', '#ff88cc', '#7766aa', '#779966',
] as const;

/** The colour of no family (a crop without one, or none at all). */
export const NO_FAMILY_COLOUR = '#9e9e9e';
/**
 * A parcel with no active crop, on a map coloured by crop: a cool grey apart from every palette colour and from
 * NO_FAMILY_COLOUR, never the parcel's sync-state fill (a pending parcel's pale yellow read as cereals).
 */
export const NO_CROP_COLOUR = '#8b929c';

/**
 * The crop families every organization is offered (the service's shared list), each with a palette colour of its own
 * whatever else is shown. The nine commonest take Tol's nine 'muted' colours, the arable six of them (cereals,
 * crucifers, legumes, beets, composites, nightshades) the ones farthest apart under simulated deuteranopia, protanopia
 * and tritanopia; the three 'light' ones, each close to a muted one for colour-blind eyes, go to rarer families. Where
 * it costs no distance a colour recalls its crop: cereals sand, legumes green, beet wine, potato and tomato rose, olive
 * olive, grapevine purple, flax blue, onion lilac, citrus amber, walnut brown.
 */
const FIXED: Record<string, number> = {
  poaceae: 2, brassicaceae: 1, fabaceae: 3, amaranthaceae: 5, asteraceae: 4, solanaceae: 0,
  oleaceae: 7, vitaceae: 8, rosaceae: 6,
  cucurbitaceae: 9, apiaceae: 11, linaceae: 10,
  amaryllidaceae: 13, rutaceae: 15, juglandaceae: 16,
};
const RESERVED = new Set(Object.values(FIXED));
/** The palette's colours no shared family holds: where other names go first. */
const FREE = FAMILY_PALETTE.map((_, i) => i).filter((i) => !RESERVED.has(i));

const norm = (name: string | null | undefined): string => name?.trim().toLowerCase() ?? '';

/** FNV-1a over the UTF-16 code units: stable across browsers, versions and starts. */
function hash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The colour of a family or crop name on its own (case and surrounding spaces ignored); grey for none. A shared family
 * has its own colour; another name a palette colour by its hash, which another name may share: where the names shown
 * together are known, cropColours gives each its own.
 */
export function familyColour(name: string | null | undefined): string {
  const key = norm(name);
  if (!key) return NO_FAMILY_COLOUR;
  const fixed = FIXED[key];
  return FAMILY_PALETTE[fixed ?? FREE[hash(key) % FREE.length]!]!;
}

/**
 * A colour for each of `names` (keyed by the name trimmed and in lower case), no two the same while the palette lasts
 * (twenty): the shared families their own; every other name its hash's colour among those no shared family holds, or,
 * when another name has it, the next one free — the unclaimed shared families' colours last. Only the set of names
 * counts, never their order, so the same names get the same colours in the app and on the embedded map, start after
 * start; a name joining the set moves no other name's colour unless they wanted the same one. Crop names (`families`
 * false) are no family: they choose among the whole palette.
 */
export function cropColours(names: Iterable<string | null | undefined>, { families = true }: { families?: boolean } = {}): Map<string, string> {
  const keys = [...new Set([...names].map(norm).filter((k) => k !== ''))].sort();
  const out = new Map<string, string>();
  const taken = new Set<number>();
  const others: string[] = [];
  for (const k of keys) {
    const fixed = families ? FIXED[k] : undefined;
    if (fixed === undefined) others.push(k);
    else { out.set(k, FAMILY_PALETTE[fixed]!); taken.add(fixed); }
  }
  // First every name that is alone in wanting its colour (ties to the first by code units), then the rest in turn.
  const free = families ? FREE : FAMILY_PALETTE.map((_, i) => i);
  const wanted = (k: string) => free[hash(k) % free.length]!;
  const later: string[] = [];
  for (const k of others) {
    const i = wanted(k);
    if (taken.has(i)) later.push(k);
    else { out.set(k, FAMILY_PALETTE[i]!); taken.add(i); }
  }
  const order = families ? [...FREE, ...FAMILY_PALETTE.map((_, i) => i).filter((i) => RESERVED.has(i))] : free;
  for (const k of later) {
    const start = order.indexOf(wanted(k));
    const next = [...order.slice(start), ...order.slice(0, start)].find((i) => !taken.has(i));
    if (next === undefined) { out.set(k, FAMILY_PALETTE[wanted(k)]!); continue; } // more names than colours: one is shared
    out.set(k, FAMILY_PALETTE[next]!);
    taken.add(next);
  }
  return out;
}

/** The colour `colours` (cropColours) gives a name; one outside them, its colour alone (familyColour); grey for none. */
export function colourIn(colours: ReadonlyMap<string, string>, name: string | null | undefined): string {
  return colours.get(norm(name)) ?? familyColour(name);
}

/** WCAG 2's relative luminance of `#rrggbb`. */
export function luminance(hex: string): number {
  const n = Number.parseInt(hex.slice(1), 16);
  const lin = (v: number) => { const c = v / 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * lin((n >> 16) & 255) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
}

/** WCAG 2's contrast ratio of two `#rrggbb` colours, from 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * Black or white, whichever has the higher WCAG contrast ratio against the colour (`#rrggbb`): at least 4.58:1 on any
 * colour, above the 4.5:1 WCAG asks of text. A brightness rule (before) wrote white on #44aa99 at 2.81:1.
 */
export function inkOn(hex: string): string {
  return contrastRatio(hex, '#000000') >= contrastRatio(hex, '#ffffff') ? '#000000' : '#ffffff';
}
