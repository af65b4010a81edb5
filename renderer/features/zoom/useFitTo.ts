// Fits the map to the box the store asks for (zoom to parcel, to the selection, to a search result, to a filter's
// matches). The store holds the [lon, lat] box; the view is the map's.
import { useEffect, type RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import { transformExtent } from 'ol/proj.js';
import { buffer, getHeight, getWidth } from 'ol/extent.js';
import { useBrowse } from '../browse-store.ts';

/** A point, or a parcel a few metres wide, still gets a field's worth of map around it. */
const MIN_SIZE_M = 150;

export function useFitTo(map: RefObject<OlMap | null>) {
  const fitTo = useBrowse((s) => s.fitTo);
  useEffect(() => {
    const m = map.current;
    if (!m || !fitTo) return;
    let extent = transformExtent(fitTo.bbox, 'EPSG:4326', 'EPSG:3857');
    const short = MIN_SIZE_M - Math.min(getWidth(extent), getHeight(extent));
    if (short > 0) extent = buffer(extent, short / 2);
    m.getView().fit(extent, { padding: [60, 60, 60, 60], maxZoom: 18, duration: 250 });
  }, [map, fitTo]);
}
