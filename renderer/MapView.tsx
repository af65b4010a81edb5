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
import { defaults as defaultInteractions } from 'ol/interaction/defaults.js';
import Polygon from 'ol/geom/Polygon.js';
import { Fill, Stroke, Style } from 'ol/style.js';
import { fromLonLat, toLonLat, transformExtent } from 'ol/proj.js';
import { createStringXY } from 'ol/coordinate.js';
import { containsCoordinate } from 'ol/extent.js';
import { unByKey } from 'ol/Observable.js';
import type { FeatureLike } from 'ol/Feature.js';
import type { EventsKey } from 'ol/events.js';
import { useApi } from './context.ts';
import { largestFarm, set, stopDrawing, useApp, type Position2 } from './store.ts';
import { closeRing, draftHectares, pointPreview } from './preview.ts';
// Browsing's additions (filter, zoom to, plants, hover names): hooks of their own beside the parcel layer.
import { hasFilter, useBrowse } from './features/browse-store.ts';
import { useFitTo } from './features/zoom/useFitTo.ts';
import { usePlantsLayer } from './features/plants/usePlantsLayer.ts';
import { useHoverName } from './features/hover/useHoverName.ts';
import { useModify } from './features/edit/useModify.ts';
import { useImportLayer } from './features/imports/useImportLayer.ts';
import { parcelSnap } from './features/edit/snap.ts';
import { ParcelLayers } from './features/map/parcel-layers.ts';
import { useBasemapLayer } from './features/map/use-basemap-layer.ts';
import { BasemapControl } from './features/map/BasemapControl.tsx';
import { setRotations, useRotations } from './features/rotations/rotation-store.ts';
import { cropLegend } from './features/rotations/crop-legend.ts';
import { isField, ownsEnter } from './keys.ts';

const geojson = new GeoJSON({ dataProjection: 'EPSG:4326', featureProjection: 'EPSG:3857' });
/**
 * At most this many parcels drawn at once; beyond, the legend says to zoom in. The parcel layers
 * (features/map/parcel-layers.ts) keep pan and zoom smooth at this size: an image on the canvas path, WebGL where the
 * browser has it. Not the API's 50,000: at about 1 KB of GeoJSON a parcel, reading that many took tens of seconds.
 */
const LIMIT = 20_000;
/**
 * The start's view is read once it is fitted. A safety net for a fit that never comes (an account without farms, so
 * without parcels: nothing is lost by waiting): the view is read after this long anyway.
 */
const START_WAIT_MS = 10_000;

/** Pans to a map coordinate placed from the keyboard when it is off the view (a click's is always on it). */
function showCoordinate(m: OlMap, at: number[]): void {
  const view = m.getView();
  const size = m.getSize();
  if (!size || containsCoordinate(view.calculateExtent(size), at)) return;
  view.animate({ center: at, duration: 250 });
}

/** Room around a farm the map fits to, in pixels (top, right, bottom, left): the legend takes about 200 px at the left. */
const FARM_PADDING = [48, 40, 40, 210];

/** Esc pressed in a form field: the field loses the focus and the key does nothing else (true). */
function leaveField(e: KeyboardEvent): boolean {
  const t = e.target;
  if (!isField(t)) return false;
  t.blur();
  return true;
}

