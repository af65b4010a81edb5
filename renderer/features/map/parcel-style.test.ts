import { describe, expect, it } from 'vitest';
import Feature from 'ol/Feature.js';
import type { Style } from 'ol/style.js';
import { LABEL_RESOLUTION, parcelStyle, selectedStyle } from './parcel-style.ts';

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
    const text = selectedStyle(parcel('synced', 'Strip 3')).getText()!;
    expect(text.getText()).toBe('Strip 3');
    expect(text.getOverflow()).toBe(true);
  });
});
