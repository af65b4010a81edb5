// Fits the map to the box the store asks for (zoom to parcel, to the selection, to a search result, to a filter's
// matches). The store holds the [lon, lat] box; the view is the map's. The room left around it follows what covers
// the map at that moment (fit-padding.ts).
import { useEffect, type RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import { transformExtent } from 'ol/proj.js';
import { buffer, getHeight, getWidth, type Extent } from 'ol/extent.js';
import { useBrowse } from '../browse-store.ts';
import { coveringBoxes } from '../map/covering.ts';
import { fitPadding, type Padding } from './fit-padding.ts';

/** The closest a fit goes. */
const MAX_ZOOM = 18;
/** A point, or a parcel a few metres wide, still gets a field's worth of map around it. */
const MIN_SIZE_M = 150;
/** What a fit keeps clear: what stays over the map (not the cursor's coordinates, there only while the pointer is). */
const FIT_COVERING = ['.legend', '.filter-banner', '.layers-control', '.ol-zoom', '.ol-scale-line', '.parcel-table'];

/** Web Mercator's resolution at zoom 0 (m/pixel): a maxZoom's is this / 2^zoom. */
const RESOLUTION_0 = 156_543.033_928_040_97;

/**
 * The padding a fit of `map` to `extent` (map units), no closer than `maxZoom`, needs now, for what covers the map
 * where it would land; `margin`: the room all round at most.
 */
export function mapFitPadding(map: OlMap, extent: Extent, maxZoom: number, margin?: number): Padding {
  const [width, height] = (map.getSize() ?? [0, 0]) as [number, number];
  return fitPadding(width, height, coveringBoxes(map, FIT_COVERING), { size: [getWidth(extent), getHeight(extent)], minResolution: RESOLUTION_0 / 2 ** maxZoom }, margin);
}

export function useFitTo(map: RefObject<OlMap | null>) {
  const fitTo = useBrowse((s) => s.fitTo);
  useEffect(() => {
    const m = map.current;
    if (!m || !fitTo) return;
    let extent = transformExtent(fitTo.bbox, 'EPSG:4326', 'EPSG:3857');
    const short = MIN_SIZE_M - Math.min(getWidth(extent), getHeight(extent));
    if (short > 0) extent = buffer(extent, short / 2);
    // A parcel or a search result gets the 60 px around it it always had, where nothing covers the map there.
    m.getView().fit(extent, { padding: mapFitPadding(m, extent, MAX_ZOOM, 60), maxZoom: MAX_ZOOM, duration: 250 });
  }, [map, fitTo]);
}