/** The outer ring as [lon, lat], not closed; `exact`: typed vertices by their map coordinate, kept as typed (see useModify.ts ringsOf). */
const ringOf = (g: Polygon, exact?: Map<string, Position2>): Position2[] =>
  (g.getCoordinates()[0] ?? []).slice(0, -1).map((c) => exact?.get(`${c[0]},${c[1]}`) ?? (toLonLat(c) as Position2));

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
  const layers = useRef<ParcelLayers | null>(null);
  const load = useRef<() => void>(() => {});
  // Until the start's fit, the default view (a continent) is not read: at 100,000 parcels it is the largest answer.
  const started = useRef(false);
  const account = useApp((s) => s.account?.id);
  const version = useApp((s) => s.version);
  const mode = useApp((s) => s.mode);
  const drawn = useApp((s) => s.drawn);
  const colourBy = useRotations((s) => s.colourBy);
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
    const parcelLayers = new ParcelLayers(parcels);
    layers.current = parcelLayers;
    const m = new OlMap({
      target: el.current!,
      // A graticule gives bearings offline (an optional basemap goes below it). Its labels run along the top and right
      // edges: at the bottom and left they crowded the scale line and the legend.
      layers: [new Graticule({ strokeStyle: new Stroke({ color: 'rgba(0,0,0,0.12)', width: 1 }), showLabels: true, wrapX: false, lonLabelPosition: 0.985, latLabelPosition: 0.985 }), ...parcelLayers.layers(), new VectorLayer({ source: draft, style: draftStyle })],
      view: new View({ center: fromLonLat([0, 45]), zoom: 4 }),
      // The map element takes the keyboard's focus (tabIndex, for its arrow and +/- keys); OpenLayers then, by default,
      // pans and zooms with the mouse only while it has the focus, so a wheel over the map did nothing until it was
      // clicked. The mouse always works; the keys still need the focus.
      interactions: defaultInteractions({ onFocusOnly: false }),
      controls: defaultControls({ attribution: false }).extend([
        new ScaleLine(),
        new MousePosition({ coordinateFormat: createStringXY(5), projection: 'EPSG:4326', className: 'cursor-position', placeholder: '' }),
      ]),
    });
    map.current = m;
    // OpenLayers' zoom buttons read "+" and "–" to a screen reader (their tooltip is not their name).
    for (const [cls, name] of [['.ol-zoom-in', 'Zoom in'], ['.ol-zoom-out', 'Zoom out']] as const) m.getViewport()?.querySelector(cls)?.setAttribute('aria-label', name);
    parcelLayers.attach(m);
    const key = m.on('moveend', () => load.current());
    return () => {
      unByKey(key);
      m.setTarget(undefined);
      map.current = null;
    };
  }, [parcels, draft]);

  useFitTo(map);
  usePlantsLayer(map);
  // The hover name asks the parcel layers' own hit (the source's spatial index), not forEachFeatureAtPixel, which
  // took p95 160 ms at 20,000 parcels: too slow for every pointer move.
  useHoverName(map, (pixel) => layers.current?.hit(pixel) ?? null);
  useBasemapLayer(map);
  useImportLayer(map);

  // The parcels in view, read again on every move and every change of the account; a late answer to an older view is dropped.
  useEffect(() => {
    let seq = 0;
    load.current = () => {
      const m = map.current;
      if (!m || !account || !started.current) return;
      const size = m.getSize();
      if (!size) return;
      const e = transformExtent(m.getView().calculateExtent(size), 'EPSG:3857', 'EPSG:4326');
      const bbox: [number, number, number, number] = [Math.max(-180, e[0]!), Math.max(-90, e[1]!), Math.min(180, e[2]!), Math.min(90, e[3]!)];
      const mine = ++seq;
      layers.current?.loading();
      // With a metadata filter on, only the parcels it matches (the embedded map's rule, applied by the backend).
      void api.viewport({ account, bbox, limit: LIMIT, ...(hasFilter(filter) ? { metadata: filter } : {}), ...(colourBy !== 'state' ? { crops: true } : {}) }).then((fc) => {
        if (mine !== seq) return;
        parcels.clear(true);
        parcels.addFeatures(geojson.readFeatures(fc));
        layers.current?.colourBy(colourBy);
        layers.current?.shown(fc.features.length);
        if (colourBy !== 'state') setRotations(cropLegend(fc.features.map((f) => f.properties.crop), colourBy));
        layers.current?.select(useApp.getState().selectedId);
        set({ shown: { count: fc.features.length, truncated: fc.truncated } });
      }, () => {});
    };
    load.current();
  }, [api, account, version, parcels, filter, colourBy]);

  useEffect(() => {
    started.current = false;
    const t = setTimeout(() => { if (!started.current) { started.current = true; load.current(); } }, START_WAIT_MS);
    return () => clearTimeout(t);
  }, [account]);

  // At start, and when the list asks: fit the view to a farm's parcels. The backend answers with the farm's box alone
  // (a sample of 2,000 parcels, about 2 MB of GeoJSON read only to find it, was half the first paint at 100,000).
  useEffect(() => {
    if (!account || (!zoomTo && !farmsKnown)) return;
    let live = true;
    const begin = () => { if (!started.current) { started.current = true; load.current(); } };
    // At start, the largest farm: an account's farms can lie countries apart (the demo's), and a view of all of
    // them shows each parcel as a dot.
    const farm = zoomTo?.farm ?? largestFarm(useApp.getState().farms);
    if (!farm) {
      begin();
      return;
    }
    void api.farmExtent({ farm }).then((box) => {
      const m = map.current;
      if (!live || !m) return;
      const wasStarted = started.current;
      started.current = true;
      const view = m.getView();
      const before = `${view.getCenter()?.join()}@${view.getResolution()}`;
      // The left padding leaves the farm clear of the legend in the bottom-left corner.
      if (box) view.fit(transformExtent(box, 'EPSG:4326', 'EPSG:3857'), { padding: FARM_PADDING, maxZoom: 17, duration: zoomTo ? 300 : 0 });
      // A fit that moved the view brings a moveend, which reads the view; one that did not brings none, so the start's
      // view is read here (reading it in both cases sent the same answer twice).
      if (!wasStarted && `${view.getCenter()?.join()}@${view.getResolution()}` === before) load.current();
    }, begin);
    return () => { live = false; };
  }, [api, account, zoomTo, farmsKnown]);

  useEffect(() => { layers.current?.select(selectedId); }, [selectedId]);

  // Clicking a parcel selects it (when not drawing or dropping a point).
  useEffect(() => {
    const m = map.current;
    if (!m || mode !== 'browse') return;
    const key = m.on('singleclick', (e) => {
      // OpenLayers tells a single click 250 ms late (it waits for a double-click): one made while drawing or modifying,
      // told after the mode ended (a loaded machine runs input before timers), is not a selection.
      if (e.originalEvent.timeStamp < browseSince) return;
      const hit = layers.current?.hit(e.pixel);
      set({ selectedId: hit ? String(hit.getId()) : null });
    });
    return () => unByKey(key);
  }, [mode]);

  // Drawing: click vertices; Enter (or a click on the last vertex, a double-click) finishes, Esc cancels, Backspace
  // or Ctrl+Z takes the last vertex back. The sketch's [lon, lat] ring goes to the store as it changes, for the live hectares.
  useEffect(() => {
    const m = map.current;
    if (!m || mode !== 'draw' || drawn) return;
    const draw = new Draw({ type: 'Polygon', style: draftStyle });
    const exact = new Map<string, Position2>();
    let sketch: EventsKey | null = null;
    draw.on('drawstart', (e) => {
      const g = e.feature.getGeometry() as Polygon;
      sketch = g.on('change', () => set({ draft: ringOf(g, exact) }));
    });
    draw.on('drawend', (e) => {
      if (sketch) unByKey(sketch);
      set({ draft: ringOf(e.feature.getGeometry() as Polygon, exact), drawn: true });
    });
    draw.on('drawabort', () => set({ draft: [] }));
    const onKey = (e: KeyboardEvent) => {
      if (isField(e.target)) return;
      // The sketch's ring holds the vertices clicked and the one following the pointer.
      if (e.key === 'Enter' && !ownsEnter(e.target) && useApp.getState().draft.length >= 4) { e.preventDefault(); draw.finishDrawing(); }
      else if (e.key === 'Escape') { e.preventDefault(); draw.abortDrawing(); set({ mode: 'browse', draft: [] }); }
      // Ctrl+Z too, as in desktop GIS: while drawing it takes back a vertex, not the last saved edit.
      else if (e.key === 'Backspace' || ((e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === 'z')) { e.preventDefault(); draw.removeLastPoint(); }
    };
    // Vertices typed in the panel (features/coordinates/VertexEntry.tsx) go where clicks go.
    const typed = useApp.subscribe((s, prev) => {
      const c = s.draftCommand;
      if (!c || c === prev.draftCommand) return;
      if (c.op === 'add') {
        const at = fromLonLat(c.pos);
        exact.set(`${at[0]},${at[1]}`, c.pos);
        // Appended twice, then the last taken back: Draw's appendCoordinates leaves the vertex that follows the pointer
        // on an earlier vertex when the new one lies on the previous one's spot (its snap to finish, with no pointer);
        // removeLastPoint puts that vertex back on the one typed.
        draw.appendCoordinates([at, at]);
        draw.removeLastPoint();
        showCoordinate(m, at);
      }
      else if (c.op === 'undo') draw.removeLastPoint();
      else if (s.draft.length >= 4) draw.finishDrawing();
    });
    // Snap after Draw: it moves the pointer onto a neighbouring parcel's vertex or edge before Draw reads it.
    const { snap } = parcelSnap(parcels);
    m.addInteraction(draw);
    m.addInteraction(snap);
    document.addEventListener('keydown', onKey);
    return () => {
      typed();
      document.removeEventListener('keydown', onKey);
      if (sketch) unByKey(sketch);
      m.removeInteraction(snap);
      m.removeInteraction(draw);
    };
  }, [mode, drawn, parcels]);

  // Finished and not saved yet: Esc discards it — but Esc in the name field only leaves the field (a second Esc
  // discards): people press Esc to get out of a field, and a drawn polygon thrown away cannot be undone.
  useEffect(() => {
    if (mode !== 'draw' || !drawn) return;
    const onKey = (e: KeyboardEvent) => { if (e.key === 'Escape') { e.preventDefault(); if (!leaveField(e)) stopDrawing(); } };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [mode, drawn]);

  // Drop hectare point: a click places (or moves) the point; Esc leaves.
  useEffect(() => {
    const m = map.current;
    if (!m || mode !== 'point') return;
    // A click made before P was pressed, told late (OpenLayers waits 250 ms for a double-click), places nothing.
    const since = performance.now();
    const key = m.on('singleclick', (e) => { if (e.originalEvent.timeStamp >= since) set({ point: toLonLat(e.coordinate) as Position2 }); });
    // A point placed by its typed position (features/coordinates/VertexEntry.tsx PointAt) is brought into view.
    const typed = useApp.subscribe((s, prev) => { if (s.point && s.point !== prev.point) showCoordinate(m, fromLonLat(s.point)); });
    const onKey = (e: KeyboardEvent) => { if (e.key === 'Escape') { e.preventDefault(); if (!leaveField(e)) stopDrawing(); } };
    document.addEventListener('keydown', onKey);
    return () => { typed(); unByKey(key); document.removeEventListener('keydown', onKey); };
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

  return (
    <>
      <div ref={el} className="map" role="application" aria-label="Map of parcels" tabIndex={0} />
      <BasemapControl />
    </>
  );
}
