import { describe, expect, it } from 'vitest';
import { colourKey, cropLegend, LEGEND_MAX } from './crop-legend.ts';
import { familyColour } from '../../../core/crops/family-colours.ts';

describe('the map coloured by crop', () => {
  it('colours a parcel by its active crop family or name, none without', () => {
    const wheat = { name: 'Durum wheat', family: 'Poaceae' };
    expect(colourKey(wheat, 'family')).toBe('Poaceae');
    expect(colourKey(wheat, 'crop')).toBe('Durum wheat');
    expect(colourKey(wheat, 'state')).toBeNull();
    expect(colourKey(null, 'family')).toBeNull();
    expect(colourKey({ name: 'Fallow', family: null }, 'family')).toBeNull();
    // An active crop with no family is counted apart from no active crop: it is a crop.
    expect(cropLegend([{ name: 'Barley', family: null }, { name: 'Lentil', family: null }, null], 'family')).toMatchObject({ legend: [], bare: 1, unkeyed: 2 });
    expect(cropLegend([{ name: 'Barley', family: null }], 'crop')).toMatchObject({ legend: [{ name: 'Barley' }], bare: 0, unkeyed: 0 });
    expect(colourKey({ name: '  ', family: 'x' }, 'crop')).toBeNull();
  });

  it('lists what is shown, most parcels first, each once whatever its case, with its colour', () => {
    const r = cropLegend([{ name: 'Wheat', family: 'Poaceae' }, { name: 'Barley', family: 'poaceae' }, { name: 'Chickpea', family: 'Fabaceae' }, null, undefined], 'family');
    expect(r).toEqual({ legend: [{ name: 'Poaceae', colour: familyColour('Poaceae'), parcels: 2 }, { name: 'Fabaceae', colour: familyColour('Fabaceae'), parcels: 1 }], bare: 2, unkeyed: 0, others: 0 });
    const many = Array.from({ length: LEGEND_MAX + 3 }, (_, i) => ({ name: `Crop ${String(i).padStart(2, '0')}`, family: null }));
    const m = cropLegend(many, 'crop');
    expect([m.legend.length, m.others]).toEqual([LEGEND_MAX, 3]);
  });
});
