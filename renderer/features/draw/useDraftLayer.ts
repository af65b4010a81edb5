// The shape waiting to be saved: the finished polygon, or the hectare point's square (core's checkPoint, the square
// the service will make), on a layer of its own above the parcels until it is saved or discarded. The layer is added
// in an effect and removed in its cleanup; its source is this hook's, never the store's.
import { useEffect, useState, type RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import Feature from 'ol/Feature.js';
import VectorLayer from 'ol/layer/Vector.js';
import VectorSource from 'ol/source/Vector.js';
import Polygon from 'ol/geom/Polygon.js';
import { fromLonLat } from 'ol/proj.js';
import { useApp } from '../../store.ts';
import { closeRing, pointPreview } from '../../preview.ts';
import { draftStyle } from './draft-style.ts';

export function useDraftLayer(map: RefObject<OlMap | null>): void {
  const [draft] = useState(() => new VectorSource());
  const mode = useApp((s) => s.mode);
  const drawn = useApp((s) => s.drawn);
  const ring = useApp((s) => s.draft);
  const point = useApp((s) => s.point);
  const pointHectares = useApp((s) => s.pointHectares);
  const limit = useApp((s) => s.account?.parcelLimit ?? Infinity);

  // Added after the parcel layers, without a zIndex: drawn above the parcels, below the plants (10) and an import's
  // invalid shapes (20).
  useEffect(() => {
    const m = map.current;
    if (!m) return;
    const layer = new VectorLayer({ source: draft, style: draftStyle });
    m.addLayer(layer);
    return () => { m.removeLayer(layer); };
  }, [map, draft]);

  useEffect(() => {
    draft.clear();
    if (drawn && ring.length >= 3) draft.addFeature(new Feature(new Polygon([closeRing(ring).map((p) => fromLonLat(p))])));
    if (mode === 'point' && point) {
      const { square } = pointPreview(point, pointHectares, limit);
      if (square) draft.addFeature(new Feature(new Polygon(square.map((r) => r.map((p) => fromLonLat(p))))));
    }
  }, [draft, drawn, ring, mode, point, pointHectares, limit]);
}
