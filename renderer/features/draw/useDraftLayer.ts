// The shape waiting to be saved: the finished polygon, or the hectare point's square (core's checkPoint, the square
// the service will make), on a layer of its own above the parcels until it is saved or discarded. A finished polygon
// can still be changed: its vertices dragged (snapping to the parcels, as Draw did), which a polygon that crosses
// itself needs — where it crosses is marked in red, and once the user chose to split it, its parts are shown instead.
// The layers and interactions are added in effects and removed in their cleanup; the sources are this hook's, never
// the store's, which gets the ring as [lon, lat].
import { useEffect, useState, type RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import Feature from 'ol/Feature.js';
import VectorLayer from 'ol/layer/Vector.js';
import VectorSource from 'ol/source/Vector.js';
import Polygon from 'ol/geom/Polygon.js';
import Point from 'ol/geom/Point.js';
import MultiPoint from 'ol/geom/MultiPoint.js';
import type { FeatureLike } from 'ol/Feature.js';
import Modify from 'ol/interaction/Modify.js';
import { Circle, Fill, Stroke, Style } from 'ol/style.js';
import { fromLonLat, toLonLat } from 'ol/proj.js';
import { crossingsOf } from '../../../core/parcels/fix-polygon.ts';
import { set, useApp, type Position2 } from '../../store.ts';
import { closeRing, pointPreview } from '../../preview.ts';
import { parcelSnap } from '../map/snap.ts';
import { draftStyle } from './draft-style.ts';
import { useDraftFix, useSplit } from './fix-store.ts';

/** Where the ring crosses itself: a red ring with a white middle, above the shape. */
const CROSSING = new Style({ image: new Circle({ radius: 9, fill: new Fill({ color: '#ffffffaa' }), stroke: new Stroke({ color: '#d32f2f', width: 3 }) }) });

/** A finished polygon's vertices drawn as handles, as Modify draws a parcel's: they can be grabbed. */
function finishedStyle(f: FeatureLike): Style | Style[] | undefined {
  const style = draftStyle(f);
  const g = f.getGeometry();
  const { mode, drawn, draft } = useApp.getState();
  // Split, its parts are saved as they are: nothing to grab.
  if (!style || mode !== 'draw' || !drawn || useDraftFix.getState().splitOf === draft || !(g instanceof Polygon)) return style;
  const color = style.getStroke()?.getColor() ?? '#0097a7';
  return [style, new Style({
    image: new Circle({ radius: 4, fill: new Fill({ color: '#fff' }), stroke: new Stroke({ color: color as string, width: 2 }) }),
    geometry: () => new MultiPoint(g.getCoordinates()[0] ?? []),
  })];
}

export function useDraftLayer(map: RefObject<OlMap | null>, parcels: VectorSource): void {
  const [draft] = useState(() => new VectorSource());
  const [marks] = useState(() => new VectorSource());
  // The [lon, lat] each map coordinate of the shown ring was made from: a vertex nobody moves keeps its exact value
  // (a typed one as typed), the projection there and back being inexact.
  const [exact] = useState(() => new Map<string, Position2>());
  const mode = useApp((s) => s.mode);
  const drawn = useApp((s) => s.drawn);
  const ring = useApp((s) => s.draft);
  const point = useApp((s) => s.point);
  const pointHectares = useApp((s) => s.pointHectares);
  const limit = useApp((s) => s.account?.parcelLimit ?? Infinity);
  const split = useSplit();

  // Added after the parcel layers, without a zIndex: drawn above the parcels, below the plants (10) and an import's
  // invalid shapes (20); the crossings above them all.
  useEffect(() => {
    const m = map.current;
    if (!m) return;
    const layer = new VectorLayer({ source: draft, style: finishedStyle });
    const crossings = new VectorLayer({ source: marks, style: CROSSING, zIndex: 21 });
    m.addLayer(layer);
    m.addLayer(crossings);
    return () => { m.removeLayer(crossings); m.removeLayer(layer); };
  }, [map, draft, marks]);

  useEffect(() => {
    draft.clear();
    marks.clear();
    exact.clear();
    if (drawn && split) {
      for (const part of split) draft.addFeature(new Feature(new Polygon([closeRing(part).map((p) => fromLonLat(p))])));
    } else if (drawn && ring.length >= 3) {
      const coords = closeRing(ring).map((p) => {
        const c = fromLonLat(p);
        exact.set(`${c[0]},${c[1]}`, p);
        return c;
      });
      draft.addFeature(new Feature(new Polygon([coords])));
      for (const at of crossingsOf(ring)) marks.addFeature(new Feature(new Point(fromLonLat(at))));
    }
    if (mode === 'point' && point) {
      const { square } = pointPreview(point, pointHectares, limit);
      if (square) draft.addFeature(new Feature(new Polygon(square.map((r) => r.map((p) => fromLonLat(p))))));
    }
  }, [draft, marks, exact, drawn, ring, mode, point, pointHectares, limit, split]);

  // Finished, not split: its vertices can be dragged (an edge dragged adds one, Alt+click removes one), snapping to
  // the parcels. The ring goes to the store when a drag ends.
  useEffect(() => {
    const m = map.current;
    if (!m || mode !== 'draw' || !drawn || split) return;
    const modify = new Modify({ source: draft, pixelTolerance: 8 });
    modify.on('modifyend', (e) => {
      const g = e.features.item(0)?.getGeometry();
      if (!(g instanceof Polygon)) return;
      set({ draft: (g.getCoordinates()[0] ?? []).slice(0, -1).map((c) => exact.get(`${c[0]},${c[1]}`) ?? (toLonLat(c) as Position2)) });
    });
    const { snap, dispose } = parcelSnap(parcels);
    m.addInteraction(modify);
    m.addInteraction(snap);
    return () => { dispose(); m.removeInteraction(snap); m.removeInteraction(modify); };
  }, [map, draft, exact, parcels, mode, drawn, split]);
}
