import { describe, expect, it } from 'vitest';
import { inferFamily } from './infer-family.ts';

/** The service's shared families with their observations (service/store/sqlite/migrations/002-crop-families.ts). */
const SHARED = [
  ['Poaceae', 'Cereals and grasses: wheat, barley, maize, rice, oats'],
  ['Fabaceae', 'Legumes: soybean, pea, bean, lentil, alfalfa; fix nitrogen'],
  ['Brassicaceae', 'Crucifers: rapeseed, cabbage, mustard'],
  ['Solanaceae', 'Nightshades: potato, tomato, pepper'],
  ['Asteraceae', 'Sunflower, lettuce, artichoke'],
  ['Amaranthaceae', 'Sugar beet, spinach, quinoa'],
  ['Cucurbitaceae', 'Melon, watermelon, squash, cucumber'],
  ['Rosaceae', 'Pome and stone fruit: apple, pear, peach, almond, cherry'],
  ['Vitaceae', 'Grapevine'],
  ['Oleaceae', 'Olive'],
  ['Rutaceae', 'Citrus'],
  ['Apiaceae', 'Carrot, celery, parsley'],
  ['Amaryllidaceae', 'Onion, garlic, leek'],
  ['Juglandaceae', 'Walnut, pecan'],
].map(([name, observation]) => ({ name: name!, observation: observation! }));

describe('inferFamily', () => {
  it("finds the family whose observation names the crop (the trial's Lentil → Fabaceae)", () => {
    expect(inferFamily('Lentil', SHARED)).toBe('Fabaceae');
    expect(inferFamily('  lentils ', SHARED)).toBe('Fabaceae');
    expect(inferFamily('Sugar beet', SHARED)).toBe('Amaranthaceae');
    expect(inferFamily('Olive', SHARED)).toBe('Oleaceae');
    expect(inferFamily('Almond', SHARED)).toBe('Rosaceae');
    expect(inferFamily('Potatoes', SHARED)).toBe('Solanaceae');
    expect(inferFamily('Cherries', SHARED)).toBe('Rosaceae');
  });

  it('reads a qualified name by its last word', () => {
    expect(inferFamily('Durum wheat', SHARED)).toBe('Poaceae');
    expect(inferFamily('Winter  wheat', SHARED)).toBe('Poaceae');
    expect(inferFamily('Faba bean', SHARED)).toBe('Fabaceae');
    expect(inferFamily('Sweet pepper', SHARED)).toBe('Solanaceae');
  });

  it("knows common crops the observations leave out, when their family is in the list, spelled as the list's", () => {
    expect(inferFamily('Chickpea', SHARED)).toBe('Fabaceae');
    expect(inferFamily('Rye', SHARED)).toBe('Poaceae');
    expect(inferFamily('Oilseed rape', SHARED)).toBe('Brassicaceae');
    expect(inferFamily('Lemon', SHARED)).toBe('Rutaceae');
    expect(inferFamily('Chickpea', [{ name: 'FABACEAE', observation: '' }])).toBe('FABACEAE');
    expect(inferFamily('Cotton', SHARED)).toBeNull(); // Malvaceae: not in the list
    expect(inferFamily('Cotton', [...SHARED, { name: 'Malvaceae' }])).toBe('Malvaceae');
  });

  it('infers nothing for an unknown crop, an empty name, or a name two families fit', () => {
    expect(inferFamily('Quux', SHARED)).toBeNull();
    expect(inferFamily('  ', SHARED)).toBeNull();
    expect(inferFamily('Lentil', [])).toBeNull();
    expect(inferFamily('Pea', [...SHARED, { name: 'Testaceae', observation: 'pea, bean' }])).toBeNull();
  });
});
