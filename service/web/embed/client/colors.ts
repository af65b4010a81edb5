// One colour per crop family, the same on every map, under every filter and after every reload: a colour that
// depended on which families happen to be shown would make a filtered map lie about the unfiltered one.

export const NO_CROP = 'No current crop';
export const UNCLASSIFIED = 'Crop without family';

/**
 * The families of most arable and permanent crops, in colours that recall them where that helps (cereals ochre,
 * rapeseed yellow, legumes green, sunflower orange, beet purple, olive olive) and stay apart from each other.
 */
const FAMILY_COLORS: Record<string, string> = {
  poaceae: '#c08a2b', // cereals, maize, grassland
  brassicaceae: '#d9c21c', // rapeseed, mustard, cabbages
  fabaceae: '#3f8f3a', // peas, beans, chickpea, lentil, alfalfa, soy
  asteraceae: '#e0661b', // sunflower, lettuce, artichoke
  amaranthaceae: '#a23b72', // sugar beet, spinach, quinoa
  solanaceae: '#c7352c', // potato, tomato, pepper
  oleaceae: '#6b7a22', // olive
  rosaceae: '#e07fa8', // almond, apple, pear, cherry
  vitaceae: '#6a3d9a', // grapevine
  cucurbitaceae: '#1f9e89', // melon, watermelon, squash
  rutaceae: '#f2a900', // citrus
  amaryllidaceae: '#8c7ac4', // onion, garlic, leek
  apiaceae: '#b15928', // carrot, parsley, fennel
  malvaceae: '#4f7cac', // cotton
  juglandaceae: '#7a5230', // walnut, pecan
  linaceae: '#2b6fd6', // flax
};

/** Families not listed above: the name's hash picks one of these, so each still keeps its colour everywhere. */
const HASHED = ['#1b9e77', '#d95f02', '#7570b3', '#e7298a', '#66a61e', '#e6ab02', '#a6761d', '#386cb0', '#bf5b17', '#17becf', '#8c564b', '#bcbd22'];

const FIXED: Record<string, string> = { [NO_CROP]: '#8b929c', [UNCLASSIFIED]: '#5f6b7a' };

/** FNV-1a: small, stable across browsers and versions, and spreads similar names apart. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The colour of a legend category: a family name (any case), NO_CROP or UNCLASSIFIED. */
export function categoryColor(category: string): string {
  const fixed = FIXED[category];
  if (fixed) return fixed;
  const key = category.trim().toLowerCase();
  return FAMILY_COLORS[key] ?? HASHED[hash(key) % HASHED.length]!;
}
