import { describe, expect, it } from 'vitest';
import { PALETTE, familyColour, inkOn } from './family-colour.ts';

describe('familyColour', () => {
  it('gives a family the same palette colour whatever its case or spaces, and grey to none', () => {
    expect(familyColour('Poaceae')).toBe(familyColour(' poaceae '));
    expect(PALETTE).toContain(familyColour('Poaceae'));
    expect(familyColour(null)).toBe('#9e9e9e');
    expect(familyColour('  ')).toBe('#9e9e9e');
  });
  it('spreads common families over the palette', () => {
    const names = ['Poaceae', 'Fabaceae', 'Brassicaceae', 'Solanaceae', 'Asteraceae', 'Rosaceae', 'Oleaceae', 'Amaranthaceae', 'Cucurbitaceae', 'Apiaceae'];
    expect(new Set(names.map(familyColour)).size).toBeGreaterThanOrEqual(6);
  });
  it('writes in black on light colours and white on dark ones', () => {
    expect(inkOn('#ddcc77')).toBe('#111');
    expect(inkOn('#332288')).toBe('#fff');
  });
});
