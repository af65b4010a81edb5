// The map's side of Go to coordinate: centred on the place (zoomed in to field scale when further out), with a marker
// there for a minute or until the next place. The layer is added in an effect and removed in its cleanup.
import { useEffect, type RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import Feature from 'ol/Feature.js';
import Point from 'ol/geom/Point.js';
import VectorLayer from 'ol/layer/Vector.js';
import VectorSource from 'ol/source/Vector.js';
import { Circle, Fill, RegularShape, Stroke, Style } from 'ol/style.js';
import { fromLonLat } from 'ol/proj.js';
import { useGoTo } from './goto-store.ts';

/** How long the marker stays: long enough to find it again after looking away. */
export const MARKER_MS = 60_000;
/** Field scale: a place gone to from further out is shown at this zoom. */
const ZOOM = 17;

const MARKER = [
  new Style({ image: new Circle({ radius: 11, stroke: new Stroke({ color: '#fff', width: 5 }) }) }),
  new Style({ image: new Circle({ radius: 11, stroke: new Stroke({ color: '#c2185b', width: 2.5 }), fill: new Fill({ color: '#c2185b22' }) }) }),
  new Style({ image: new RegularShape({ points: 4, radius: 7, radius2: 0, angle: 0, stroke: new Stroke({ color: '#c2185b', width: 2 }) }) }),
];

export function useGoToMarker(map: RefObject<OlMap | null>): void {
  const target = useGoTo((s) => s.target);
  useEffect(() => {
    const m = map.current;
    if (!m || !target) return;
    const at = fromLonLat(target.pos);
    const source = new VectorSource({ features: [new Feature(new Point(at))] });
    const layer = new VectorLayer({ source, style: MARKER, zIndex: 30 });
    m.addLayer(layer);
    const view = m.getView();
    view.animate({ center: at, zoom: Math.max(view.getZoom() ?? ZOOM, ZOOM), duration: 300 });
    const t = setTimeout(() => m.removeLayer(layer), MARKER_MS);
    return () => { clearTimeout(t); m.removeLayer(layer); };
  }, [map, target]);
}
