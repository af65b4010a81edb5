import { describe, expect, it } from 'vitest';
import { printLegend } from './print-legend.ts';
import { NO_CROP_COLOUR } from '../../../core/crops/family-colours.ts';

const states = [{ state: 'synced', label: 'Synced', color: '#2e7d32' }, { state: 'pending', label: 'Pending', color: '#b26b00' }];

describe("a print's legend", () => {
  it('is the sync states when the map is coloured by them', () => {
    expect(printLegend('state', states, [], () => '#000000', 3)).toEqual([
      { key: 'synced', label: 'Synced', colour: '#2e7d32' }, { key: 'pending', label: 'Pending', colour: '#b26b00' },
    ]);
  });
  it("is the families or crops shown, in the account's colours, and no active crop when some have none", () => {
    const crops = [{ name: 'Poaceae', colour: '#111111', parcels: 4 }, { name: 'Oleaceae', colour: '#222222', parcels: 2 }];
    const colourOf = (n: string) => (n === 'Poaceae' ? '#aa0000' : '#00aa00');
    expect(printLegend('family', states, crops, colourOf, 2)).toEqual([
      { key: 'Poaceae', label: 'Poaceae', colour: '#aa0000' }, { key: 'Oleaceae', label: 'Oleaceae', colour: '#00aa00' },
      { key: null, label: 'No active crop', colour: NO_CROP_COLOUR },
    ]);
    expect(printLegend('crop', states, crops, colourOf, 0)).toHaveLength(2);
    // Active crops with no family share the grey key with parcels with no active crop, and its label says both.
    expect(printLegend('family', states, [], colourOf, 2, 3)).toEqual([{ key: null, label: 'No active crop, or no family', colour: NO_CROP_COLOUR }]);
    expect(printLegend('family', states, [], colourOf, 0, 3)).toEqual([{ key: null, label: 'Crop with no family', colour: NO_CROP_COLOUR }]);
  });
});
