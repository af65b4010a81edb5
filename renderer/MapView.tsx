// The map: the account's parcels in view (the backend's `viewport`), coloured by sync state, and drawing. The
// OpenLayers objects live in refs of this component; the store gets plain data only (ids, [lon, lat] vertices).
// Interactions are added in effects and removed in their cleanup, so a mode left behind leaves nothing on the map.
import { useEffect, useRef } from 'react';
import OlMap from 'ol/Map.js';
import View from 'ol/View.js';
import Feature from 'ol/Feature.js';
import VectorLayer from 'ol/layer/Vector.js';
import VectorSource from 'ol/source/Vector.js';
import Graticule from 'ol/layer/Graticule.js';
import GeoJSON from 'ol/format/GeoJSON.js';
import Draw from 'ol/interaction/Draw.js';
import ScaleLine from 'ol/control/ScaleLine.js';
import MousePosition from 'ol/control/MousePosition.js';
import { defaults as defaultControls } from 'ol/control/defaults.js';
import Polygon from 'ol/geom/Polygon.js';
import { Fill, Stroke, Style, Text } from 'ol/style.js';
import { fromLonLat, toLonLat, transformExtent } from 'ol/proj.js';
import { createStringXY } from 'ol/coordinate.js';
import { isEmpty, type Extent } from 'ol/extent.js';
import { unByKey } from 'ol/Observable.js';
import type { FeatureLike } from 'ol/Feature.js';
import type { EventsKey } from 'ol/events.js';
import { useApi } from './context.ts';
import { largestFarm, set, stopDrawing, useApp, type Position2 } from './store.ts';
import { stateColor } from './states.ts';
import { closeRing, draftHectares, pointPreview } from './preview.ts';
// Browsing's additions (filter, zoom to, plants, hover names): hooks of their own beside the parcel layer.
import { hasFilter, useBrowse } from './features/browse-store.ts';
import { useFitTo } from './features/zoom/useFitTo.ts';
import { usePlantsLayer } from './features/plants/usePlantsLayer.ts';
import { useHoverName } from './features/hover/useHoverName.ts';
import { useModify } from './features/edit/useModify.ts';
import { parcelSnap } from './features/edit/snap.ts';

const geojson = new GeoJSON({ dataProjection: 'EPSG:4326', featureProjection: 'EPSG:3857' });
/** At most this many parcels drawn at once; beyond, the legend says to zoom in (a WebGL layer is issue 13's next step). */
const LIMIT = 5000;
const WORLD: [number, number, number, number] = [-180, -85, 180, 85];

const ringOf = (g: Polygon): Position2[] => (g.getCoordinates()[0] ?? []).slice(0, -1).map((c) => toLonLat(c) as Position2);

function parcelStyle(selected: () => string | null) {
  const cache = new Map<string, Style>();
  return (f: FeatureLike, resolution: number) => {
    const state = String(f.get('state'));
    const isSelected = f.getId() === selected();
    const key = `${state}|${isSelected}`;
    let s = cache.get(key);
    if (!s) {
      const color = stateColor(state);
      s = new Style({
        fill: new Fill({ color: `${color}${isSelected ? '66' : '33'}` }),
        stroke: new Stroke({ color: isSelected ? '#111' : color, width: isSelected ? 3 : 1.5 }),
        text: new Text({ font: '12px system-ui, sans-serif', fill: new Fill({ color: '#222' }), stroke: new Stroke({ color: '#fff', width: 3 }), overflow: false }),
      });
      cache.set(key, s);
    }
    // Names only where they fit: at field scale, not when a region's parcels would stack their labels.
    s.getText()!.setText(resolution < 25 ? String(f.get('name')) : '');
    return s;
  };
}

/**
 * What is being drawn or dropped, not yet saved: a cyan outline no sync state uses (the blue it had read as
 * Sending), red once it is above the account's limit and would be refused at save.
 */
function draftStyle(f: FeatureLike): Style | undefined {
  const g = f.getGeometry();
  if (!(g instanceof Polygon)) return new Style({});
  const limit = useApp.getState().account?.parcelLimit ?? Infinity;
  const over = draftHectares(ringOf(g)) > limit;
  const color = over ? '#d32f2f' : '#0097a7';
  return new Style({ fill: new Fill({ color: `${color}33` }), stroke: new Stroke({ color, width: 2, lineDash: over ? [6, 4] : undefined }) });
}

