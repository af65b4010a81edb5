// The map labels' font (map-font.ts): canvas fonts naming Noto Sans first, the system's sans-serif after; its faces
// loaded once per document, the answer false where the font cannot load in time (the labels then fall back). That
// the built page really loads it from its own origin: test/e2e/app-layer-files.test.ts.
import { describe, expect, it } from 'vitest';
import { FONT_WAIT_MS, MAP_FONT_FAMILY, mapFont, mapFontLoaded } from './map-font.ts';
import { GRATICULE_FONT } from './graticule.ts';

/** The few members of a document's FontFaceSet that mapFontLoaded uses: node has no document (Chromium's: the e2e test). */
function faceSet(load: (font: string, text: string) => Promise<unknown[]>) {
  const asked: string[] = [];
  return { asked, set: { load: (font: string, text: string) => { asked.push(`${font}|${text}`); return load(font, text); } } as unknown as FontFaceSet };
}

describe('the map font', () => {
  it('names Noto Sans first in every label font', () => {
    expect(MAP_FONT_FAMILY).toBe('"Noto Sans", system-ui, sans-serif');
    expect(mapFont(12)).toBe('12px "Noto Sans", system-ui, sans-serif');
    expect(mapFont(10, true)).toBe('bold 10px "Noto Sans", system-ui, sans-serif');
    expect(GRATICULE_FONT).toBe(mapFont(12));
  });

  it('loads regular and bold, Latin and Latin Extended, once per document; false where it cannot in time or there is no document', async () => {
    const ok = faceSet(async () => [{}]);
    expect(await mapFontLoaded(ok.set)).toBe(true);
    expect(await mapFontLoaded(ok.set)).toBe(true);
    expect(ok.asked).toEqual(['12px "Noto Sans"|Aañł', 'bold 12px "Noto Sans"|Aañł']);
    // No face matched (the stylesheet missing): false.
    expect(await mapFontLoaded(faceSet(async () => []).set)).toBe(false);
    // Never loading: false after the wait, the labels not held back for ever.
    expect(await mapFontLoaded(faceSet(() => new Promise(() => {})).set, 50)).toBe(false);
    expect(await mapFontLoaded(undefined)).toBe(false);
    expect(FONT_WAIT_MS).toBeLessThanOrEqual(3000);
  });
});
