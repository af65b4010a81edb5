import { describe, expect, it } from 'vitest';
import { FAMILY_PALETTE, NO_FAMILY_COLOUR, familyColour, inkOn } from './family-colours.ts';

/** The families with a colour of their own, the nine commonest first. */
const COMMON = ['Poaceae', 'Brassicaceae', 'Fabaceae', 'Amaranthaceae', 'Asteraceae', 'Solanaceae', 'Oleaceae', 'Vitaceae', 'Rosaceae', 'Cucurbitaceae', 'Apiaceae', 'Linaceae'];

describe('familyColour', () => {
  it('gives a family the same palette colour whatever its case or spaces, and grey to none', () => {
    expect(familyColour('Poaceae')).toBe(familyColour(' poaceae '));
    expect(FAMILY_PALETTE).toContain(familyColour('Poaceae'));
    expect(familyColour(null)).toBe(NO_FAMILY_COLOUR);
    expect(familyColour('  ')).toBe(NO_FAMILY_COLOUR);
  });

  it('gives each common crop family a colour of its own', () => {
    expect(new Set(COMMON.map(familyColour)).size).toBe(COMMON.length);
    // Other names still get a palette colour, the same every time.
    expect(FAMILY_PALETTE).toContain(familyColour('Malvaceae'));
    expect(familyColour('Malvaceae')).toBe(familyColour('malvaceae'));
  });

  it('colours the families so that they recall their crops where the palette allows', () => {
    expect(familyColour('Poaceae')).toBe('#ddcc77'); // cereals: sand
    expect(familyColour('Fabaceae')).toBe('#117733'); // legumes: green
    expect(familyColour('Oleaceae')).toBe('#999933'); // olive
    expect(familyColour('Vitaceae')).toBe('#aa4499'); // grapevine: purple
  });

  it("gives the commonest families Tol's muted colours, and the light ones (near a muted one for colour-blind eyes) to rarer families", () => {
    const muted = FAMILY_PALETTE.slice(0, 9);
    for (const f of COMMON.slice(0, 9)) expect(muted, f).toContain(familyColour(f));
  });

  it('keeps a hashed name on its colour from one version to the next', () => {
    expect(['Malvaceae', 'Rutaceae', 'Wheat'].map(familyColour)).toEqual(['#77aadd', '#332288', '#88ccee']);
  });
});

describe('inkOn', () => {
  it('writes in black on light colours and white on dark ones', () => {
    expect(inkOn('#ddcc77')).toBe('#111');
    expect(inkOn('#332288')).toBe('#fff');
  });
});
