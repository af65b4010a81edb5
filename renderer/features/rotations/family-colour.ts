// One colour per crop family (or crop), the same in the parcel's timeline, the farm's rotation table, the map and
// its legend: picked from a fixed palette by the name's hash, so a family keeps its colour across screens and runs.

/** Twelve colours that stay apart for the common kinds of colour blindness (Paul Tol's 'muted' and 'light' sets). */
export const PALETTE = ['#cc6677', '#332288', '#ddcc77', '#117733', '#88ccee', '#882255', '#44aa99', '#999933', '#aa4499', '#ee8866', '#77aadd', '#bbcc33'];

/**
 * The crop families a rotation meets most (cereals, legumes, crucifers, composites, beets, nightshades, cucurbits,
 * umbellifers, and the tree and vine families), each with a palette colour of its own: hashed, two of them could
 * share one (Poaceae and Asteraceae did, making wheat and sunflower alike in the rotation table).
 */
const FIXED: Record<string, number> = {
  poaceae: 1, fabaceae: 3, brassicaceae: 11, asteraceae: 2, amaranthaceae: 8, solanaceae: 0, cucurbitaceae: 9,
  apiaceae: 4, rosaceae: 5, oleaceae: 6, vitaceae: 7, linaceae: 10,
};

/** The colour of a family or crop name (case and surrounding spaces ignored); grey for none. */
export function familyColour(name: string | null | undefined): string {
  const key = name?.trim().toLowerCase();
  if (!key) return '#9e9e9e';
  const fixed = FIXED[key];
  if (fixed !== undefined) return PALETTE[fixed]!;
  // FNV-1a over the UTF-16 code units: stable and spread enough for a dozen buckets.
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return PALETTE[(h >>> 0) % PALETTE.length]!;
}

/** Black or white, whichever reads better on the colour. */
export function inkOn(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  const [r, g, b] = [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  return 0.299 * r + 0.587 * g + 0.114 * b > 150 ? '#111' : '#fff';
}
