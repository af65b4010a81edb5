// The basemap's tile layer on the map, below everything else, while a basemap is chosen: added in an effect and
// removed in its cleanup. Tile errors are counted, never thrown or logged: offline, the map keeps its parcels and
// graticule and the control shows a quiet hint.
import { useEffect, type RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import TileLayer from 'ol/layer/Tile.js';
import XYZ from 'ol/source/XYZ.js';
import { useBasemap } from './basemap-store.ts';

export function useBasemapLayer(map: RefObject<OlMap | null>): void {
  const url = useBasemap((s) => s.url);
  useEffect(() => {
    const m = map.current;
    if (!m || !url) return;
    // No crossOrigin: tile servers without CORS headers work too; the layer has a canvas of its own (className), so
    // its images never share one with the parcel layers.
    const source = new XYZ({ url: url.trim(), maxZoom: 19, transition: 0 });
    const layer = new TileLayer({ source, className: 'ol-layer basemap-layer', preload: 0 });
    const mark = (unavailable: boolean) => { if (useBasemap.getState().unavailable !== unavailable) useBasemap.setState({ unavailable }); };
    source.on('tileloadend', () => mark(false));
    source.on('tileloaderror', () => mark(true));
    m.getLayers().insertAt(0, layer);
    return () => {
      m.removeLayer(layer);
      layer.dispose();
      mark(false);
    };
  }, [map, url]);
}
