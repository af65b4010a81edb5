// Modify on the map: a copy of the parcel's shape on a layer of its own, its vertices dragged with OpenLayers' Modify
// (a click on an edge adds one, Alt+click removes one), the whole shape moved by dragging its inside (Translate),
// both snapping to the neighbouring parcels. The copy's rings go to the edit store as they change, for the live
// hectares and problems of the panel; Enter saves, Esc cancels. Added in an effect, removed in its cleanup.
import { useEffect, type RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import Feature from 'ol/Feature.js';
import Collection from 'ol/Collection.js';
import VectorLayer from 'ol/layer/Vector.js';
import VectorSource from 'ol/source/Vector.js';
import Modify from 'ol/interaction/Modify.js';
import Translate from 'ol/interaction/Translate.js';
import Polygon from 'ol/geom/Polygon.js';
import MultiPoint from 'ol/geom/MultiPoint.js';
import { unByKey } from 'ol/Observable.js';
import { Circle, Fill, Stroke, Style } from 'ol/style.js';
import { fromLonLat, toLonLat } from 'ol/proj.js';
import type { FeatureLike } from 'ol/Feature.js';
import { useApi } from '../../context.ts';
import { useApp, type Position2 } from '../../store.ts';
import { closeRing } from '../../preview.ts';
import { setEdit, useEdit } from './edit-store.ts';
import { cancelModify, saveModify } from './actions.ts';
import { parcelSnap } from '../map/snap.ts';
import { shapeHectares, type Rings } from './shape.ts';
import { isField, ownsEnter } from '../../keys.ts';
import { behindPanel } from '../../keymap.ts';
import { crossingsOf } from '../../../core/parcels/fix-polygon.ts';

/** Where the outline crosses itself, marked as the drawing's are (features/draw/useDraftLayer.ts). */
const CROSSING = new Circle({ radius: 9, fill: new Fill({ color: '#ffffffaa' }), stroke: new Stroke({ color: '#d32f2f', width: 3 }) });

/**
 * The copy's rings as [lon, lat]. A vertex still where it was put (the parcel's own, or typed) keeps its exact
 * [lon, lat]: Web Mercator there and back is not exact in floating point, and a vertex nobody moved, or one typed from
 * a survey, must reach the service as it was.
 */
function ringsOf(g: Polygon, exact: Map<string, Position2>): Rings {
  return g.getCoordinates().map((ring) => ring.slice(0, -1).map((c) => exact.get(`${c[0]},${c[1]}`) ?? (toLonLat(c) as Position2)));
}

/** Remembers where each of these [lon, lat] vertices lies on the map, for ringsOf. */
function remember(exact: Map<string, Position2>, rings: Rings): number[][][] {
  return rings.map((ring) => closeRing(ring).map((p) => {
    const c = fromLonLat(p);
    exact.set(`${c[0]},${c[1]}`, p);
    return c;
  }));
}

/**
 * Cyan as Draw's draft, red and dashed above the account's limit; the vertices drawn as handles to grab; where the
 * outline crosses itself marked in red.
 */
function modifyStyle(f: FeatureLike): Style[] {
  const limit = useApp.getState().account?.parcelLimit ?? Infinity;
  const { rings } = useEdit.getState();
  const over = shapeHectares(rings) > limit;
  const crossings = crossingsOf(rings[0] ?? []);
  const color = over ? '#d32f2f' : '#0097a7';
  const g = f.getGeometry();
  return [
    new Style({ fill: new Fill({ color: `${color}33` }), stroke: new Stroke({ color, width: 2, lineDash: over ? [6, 4] : undefined }) }),
    new Style({
      image: new Circle({ radius: 4, fill: new Fill({ color: '#fff' }), stroke: new Stroke({ color, width: 2 }) }),
      geometry: () => new MultiPoint(g instanceof Polygon ? g.getCoordinates().flat() : []),
    }),
    ...(crossings.length ? [new Style({ image: CROSSING, geometry: new MultiPoint(crossings.map((p) => fromLonLat(p))) })] : []),
  ];
}

/** Called once in MapView with its map and the parcels' source (for snapping). */
export function useModify(map: RefObject<OlMap | null>, parcels: VectorSource): void {
  const api = useApi();
  const mode = useApp((s) => s.mode);
  const id = useEdit((s) => s.editing?.id ?? null);

  useEffect(() => {
    const m = map.current;
    const editing = useEdit.getState().editing;
    if (!m || mode !== 'modify' || !id || !editing) return;
    const exact = new Map<string, Position2>();
    const geometry = new Polygon(remember(exact, editing.original));
    const feature = new Feature(geometry);
    const layer = new VectorLayer({ source: new VectorSource({ features: [feature] }), style: modifyStyle, zIndex: 10 });
    const features = new Collection([feature]);
    // Translate first: Modify, added after, sees a press first and takes it when it is near a vertex or an edge;
    // Snap, last, moves the pointer onto a neighbour before either reads it.
    const translate = new Translate({ features });
    const modify = new Modify({ features, pixelTolerance: 8 });
    const { snap, dispose } = parcelSnap(parcels, id);
    const onChange = geometry.on('change', () => setEdit({ rings: ringsOf(geometry, exact) }));
    // Vertices typed in the panel (VertexTable.tsx) move the copy as a drag would.
    const typed = useEdit.subscribe((s, prev) => {
      if (s.typed !== prev.typed) geometry.setCoordinates(remember(exact, s.rings));
    });
    const onKey = (e: KeyboardEvent) => {
      const t = e.target;
      if (isField(t) || behindPanel()) return;
      if (e.key === 'Enter' && !ownsEnter(t)) { e.preventDefault(); void saveModify(api); }
      else if (e.key === 'Escape') { e.preventDefault(); cancelModify(); }
    };
    m.addLayer(layer);
    m.addInteraction(translate);
    m.addInteraction(modify);
    m.addInteraction(snap);
    document.addEventListener('keydown', onKey);
    // Says on the map's element that its shape can now be dragged: the panel reads "Modifying …" one render before
    // this effect runs (the parcel arrives asynchronously, so React runs it after a paint, and Chromium handles input
    // first), and a drag in between pans the map instead (an end-to-end test lost its drag that way on a busy CI).
    const target = m.getTargetElement();
    target?.setAttribute('data-modifying', id);
    return () => {
      target?.removeAttribute('data-modifying');
      typed();
      document.removeEventListener('keydown', onKey);
      unByKey(onChange);
      dispose();
      m.removeInteraction(snap);
      m.removeInteraction(modify);
      m.removeInteraction(translate);
      m.removeLayer(layer);
    };
  }, [api, map, parcels, mode, id]);
}
