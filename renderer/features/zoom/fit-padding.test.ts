// A fit's room around what it shows, from what covers the map: the legend kept clear at 1280 px as at 200 % zoom
// (where the fixed 210 px at the left left a sliver of a 320 px map), the filter banner across the top.
import { describe, expect, it } from 'vitest';
import { fitPadding, fittedBox } from './fit-padding.ts';
import type { Box } from '../map/label-placement.ts';

const zoom: Box = [8, 8, 40, 70];
const basemap: Box = [8, 80, 88, 105];

describe('fitPadding', () => {
  it('keeps the opened legend clear at 1280 px by its column at the left, whatever its height, and the top controls too', () => {
    const legend: Box = [8, 560, 218, 717];
    const [top, right, bottom, left] = fitPadding(960, 725, [zoom, basemap, legend]);
    // The legend's column is 23 % of the width: the left, which its growing with the crops in view does not change.
    expect(left).toBeGreaterThanOrEqual(218);
    expect(fitPadding(960, 725, [zoom, basemap, [8, 420, 218, 717]])).toEqual([top, right, bottom, left]);
    expect(bottom).toBeLessThan(100);
    expect(top).toBeGreaterThanOrEqual(21);
    expect(right).toBeLessThan(60);
  });

  it('at 200 % keeps the folded legend clear at the bottom and the filter banner at the top, leaving most of the map', () => {
    const legend: Box = [8, 255, 203, 290];
    const banner: Box = [0, 0, 320, 63];
    const [top, right, bottom, left] = fitPadding(320, 315, [zoom, basemap, legend, banner]);
    expect(top).toBeGreaterThanOrEqual(63);
    expect(bottom).toBeGreaterThanOrEqual(315 - 255);
    expect(left + right).toBeLessThanOrEqual(320 * 0.6);
    expect(top + bottom).toBeLessThanOrEqual(315 * 0.6);
    // Centred: never the old 210 px at the left of a 320 px map.
    expect(left).toBeLessThan(120);
  });

  it('never gives more than 60 % of a small map to padding', () => {
    const [top, right, bottom, left] = fitPadding(200, 150, [[0, 0, 200, 80], [0, 90, 150, 150]]);
    expect(top + bottom).toBeLessThanOrEqual(90);
    expect(left + right).toBeLessThanOrEqual(120);
    expect(Math.min(top, right, bottom, left)).toBeGreaterThan(0);
  });

  it('leaves out what is outside the map', () => {
    expect(fitPadding(960, 725, [[-100, -100, -10, -10], [1000, 0, 1100, 50]])).toEqual([40, 40, 40, 40]);
  });

  it('pads only for what the content would lie under: a parcel stays in the middle, a farm filling the map moves off the legend', () => {
    const legend: Box = [8, 560, 218, 717];
    // A small parcel at its closest zoom: in the middle, clear of the legend and the buttons without their room.
    const parcel = { size: [300, 300] as const, minResolution: 0.6 };
    expect(fitPadding(960, 725, [zoom, basemap, legend], parcel)).toEqual([40, 40, 40, 40]);
    expect(fitPadding(960, 725, [zoom, basemap, legend], parcel, 60)).toEqual([60, 60, 60, 60]);
    // A wide farm: it would reach under the legend, so the left is padded, and it lands clear of it.
    const farm = { size: [3000, 1800] as const };
    const padding = fitPadding(960, 725, [zoom, basemap, legend], farm);
    expect(padding[3]).toBeGreaterThanOrEqual(218);
    expect(fittedBox(960, 725, padding, farm)[0]).toBeGreaterThanOrEqual(218);
  });

  it('fits as OpenLayers does: centred in what the padding leaves, as large as it fits', () => {
    expect(fittedBox(1000, 500, [0, 0, 0, 0], { size: [200, 100] })).toEqual([0, 0, 1000, 500]);
    expect(fittedBox(1000, 500, [100, 0, 0, 200], { size: [100, 100] })).toEqual([400, 100, 800, 500]);
    // No closer than its maxZoom: smaller, still centred.
    expect(fittedBox(1000, 500, [0, 0, 0, 0], { size: [100, 100], minResolution: 1 })).toEqual([450, 200, 550, 300]);
  });
});
