import { describe, expect, it } from 'vitest';
import { FAMILY_PALETTE, NO_FAMILY_COLOUR, colourIn, contrastRatio, cropColours, familyColour, inkOn, luminance } from './family-colours.ts';

/** The service's shared families (service/store/sqlite/migrations/002-crop-families.ts), the nine commonest first. */
const SHARED = ['Poaceae', 'Brassicaceae', 'Fabaceae', 'Amaranthaceae', 'Asteraceae', 'Solanaceae', 'Oleaceae', 'Vitaceae', 'Rosaceae', 'Cucurbitaceae', 'Apiaceae', 'Linaceae', 'Amaryllidaceae', 'Rutaceae', 'Juglandaceae'];

describe('familyColour', () => {
  it('gives a family the same palette colour whatever its case or spaces, and grey to none', () => {
    expect(familyColour('Poaceae')).toBe(familyColour(' poaceae '));
    expect(FAMILY_PALETTE).toContain(familyColour('Poaceae'));
    expect(familyColour(null)).toBe(NO_FAMILY_COLOUR);
    expect(familyColour('  ')).toBe(NO_FAMILY_COLOUR);
  });

  it('gives each of the shared families a colour of its own', () => {
    expect(new Set(SHARED.map(familyColour)).size).toBe(SHARED.length);
    expect(FAMILY_PALETTE).toContain(familyColour('Malvaceae'));
    expect(familyColour('Malvaceae')).toBe(familyColour('malvaceae'));
  });

  it('colours the families so that they recall their crops where the palette allows', () => {
    expect(familyColour('Poaceae')).toBe('#ddcc77'); // cereals: sand
    expect(familyColour('Fabaceae')).toBe('#117733'); // legumes: green
    expect(familyColour('Oleaceae')).toBe('#999933'); // olive
    expect(familyColour('Vitaceae')).toBe('#aa4499'); // grapevine: purple
    expect(familyColour('Juglandaceae')).toBe('#776633'); // walnut: brown
  });

  it("gives the commonest families Tol's muted colours", () => {
    const muted = FAMILY_PALETTE.slice(0, 9);
    for (const f of SHARED.slice(0, 9)) expect(muted, f).toContain(familyColour(f));
  });

  it('has twenty different colours, none of them a grey of its own', () => {
    expect(new Set(FAMILY_PALETTE).size).toBe(20);
    expect(FAMILY_PALETTE).not.toContain(NO_FAMILY_COLOUR);
  });
});

describe('cropColours', () => {
  it('gives the two crops the trial saw in one colour (Lentil, Durum wheat) two colours', () => {
    const c = cropColours(['Lentil', 'Durum wheat']);
    expect(c.get('lentil')).not.toBe(c.get('durum wheat'));
  });

  it('gives every name its own colour while the palette lasts, and the shared families theirs', () => {
    const crops = ['Durum wheat', 'Winter wheat', 'Barley', 'Sunflower', 'Chickpea', 'Olive', 'Sugar beet', 'Rapeseed', 'Almond', 'Lentil', 'Vetch', 'Maize', 'Oats', 'Alfalfa', 'Pea', 'Potato', 'Tomato', 'Onion', 'Melon', 'Cotton'];
    const c = cropColours(crops, { families: false });
    expect(new Set(c.values()).size).toBe(20);
    const families = cropColours([...SHARED, 'Malvaceae', 'Musaceae', 'Theaceae', 'Lauraceae', 'Moraceae']);
    expect(new Set(families.values()).size).toBe(20);
    for (const f of SHARED) expect(families.get(f.toLowerCase()), f).toBe(familyColour(f));
  });

  it('shares colours only once there are more names than colours, and never fails', () => {
    const many = Array.from({ length: 45 }, (_, i) => `Crop ${i}`);
    const c = cropColours(many);
    expect(c.size).toBe(45);
    expect(new Set(c.values()).size).toBe(20);
    for (const v of c.values()) expect(FAMILY_PALETTE).toContain(v);
  });

  it('depends on the set of names only: not their order, case, spaces or repeats', () => {
    const a = cropColours(['Lentil', 'Durum wheat', 'Olive', 'Chickpea', null, '']);
    const b = cropColours([' chickpea', 'OLIVE', 'durum wheat ', 'Lentil', 'Lentil']);
    expect([...a].sort()).toEqual([...b].sort());
  });

  it('moves no colour when a name joins that wants another', () => {
    const before = cropColours(['Lentil', 'Durum wheat', 'Olive']);
    const after = cropColours(['Lentil', 'Durum wheat', 'Olive', 'Poaceae']);
    for (const [k, v] of before) expect(after.get(k), k).toBe(v);
  });

  it('lets crop names (no families) choose among the whole palette', () => {
    const crops = ['Durum wheat', 'Olive', 'Sunflower', 'Chickpea', 'Red lentil'];
    const asCrops = cropColours(crops, { families: false });
    expect(new Set(asCrops.values()).size).toBe(5);
  });

  it('answers a name outside the set with its own colour, and grey for none', () => {
    const c = cropColours(['Lentil']);
    expect(colourIn(c, ' LENTIL')).toBe(c.get('lentil'));
    expect(colourIn(c, 'Poaceae')).toBe(familyColour('Poaceae'));
    expect(colourIn(c, null)).toBe(NO_FAMILY_COLOUR);
  });
});

describe('inkOn and contrastRatio', () => {
  it("computes WCAG's luminance and ratio", () => {
    expect(luminance('#ffffff')).toBeCloseTo(1, 6);
    expect(luminance('#000000')).toBe(0);
    expect(contrastRatio('#ffffff', '#000000')).toBeCloseTo(21, 6);
    expect(contrastRatio('#ffffff', '#44aa99')).toBeCloseTo(2.82, 2); // the chip axe-core flagged
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
  });

  it('writes in black on light colours and white on dark ones', () => {
    expect(inkOn('#ddcc77')).toBe('#000000');
    expect(inkOn('#44aa99')).toBe('#000000');
    expect(inkOn('#332288')).toBe('#ffffff');
  });

  it('reads at 4.5:1 at least on every palette colour, the greys and any colour at all', () => {
    const all = [...FAMILY_PALETTE, NO_FAMILY_COLOUR];
    for (let v = 0; v < 256; v += 5) all.push(`#${v.toString(16).padStart(2, '0').repeat(3)}`);
    for (let i = 0; i < 4096; i++) all.push(`#${((i * 2654435761) >>> 8 & 0xffffff).toString(16).padStart(6, '0')}`);
    for (const c of all) expect(contrastRatio(inkOn(c), c), c).toBeGreaterThanOrEqual(4.5);
  });
});
