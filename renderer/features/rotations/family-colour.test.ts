import { describe, expect, it } from 'vitest';
import { PALETTE, familyColour, inkOn } from './family-colour.ts';

describe('familyColour', () => {
  it('gives a family the same palette colour whatever its case or spaces, and grey to none', () => {
    expect(familyColour('Poaceae')).toBe(familyColour(' poaceae '));
    expect(PALETTE).toContain(familyColour('Poaceae'));
    expect(familyColour(null)).toBe('#9e9e9e');
    expect(familyColour('  ')).toBe('#9e9e9e');
  });
  it('gives each common crop family a colour of its own', () => {
    const names = ['Poaceae', 'Fabaceae', 'Brassicaceae', 'Solanaceae', 'Asteraceae', 'Rosaceae', 'Oleaceae', 'Amaranthaceae', 'Cucurbitaceae', 'Apiaceae', 'Vitaceae', 'Linaceae'];
    expect(new Set(names.map(familyColour)).size).toBe(names.length);
    // Other names still get a palette colour, the same every time.
    expect(PALETTE).toContain(familyColour('Malvaceae'));
    expect(familyColour('Malvaceae')).toBe(familyColour('malvaceae'));
  });
  it('writes in black on light colours and white on dark ones', () => {
    expect(inkOn('#ddcc77')).toBe('#111');
    expect(inkOn('#332288')).toBe('#fff');
  });
});
