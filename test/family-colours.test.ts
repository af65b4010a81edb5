// The app and the service's embedded map give a crop family the same colour: both assign colours with core's one rule
// (core/crops/family-colours.ts cropColours) among the same names, the organization's families.
import { describe, expect, it } from 'vitest';
import Feature from 'ol/Feature.js';
import type { Style } from 'ol/style.js';
import { FAMILY_PALETTE, colourIn, cropColours } from '../core/crops/family-colours.ts';
import { NO_CROP, UNCLASSIFIED, categoryColor, colourFamilies } from '../service/web/embed/client/colors.ts';
import { cropLegend } from '../renderer/features/rotations/crop-legend.ts';
import { parcelStyle, rgba } from '../renderer/features/map/parcel-style.ts';

/** The service's shared families, then an organization's own. */
const FAMILIES = [
  'Poaceae', 'Fabaceae', 'Brassicaceae', 'Solanaceae', 'Asteraceae', 'Rosaceae', 'Oleaceae', 'Amaranthaceae',
  'Cucurbitaceae', 'Apiaceae', 'Vitaceae', 'Linaceae', 'Rutaceae', 'Amaryllidaceae', 'Juglandaceae', 'Malvaceae',
  'Musaceae', 'Lauraceae', 'Theaceae', 'Moraceae',
];
const colours = cropColours(FAMILIES);

describe('crop family colours', () => {
  it('are twenty different ones for twenty families', () => {
    expect(new Set(FAMILIES.map((f) => colourIn(colours, f))).size).toBe(20);
  });

  it('are the same on the embedded map as in core, whatever the order it gets the names in', () => {
    colourFamilies([...FAMILIES].reverse());
    for (const f of FAMILIES) expect(categoryColor(f), f).toBe(colourIn(colours, f));
    expect(categoryColor('poaceae')).toBe(categoryColor('Poaceae'));
  });

  it('are the same in the app (its legend and its map) as in core', () => {
    const colourOf = (_by: 'family' | 'crop', key: string) => colourIn(colours, key);
    const { legend } = cropLegend(FAMILIES.map((family) => ({ name: 'x', family })), 'family', (key) => colourOf('family', key));
    for (const e of legend) expect(e.colour, e.name).toBe(colourIn(colours, e.name));
    const style = parcelStyle(() => 'family', colourOf);
    for (const family of FAMILIES) {
      const [s] = style(new Feature({ state: 'synced', name: 'p', crop: { name: 'x', family } })) as Style[];
      expect(s!.getFill()!.getColor(), family).toBe(rgba(colourIn(colours, family), 0.6));
    }
  });

  it('leave the embedded map its two categories that are no family, in greys of their own', () => {
    const greys = [categoryColor(NO_CROP), categoryColor(UNCLASSIFIED)];
    expect(new Set(greys).size).toBe(2);
    for (const g of greys) expect(FAMILY_PALETTE).not.toContain(g);
  });
});
