// The font the map's labels are drawn in (parcels' names, the graticule's degrees, a vector tile set's place and road
// names): Noto Sans, bundled with the page (renderer/fonts/noto-sans.css; nothing fetched from elsewhere), so that a
// label reads and measures the same on every computer (label-placement.ts places names by their measured width).
// A canvas draws text in whatever font is loaded at that moment and never draws it again by itself: the page loads
// the font before it shows the map (main.tsx awaits mapFontLoaded), so no label is drawn, nor measured, in a
// fallback first. The system's sans-serif is the fallback only where the font cannot load at all.
import '../../fonts/noto-sans.css';

export const MAP_FONT_FAMILY = '"Noto Sans", system-ui, sans-serif';

/** A canvas font of the map's labels. */
export const mapFont = (size: number, bold = false): string => `${bold ? 'bold ' : ''}${size}px ${MAP_FONT_FAMILY}`;

/** The font's faces the labels use (regular, bold): each loaded before the first label. */
const FACES = ['12px "Noto Sans"', 'bold 12px "Noto Sans"'];
/** How long the page waits for the font (it comes from the page's own origin: milliseconds, unless something is wrong). */
export const FONT_WAIT_MS = 3000;

/** Each document's loading, once. */
const loading = new WeakMap<FontFaceSet, Promise<boolean>>();

/**
 * Loads the labels' faces (the Latin and Latin Extended ranges: a label with "ñ" or "ł" has both); true once loaded,
 * false when it could not be within FONT_WAIT_MS (the labels then fall back to the system's font) or where there is
 * no document to load it into. Asked again, the same answer.
 */
export function mapFontLoaded(fonts: FontFaceSet | undefined = globalThis.document?.fonts, waitMs = FONT_WAIT_MS): Promise<boolean> {
  if (!fonts) return Promise.resolve(false);
  const known = loading.get(fonts);
  if (known) return known;
  const load = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), waitMs);
    Promise.all(FACES.map((f) => fonts.load(f, 'Aañł'))).then(
      (found) => { clearTimeout(timer); resolve(found.every((list) => list.length > 0)); },
      () => { clearTimeout(timer); resolve(false); },
    );
  });
  loading.set(fonts, load);
  return load;
}
