import { describe, expect, it } from 'vitest';
import Feature from 'ol/Feature.js';
import type { Style } from 'ol/style.js';
import { parcelStyle, rgba, selectedStyle } from './parcel-style.ts';
import { stateMark } from './state-marks.ts';
import { familyColour, NO_CROP_COLOUR } from '../../../core/crops/family-colours.ts';
import { stateColor } from '../../states.ts';
import RenderFeature from 'ol/render/Feature.js';
import { tileStyle } from './parcel-tile-layer.ts';

const parcel = (state: string, name = 'North block with a long name') => new Feature({ state, name });

/** Hatches as text, so the styles can be read in Node (the map's are canvas patterns). */
const hatchText = (hatch: string, color: string) => `hatch ${hatch} ${color}`;

describe('parcels marked by sync state', () => {
  const outline = (styles: Style[]) => styles.at(-1)!.getStroke()!;

  it('draws each state with its own dashes and hatch, in its colour, the hatch over the fill and under the outline', () => {
    const style = parcelStyle(() => 'state', undefined, hatchText);
    for (const state of ['synced', 'pending', 'sending', 'uncertain', 'rejected', 'conflict', 'blocked']) {
      const styles = style(parcel(state)) as Style[];
      const mark = stateMark(state);
      expect(outline(styles).getColor(), state).toBe(stateColor(state));
      expect(outline(styles).getLineDash() ?? null, state).toEqual(mark.dash);
      expect(styles.slice(0, -1).map((s) => s.getFill()?.getColor()), state).toEqual([
        rgba(stateColor(state), 0.2), ...(mark.hatch ? [hatchText(mark.hatch, stateColor(state))] : []),
      ]);
    }
    expect(outline(style(parcel('pending')) as Style[]).getLineDash()).toEqual([7, 4]);
    expect(outline(style(parcel('synced')) as Style[]).getLineDash()).toBeNull();
    expect((style(parcel('rejected')) as Style[])[1]!.getFill()!.getColor()).toBe(hatchText('diagonal', stateColor('rejected')));
  });

  it('keeps the hatch over a crop colour: a rejected parcel on a crop map is still hatched', () => {
    const style = parcelStyle(() => 'family', undefined, hatchText);
    const wheat = parcel('rejected');
    wheat.set('crop', { name: 'Wheat', family: 'Poaceae' });
    const styles = style(wheat) as Style[];
    expect(styles.slice(0, -1).map((s) => s.getFill()?.getColor())).toEqual([rgba(familyColour('Poaceae'), 0.6), hatchText('diagonal', stateColor('rejected'))]);
    expect(outline(styles).getColor()).toBe(stateColor('rejected'));
  });
});

describe('parcels coloured by crop', () => {
  const fill = (s: Style | Style[]) => (Array.isArray(s) ? s[0]! : s).getFill()!.getColor();

  it('fills a parcel with its family colour, and one without an active crop grey whatever its sync state', () => {
    const style = parcelStyle(() => 'family', undefined, hatchText);
    const wheat = parcel('pending');
    wheat.set('crop', { name: 'Wheat', family: 'Poaceae' });
    expect(fill(style(wheat) as Style[])).toBe(rgba(familyColour('Poaceae'), 0.6));
    for (const state of ['pending', 'synced', 'rejected']) {
      const bare = parcel(state);
      bare.set('crop', null);
      // Never the sync state's fill: a pending parcel's pale yellow read as cereals.
      expect(fill(style(bare) as Style[]), state).toBe(rgba(NO_CROP_COLOUR, 0.35));
      expect(fill(style(bare) as Style[]), state).not.toBe(rgba(stateColor(state), 0.2));
    }
  });

  it('keeps the selected parcel its crop colour: no state colour laid over it', () => {
    const wheat = parcel('pending');
    wheat.set('crop', { name: 'Wheat', family: 'Poaceae' });
    expect(fill(selectedStyle(() => 'family')(wheat))).toBe(rgba(familyColour('Poaceae'), 0.5));
    expect(fill(selectedStyle(() => 'state')(wheat))).toBe(rgba(stateColor('pending'), 0.5));
  });
});

describe("the tiles' sub-pixel parcels", () => {
  it('are squares of about 3 px at the tile\'s resolution in their state\'s colour, as polygons (drawn into the tile\'s image), not an image style redrawn every frame', () => {
    const style = tileStyle(() => 'state', (_by, key) => familyColour(key));
    const dot = new RenderFeature('Point', [1000, 2000], [], 2, { state: 'pending' }, 'p1');
    const s = style(dot, 10) as Style;
    expect(s.getImage()).toBeNull();
    expect(s.getFill()!.getColor()).toBe(rgba(stateColor('pending'), 0.9));
    const square = (s.getGeometryFunction())(dot) as RenderFeature;
    expect(square.getType()).toBe('Polygon');
    expect(square.getExtent()).toEqual([985, 1985, 1015, 2015]);
    // One style a colour and resolution.
    expect(style(new RenderFeature('Point', [0, 0], [], 2, { state: 'pending' }, 'p3'), 10)).toBe(s);
    // Polygons keep the parcel layers' styles.
    const field = new RenderFeature('Polygon', [0, 0, 10, 0, 10, 10, 0, 0], [8], 2, { state: 'synced' }, 'p2');
    expect((style(field, 10) as Style[]).at(-1)!.getStroke()!.getColor()).toBe(stateColor('synced'));
  });
});
