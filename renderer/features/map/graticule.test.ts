// The graticule's labels: the interval's target keeps two longitude labels apart, and a label is drawn only whole
// inside the map, off the zoom buttons, and (a latitude's) below the row of longitudes.
import { describe, expect, it } from 'vitest';
import { graticuleTarget, labelFits } from './graticule.ts';

describe('the graticule', () => {
  it('spaces its meridians wider than the widest label: OpenLayers keeps them targetSize / √2 apart at least', () => {
    for (const widest of [70, 95, 120]) expect(graticuleTarget(widest) / Math.SQRT2).toBeGreaterThanOrEqual(widest + 10);
  });

  it('draws a label only whole inside the map and off what keeps labels off', () => {
    const zoom: [number, number, number, number] = [8, 8, 40, 70];
    expect(labelFits([100, 0, 180, 21], 960, 700, [zoom], false)).toBe(true);
    // Cut at the left or right edge, or under the zoom buttons: left out.
    expect(labelFits([-20, 0, 60, 21], 960, 700, [], false)).toBe(false);
    expect(labelFits([900, 0, 980, 21], 960, 700, [], false)).toBe(false);
    expect(labelFits([20, 0, 100, 21], 960, 700, [zoom], false)).toBe(false);
    // A latitude's: not in the longitudes' row, nor cut at the bottom.
    expect(labelFits([860, 5, 945, 25], 960, 700, [], true)).toBe(false);
    expect(labelFits([860, 40, 945, 60], 960, 700, [], true)).toBe(true);
    expect(labelFits([860, 690, 945, 710], 960, 700, [], true)).toBe(false);
  });
});