/**
 * When browse mode last began: set as the mode changes (a store subscription runs within set()), not in an effect,
 * which may run after a click made once the panel already showed the mode.
 */
let browseSince = 0;
useApp.subscribe((s, prev) => { if (s.mode === 'browse' && prev.mode !== 'browse') browseSince = performance.now(); });

export function MapView() {
  const api = useApi();
  const el = useRef<HTMLDivElement>(null);
  const map = useRef<OlMap | null>(null);
  const parcels = useRef(new VectorSource()).current;
  const draft = useRef(new VectorSource()).current;
  const layer = useRef<VectorLayer | null>(null);
  const load = useRef<() => void>(() => {});
  const account = useApp((s) => s.account?.id);
  const version = useApp((s) => s.version);
  const mode = useApp((s) => s.mode);
  const drawn = useApp((s) => s.drawn);
  const ring = useApp((s) => s.draft);
  const selectedId = useApp((s) => s.selectedId);
  const zoomTo = useApp((s) => s.zoomTo);
  const farmsKnown = useApp((s) => s.farms.length > 0);
  const point = useApp((s) => s.point);
  const pointHectares = useApp((s) => s.pointHectares);
  const limit = useApp((s) => s.account?.parcelLimit ?? Infinity);
  const filter = useBrowse((s) => s.filter);

  // The map itself, once.
  useEffect(() => {
    const parcelLayer = new VectorLayer({ source: parcels, style: parcelStyle(() => useApp.getState().selectedId) });
    layer.current = parcelLayer;
    const m = new OlMap({
      target: el.current!,
      // No network basemap: a graticule gives bearings offline.
      layers: [new Graticule({ strokeStyle: new Stroke({ color: 'rgba(0,0,0,0.12)', width: 1 }), showLabels: true, wrapX: false }), parcelLayer, new VectorLayer({ source: draft, style: draftStyle })],
      view: new View({ center: fromLonLat([0, 45]), zoom: 4 }),
      controls: defaultControls({ attribution: false }).extend([
        new ScaleLine(),
        new MousePosition({ coordinateFormat: createStringXY(5), projection: 'EPSG:4326', className: 'cursor-position', placeholder: '' }),
      ]),
    });
    map.current = m;
    const key = m.on('moveend', () => load.current());
    return () => {
      unByKey(key);
      m.setTarget(undefined);
      map.current = null;
    };
  }, [parcels, draft]);

  useFitTo(map);
  usePlantsLayer(map);
  useHoverName(map, layer);

  // The parcels in view, read again on every move and every change of the account; a late answer to an older view is dropped.
  useEffect(() => {
    let seq = 0;
    load.current = () => {
      const m = map.current;
      if (!m || !account) return;
      const size = m.getSize();
      if (!size) return;
      const e = transformExtent(m.getView().calculateExtent(size), 'EPSG:3857', 'EPSG:4326');
      const bbox: [number, number, number, number] = [Math.max(-180, e[0]!), Math.max(-90, e[1]!), Math.min(180, e[2]!), Math.min(90, e[3]!)];
      const mine = ++seq;
      // With a metadata filter on, only the parcels it matches (the embedded map's rule, applied by the backend).
      void api.viewport({ account, bbox, limit: LIMIT, ...(hasFilter(filter) ? { metadata: filter } : {}) }).then((fc) => {
        if (mine !== seq) return;
        parcels.clear(true);
        parcels.addFeatures(geojson.readFeatures(fc));
        set({ shown: { count: fc.features.length, truncated: fc.truncated } });
      }, () => {});
    };
    load.current();
  }, [api, account, version, parcels, filter]);

  // At start, and when the list asks: fit the view to the account's (or a farm's) parcels.
  useEffect(() => {
    if (!account || (!zoomTo && !farmsKnown)) return;
    let live = true;
    void api.viewport({ account, bbox: WORLD, limit: LIMIT }).then((fc) => {
      const m = map.current;
      if (!live || !m) return;
      // At start, the largest farm: an account's farms can lie countries apart (the demo's), and a view of all of
      // them shows each parcel as a dot.
      const farm = zoomTo?.farm ?? largestFarm(useApp.getState().farms);
      const wanted = farm ? fc.features.filter((f) => f.properties.farm === farm) : fc.features;
      const extent = new VectorSource({ features: geojson.readFeatures({ type: 'FeatureCollection', features: wanted }) }).getExtent() as Extent;
      if (!isEmpty(extent)) m.getView().fit(extent, { padding: [40, 40, 40, 40], maxZoom: 17, duration: zoomTo ? 300 : 0 });
    }, () => {});
    return () => { live = false; };
  }, [api, account, zoomTo, farmsKnown]);

  useEffect(() => { layer.current?.changed(); }, [selectedId]);

  // Clicking a parcel selects it (when not drawing or dropping a point).
  useEffect(() => {
    const m = map.current;
    if (!m || mode !== 'browse') return;
    const key = m.on('singleclick', (e) => {
      // OpenLayers tells a single click 250 ms late (it waits for a double-click): one made while drawing or modifying,
      // told after the mode ended (a loaded machine runs input before timers), is not a selection.
      if (e.originalEvent.timeStamp < browseSince) return;
      const hit = m.forEachFeatureAtPixel(e.pixel, (f) => f, { layerFilter: (l) => l === layer.current, hitTolerance: 3 });
      set({ selectedId: hit ? String(hit.getId()) : null });
    });
    return () => unByKey(key);
  }, [mode]);

  // Drawing: click vertices; Enter (or a click on the last vertex, a double-click) finishes, Esc cancels, Backspace
  // takes the last vertex back. The sketch's [lon, lat] ring goes to the store as it changes, for the live hectares.
  useEffect(() => {
    const m = map.current;
    if (!m || mode !== 'draw' || drawn) return;
    const draw = new Draw({ type: 'Polygon', style: draftStyle });
    let sketch: EventsKey | null = null;
    draw.on('drawstart', (e) => {
      const g = e.feature.getGeometry() as Polygon;
      sketch = g.on('change', () => set({ draft: ringOf(g) }));
    });
    draw.on('drawend', (e) => {
      if (sketch) unByKey(sketch);
      set({ draft: ringOf(e.feature.getGeometry() as Polygon), drawn: true });
    });
    draw.on('drawabort', () => set({ draft: [] }));
    const onKey = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLSelectElement) return;
      // The sketch's ring holds the vertices clicked and the one following the pointer.
      if (e.key === 'Enter' && useApp.getState().draft.length >= 4) { e.preventDefault(); draw.finishDrawing(); }
      else if (e.key === 'Escape') { e.preventDefault(); draw.abortDrawing(); set({ mode: 'browse', draft: [] }); }
      else if (e.key === 'Backspace') { e.preventDefault(); draw.removeLastPoint(); }
    };
    // Snap after Draw: it moves the pointer onto a neighbouring parcel's vertex or edge before Draw reads it.
    const { snap } = parcelSnap(parcels);
    m.addInteraction(draw);
    m.addInteraction(snap);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      if (sketch) unByKey(sketch);
      m.removeInteraction(snap);
      m.removeInteraction(draw);
    };
  }, [mode, drawn, parcels]);

  // Finished and not saved yet: Esc discards it, even from the name field.
  useEffect(() => {
    if (mode !== 'draw' || !drawn) return;
    const onKey = (e: KeyboardEvent) => { if (e.key === 'Escape') { e.preventDefault(); stopDrawing(); } };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [mode, drawn]);

  // Drop hectare point: a click places (or moves) the point; Esc leaves.
  useEffect(() => {
    const m = map.current;
    if (!m || mode !== 'point') return;
    const key = m.on('singleclick', (e) => set({ point: toLonLat(e.coordinate) as Position2 }));
    const onKey = (e: KeyboardEvent) => { if (e.key === 'Escape') { e.preventDefault(); stopDrawing(); } };
    document.addEventListener('keydown', onKey);
    return () => { unByKey(key); document.removeEventListener('keydown', onKey); };
  }, [mode]);

  // The finished polygon, or the point's square, stays on the map until it is saved or discarded.
  useEffect(() => {
    draft.clear();
    if (drawn && ring.length >= 3) draft.addFeature(new Feature(new Polygon([closeRing(ring).map((p) => fromLonLat(p))])));
    if (mode === 'point' && point) {
      const { square } = pointPreview(point, pointHectares, limit);
      if (square) draft.addFeature(new Feature(new Polygon(square.map((r) => r.map((p) => fromLonLat(p))))));
    }
  }, [draft, drawn, ring, mode, point, pointHectares, limit]);

  // Modify and move a parcel (renderer/features/edit/): its interactions and layer, in effects of its own.
  useModify(map, parcels);

  return <div ref={el} className="map" role="application" aria-label="Map of parcels" tabIndex={0} />;
}
