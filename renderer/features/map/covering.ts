// What covers the map (the legend, the filter banner, the layers panel, the zoom buttons, the scale line, the
// cursor's coordinates while the pointer is on the map, the measure and go-to buttons and panels, the position
// control and its readout, the layers' credits), as boxes in the map's pixels: parcel names keep off them
// (parcel-labels.ts), so do the graticule's labels (graticule.ts), and a fit leaves room for them
// (features/zoom/fit-padding.ts).
import type OlMap from 'ol/Map.js';
import type { Box } from './label-placement.ts';

export const COVERING = [
  '.legend', '.filter-banner', '.layers-control', '.ol-zoom', '.ol-scale-line', '.cursor-position',
  '.map-tool-buttons', '.map-tools', '.position-control', '.position-readout', '.ol-attribution', '.parcel-table',
];

/** The boxes of what matches `selectors` and is shown, in the pixels of `map`'s viewport. */
export function coveringBoxes(map: OlMap, selectors: readonly string[] = COVERING): Box[] {
  const viewport = map.getViewport()?.getBoundingClientRect();
  if (!viewport) return [];
  return selectors.flatMap((sel) => [...document.querySelectorAll(sel)]).flatMap((el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? [[r.left - viewport.left, r.top - viewport.top, r.right - viewport.left, r.bottom - viewport.top] as Box] : [];
  });
}
