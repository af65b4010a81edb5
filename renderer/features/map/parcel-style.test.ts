import { describe, expect, it } from 'vitest';
import Feature from 'ol/Feature.js';
import type { Style } from 'ol/style.js';
import { LABEL_RESOLUTION, parcelStyle, rgba, selectedStyle } from './parcel-style.ts';
import { familyColour, NO_CROP_COLOUR } from '../../../core/crops/family-colours.ts';
import { stateColor } from '../../states.ts';

const parcel = (state: string, name = 'North block with a long name') => new Feature({ state, name });

describe('parcel labels', () => {
  it('names every parcel at field scale, none above it', () => {
    const style = parcelStyle();
    expect((style(parcel('synced'), LABEL_RESOLUTION / 2) as Style).getText()!.getText()).toBe('North block with a long name');
    expect((style(parcel('synced'), LABEL_RESOLUTION * 2) as Style).getText()!.getText()).toBe('');
  });

  it('lets the name of a parcel with unsynced work overflow its shape; a synced one keeps inside it', () => {
    const style = parcelStyle();
    for (const state of ['pending', 'sending', 'uncertain', 'rejected', 'conflict', 'blocked']) {
      expect((style(parcel(state), 1) as Style).getText()!.getOverflow(), state).toBe(true);
    }
    expect((style(parcel('synced'), 1) as Style).getText()!.getOverflow()).toBe(false);
  });

  it('names the selected parcel however narrow it is', () => {
    const text = selectedStyle()(parcel('synced', 'Strip 3')).getText()!;
    expect(text.getText()).toBe('Strip 3');
    expect(text.getOverflow()).toBe(true);
  });
});

describe('parcels coloured by crop', () => {
  const fill = (s: Style) => s.getFill()!.getColor();

  it('fills a parcel with its family colour, and one without an active crop grey whatever its sync state', () => {
    const style = parcelStyle(() => 'family');
    const wheat = parcel('pending');
    wheat.set('crop', { name: 'Wheat', family: 'Poaceae' });
    expect(fill(style(wheat, 1) as Style)).toBe(rgba(familyColour('Poaceae'), 0.6));
    for (const state of ['pending', 'synced', 'rejected']) {
      const bare = parcel(state);
      bare.set('crop', null);
      // Never the sync state's fill: a pending parcel's pale yellow read as cereals.
      expect(fill(style(bare, 1) as Style), state).toBe(rgba(NO_CROP_COLOUR, 0.35));
      expect(fill(style(bare, 1) as Style), state).not.toBe(rgba(stateColor(state), 0.2));
    }
  });

  it('keeps the selected parcel its crop colour: no state colour laid over it', () => {
    const wheat = parcel('pending');
    wheat.set('crop', { name: 'Wheat', family: 'Poaceae' });
    expect(fill(selectedStyle(() => 'family')(wheat))).toBe(rgba(familyColour('Poaceae'), 0.5));
    expect(fill(selectedStyle(() => 'state')(wheat))).toBe(rgba(stateColor('pending'), 0.5));
  });
});
