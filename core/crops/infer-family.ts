// A crop's family from its name, where the family list knows it: each family the service offers comes with an
// observation naming its crops ("Legumes: soybean, pea, bean, lentil, alfalfa"), so Lentil is a Fabaceae. Crops
// those words leave out (Chickpea, Rye, Canola…) are looked up in a short list of common crops, and used only when
// their family is one of the list's. Nothing is inferred when two families would fit.

export interface ListedFamily { name: string; observation?: string }

/** Common crops the shared families' observations do not name, by botanical family. */
const COMMON: Record<string, string> = {
  chickpea: 'Fabaceae', 'faba bean': 'Fabaceae', vetch: 'Fabaceae', lupin: 'Fabaceae', lupine: 'Fabaceae', clover: 'Fabaceae', soy: 'Fabaceae',
  soya: 'Fabaceae', peanut: 'Fabaceae', groundnut: 'Fabaceae', sainfoin: 'Fabaceae', lucerne: 'Fabaceae', 'grass pea': 'Fabaceae',
  rye: 'Poaceae', triticale: 'Poaceae', spelt: 'Poaceae', sorghum: 'Poaceae', millet: 'Poaceae', corn: 'Poaceae', teff: 'Poaceae',
  sugarcane: 'Poaceae', ryegrass: 'Poaceae', durum: 'Poaceae',
  canola: 'Brassicaceae', 'oilseed rape': 'Brassicaceae', rape: 'Brassicaceae', turnip: 'Brassicaceae', radish: 'Brassicaceae',
  broccoli: 'Brassicaceae', cauliflower: 'Brassicaceae', kale: 'Brassicaceae', camelina: 'Brassicaceae',
  eggplant: 'Solanaceae', aubergine: 'Solanaceae', chili: 'Solanaceae', chilli: 'Solanaceae', tobacco: 'Solanaceae',
  chicory: 'Asteraceae', safflower: 'Asteraceae', endive: 'Asteraceae',
  beet: 'Amaranthaceae', beetroot: 'Amaranthaceae', chard: 'Amaranthaceae',
  pumpkin: 'Cucurbitaceae', zucchini: 'Cucurbitaceae', courgette: 'Cucurbitaceae',
  plum: 'Rosaceae', apricot: 'Rosaceae', strawberry: 'Rosaceae', raspberry: 'Rosaceae', quince: 'Rosaceae', nectarine: 'Rosaceae',
  grape: 'Vitaceae', vine: 'Vitaceae', vineyard: 'Vitaceae',
  orange: 'Rutaceae', lemon: 'Rutaceae', mandarin: 'Rutaceae', lime: 'Rutaceae', grapefruit: 'Rutaceae', clementine: 'Rutaceae',
  fennel: 'Apiaceae', coriander: 'Apiaceae', dill: 'Apiaceae', parsnip: 'Apiaceae',
  shallot: 'Amaryllidaceae', chive: 'Amaryllidaceae',
  flax: 'Linaceae', linseed: 'Linaceae',
  cotton: 'Malvaceae', okra: 'Malvaceae', pistachio: 'Anacardiaceae', hazelnut: 'Betulaceae',
};

const clean = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ');

/** "lentils" → "lentil", "potatoes" → "potato", "cherries" → "cherry"; other words as they are. */
function singular(w: string): string {
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith('oes') && w.length > 4) return w.slice(0, -2);
  if (w.endsWith('s') && !w.endsWith('ss') && w.length > 3) return w.slice(0, -1);
  return w;
}

/** The crops an observation names: its parts between commas, semicolons, colons and "and", singular. */
function named(observation: string): Set<string> {
  return new Set(clean(observation).split(/[,;:()/]|\band\b/).map((t) => singular(t.trim())).filter(Boolean));
}

/** The one family of `families` whose observation names a crop of these names, or null (none, or several). */
function byObservation(names: readonly string[], families: readonly ListedFamily[]): ListedFamily | null {
  const fits = families.filter((f) => { const crops = named(f.observation ?? ''); return names.some((n) => crops.has(n)); });
  return fits.length === 1 ? fits[0]! : null;
}

/**
 * The family of the crop named `crop`, as spelled in `families`, when the list knows it: first by the whole name in a
 * family's observation ("Sugar beet"), then by its last word ("Durum wheat" → wheat), then by the common crops above;
 * null when nothing fits, or when more than one family does.
 */
export function inferFamily(crop: string, families: readonly ListedFamily[]): string | null {
  const whole = clean(crop);
  if (!whole) return null;
  const last = whole.split(' ').pop()!;
  const full = [...new Set([whole, singular(whole)])];
  const tail = [...new Set([last, singular(last)])];
  const found = byObservation(full, families) ?? (last !== whole ? byObservation(tail, families) : null);
  if (found) return found.name;
  for (const n of [...full, ...tail]) {
    const family = COMMON[n];
    if (family) return families.find((f) => f.name.toLowerCase() === family.toLowerCase())?.name ?? null;
  }
  return null;
}
