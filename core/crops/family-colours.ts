// One colour per crop family (or crop name), for every map and table that shows them: the app's parcel timeline,
// rotation table, map and legend, and the service's embedded map. A family keeps its colour across screens, runs,
// filters and accounts, and a grower who sees both sees the cereals in the same colour in each.
//
// The palette is the app's: Paul Tol's colour-blind-safe 'muted' and 'light' sets. The embedded map had its own,
// chosen to recall the crops (cereals ochre, rapeseed yellow, legumes green) but with reds beside greens and yellows
// beside oranges that run together for the commonest colour blindness; a map a customer's growers open must read for
// them too. So both use Tol's colours, and the common families keep what mnemonics the palette allows.

/** Paul Tol's nine 'muted' colours, which stay apart for the common kinds of colour blindness, then three 'light' ones. */
export const FAMILY_PALETTE = ['#cc6677', '#332288', '#ddcc77', '#117733', '#88ccee', '#882255', '#44aa99', '#999933', '#aa4499', '#ee8866', '#77aadd', '#bbcc33'] as const;

/** The colour of no family (a crop without one, or none at all). */
export const NO_FAMILY_COLOUR = '#9e9e9e';
/**
 * A parcel with no active crop, on a map coloured by crop: a cool grey apart from every palette colour and from
 * NO_FAMILY_COLOUR, never the parcel's sync-state fill (a pending parcel's pale yellow read as cereals).
 */
export const NO_CROP_COLOUR = '#8b929c';

/**
 * The crop families a rotation meets most, each with a palette colour of its own: hashed, two of them could share one
 * (Poaceae and Asteraceae did, making wheat and sunflower alike in the rotation table). The nine commonest take
 * Tol's nine 'muted' colours, the arable six of them (cereals, crucifers, legumes, beets, composites, nightshades)
 * the ones farthest apart under simulated deuteranopia, protanopia and tritanopia. The three 'light' colours each sit
 * close to a muted one for colour-blind eyes (orange to rose, pear to sand, light blue to cyan), so they go to rarer
 * families. Where it costs no distance a colour recalls its crop: cereals sand, legumes green, beet wine, potato and
 * tomato rose, olive olive, grapevine purple, flax blue.
 */
const FIXED: Record<string, number> = {
  poaceae: 2, brassicaceae: 1, fabaceae: 3, amaranthaceae: 5, asteraceae: 4, solanaceae: 0,
  oleaceae: 7, vitaceae: 8, rosaceae: 6,
  cucurbitaceae: 9, apiaceae: 11, linaceae: 10,
};

/**
 * The colour of a family or crop name (case and surrounding spaces ignored); grey for none. Other names take a palette
 * colour by their hash, the same everywhere; with twelve colours a rarer family may share one with a common family.
 */
export function familyColour(name: string | null | undefined): string {
  const key = name?.trim().toLowerCase();
  if (!key) return NO_FAMILY_COLOUR;
  const fixed = FIXED[key];
  if (fixed !== undefined) return FAMILY_PALETTE[fixed]!;
  // FNV-1a over the UTF-16 code units: stable across browsers and versions, and spread enough for a dozen buckets.
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return FAMILY_PALETTE[(h >>> 0) % FAMILY_PALETTE.length]!;
}

/** Black or white, whichever reads better as text on the colour (`#rrggbb`). */
export function inkOn(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? '#111' : '#fff';
}
