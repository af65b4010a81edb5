// The app and the service's embedded map give a crop family the same colour: both take it from core's one palette
// (core/crops/family-colours.ts), for the families with a colour of their own and for the hashed ones alike.
import { describe, expect, it } from 'vitest';
import Feature from 'ol/Feature.js';
import type { Style } from 'ol/style.js';
import { FAMILY_PALETTE, familyColour } from '../core/crops/family-colours.ts';
import { NO_CROP, UNCLASSIFIED, categoryColor } from '../service/web/embed/client/colors.ts';
import { cropLegend } from '../renderer/features/rotations/crop-legend.ts';
import { parcelStyle, rgba } from '../renderer/features/map/parcel-style.ts';

const FAMILIES = [
  'Poaceae', 'Fabaceae', 'Brassicaceae', 'Solanaceae', 'Asteraceae', 'Rosaceae', 'Oleaceae', 'Amaranthaceae',
  'Cucurbitaceae', 'Apiaceae', 'Vitaceae', 'Linaceae', 'Rutaceae', 'Amaryllidaceae', 'Malvaceae', 'Juglandaceae',
  ...Array.from({ length: 40 }, (_, i) => `Family ${i}`),
];

describe('crop family colours', () => {
  it('are the same on the embedded map as in core', () => {
    for (const f of FAMILIES) expect(categoryColor(f), f).toBe(familyColour(f));
    expect(categoryColor('poaceae')).toBe(categoryColor('Poaceae'));
  });

  it('are the same in the app (its legend and its map) as in core', () => {
    const { legend } = cropLegend(FAMILIES.map((family) => ({ name: 'x', family })), 'family');
    for (const e of legend) expect(e.colour, e.name).toBe(familyColour(e.name));
    const style = parcelStyle(() => 'family');
    for (const family of FAMILIES) {
      const [s] = style(new Feature({ state: 'synced', name: 'p', crop: { name: 'x', family } })) as Style[];
      expect(s!.getFill()!.getColor(), family).toBe(rgba(familyColour(family), 0.6));
    }
  });

  it('leave the embedded map its two categories that are no family, in greys of their own', () => {
    const greys = [categoryColor(NO_CROP), categoryColor(UNCLASSIFIED)];
    expect(new Set(greys).size).toBe(2);
    for (const g of greys) expect(FAMILY_PALETTE).not.toContain(g);
  });
});
