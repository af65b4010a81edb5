// The map: the account's parcels in view (the backend's `viewport`), coloured by sync state, and what is done on it:
// selecting here; browsing, drawing, modifying and importing in their features' hooks, called below. The OpenLayers
// objects live in refs of this component and those hooks; the store gets plain data only (ids, [lon, lat] vertices).
// Interactions are added in effects and removed in their cleanup, so a mode left behind leaves nothing on the map.
import { useEffect, useRef } from 'react';
import OlMap from 'ol/Map.js';
import View from 'ol/View.js';
import VectorSource from 'ol/source/Vector.js';
import GeoJSON from 'ol/format/GeoJSON.js';
import ScaleLine from 'ol/control/ScaleLine.js';
import MousePosition from 'ol/control/MousePosition.js';
import { defaults as defaultControls } from 'ol/control/defaults.js';
import { defaults as defaultInteractions } from 'ol/interaction/defaults.js';
import { fromLonLat, toLonLat, transformExtent } from 'ol/proj.js';
import { createStringXY } from 'ol/coordinate.js';
import { unByKey } from 'ol/Observable.js';
import { useApi } from './context.ts';
import { largestFarm, set, useApp } from './store.ts';
// Browsing's additions (filter, zoom to, plants, hover names): hooks of their own beside the parcel layer.
import { hasFilter, useBrowse } from './features/browse-store.ts';
import { mapFitPadding, useFitTo } from './features/zoom/useFitTo.ts';
import { usePlantsLayer } from './features/plants/usePlantsLayer.ts';
import { useHoverName } from './features/hover/useHoverName.ts';
import { useDraw } from './features/draw/useDraw.ts';
import { useModify } from './features/edit/useModify.ts';
import { useImportLayer } from './features/imports/useImportLayer.ts';
import { ParcelLayers, WEBGL_FROM } from './features/map/parcel-layers.ts';
import { bytesUrl } from './bytes-url.ts';
import type { ParcelFeature } from '../core/api.ts';
import { makeGraticule } from './features/map/graticule.ts';
import { useMapLayers } from './features/layers/useMapLayers.ts';
import { LayersPanel } from './features/layers/LayersPanel.tsx';
import { cropColour, setRotations, useRotations } from './features/rotations/rotation-store.ts';
import { cropLegend } from './features/rotations/crop-legend.ts';
import { useMapKeys } from './features/parcel-list/useMapKeys.ts';
import { MapKeys, MAP_KEYS_ID } from './features/parcel-list/MapKeys.tsx';
import { useCropColours } from './features/rotations/useCropColours.ts';
import { usePositionLayer } from './features/position/usePositionLayer.ts';
import { PositionPanel } from './features/position/PositionPanel.tsx';
import { useMeasureLayer } from './features/measure/useMeasureLayer.ts';
import { useGoToMarker } from './features/goto/useGoToMarker.ts';
import { toggleRow, useTable } from './features/table/table-store.ts';
import { setPrintView } from './features/print/print-store.ts';

const geojson = new GeoJSON({ dataProjection: 'EPSG:4326', featureProjection: 'EPSG:3857' });
/**
 * At most this many parcels drawn at once; beyond, the legend says to zoom in. The parcel layers
 * (features/map/parcel-layers.ts) keep pan and zoom smooth at this size: an image on the canvas path, WebGL where the
 * browser has it. Not the API's 50,000: at about 1 KB of GeoJSON a parcel, reading that many took tens of seconds.
 */
const LIMIT = 20_000;
/**
 * A view of more parcels than this is drawn from the host's parcel tiles (features/map/parcel-tile-layer.ts): every
 * parcel, simplified for the zoom, without reading each one's GeoJSON (at about 100 µs a parcel, 20,000 took 2 s).
 * Up to it the parcels are read exactly, with their names (parcel-labels.ts LABELS_UP_TO, the same number). Under a
 * metadata filter the map reads exactly as before, up to LIMIT: the tiles carry no metadata.
 */
const EXACT_UP_TO = WEBGL_FROM;
/**
 * The start's view is read once it is fitted. A safety net for a fit that never comes (an account without farms, so
 * without parcels: nothing is lost by waiting): the view is read after this long anyway.
 */
const START_WAIT_MS = 10_000;

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
  const layers = useRef<ParcelLayers | null>(null);
  const load = useRef<() => void>(() => {});
  // The number of the latest view asked, across the effect's runs: an answer to an earlier one (an older view, or the
  // view under the filter before the last change) is dropped. Counted per run, a late answer from the run before
  // (a filter just removed) overwrote the current filter's parcels.
  const asked = useRef(0);
  // Until the start's fit, the default view (a continent) is not read: at 100,000 parcels it is the largest answer.
  const started = useRef(false);
  const account = useApp((s) => s.account?.id);
  const version = useApp((s) => s.version);
  const mode = useApp((s) => s.mode);
  const colourBy = useRotations((s) => s.colourBy);
  const campaign = useRotations((s) => s.campaign);
  const colours = useRotations((s) => s.colours);
  const selectedId = useApp((s) => s.selectedId);
  const zoomTo = useApp((s) => s.zoomTo);
  const farmsKnown = useApp((s) => s.farms.length > 0);
  const filter = useBrowse((s) => s.filter);

  // The map itself, once.
  useEffect(() => {
    const parcelLayers = new ParcelLayers(parcels);
    layers.current = parcelLayers;
    const graticule = makeGraticule(() => map.current);
    const m = new OlMap({
      target: el.current!,
      // A graticule for bearings offline, its labels along the top and right edges, the parcels' names kept off them.
      layers: [graticule, ...parcelLayers.layers()],
      view: new View({ center: fromLonLat([0, 45]), zoom: 4 }),
      // The map element takes the keyboard's focus (tabIndex, for its arrow and +/- keys); OpenLayers then, by default,
      // pans and zooms with the mouse only while it has the focus, so a wheel over the map did nothing until it was
      // clicked. The mouse always works; the keys still need the focus.
      interactions: defaultInteractions({ onFocusOnly: false }),
      // The layers' credits shown on the map, as their providers' terms ask (a credit in the layers panel alone was
      // seen by no one): always open, at the foot's middle, clear of the legend, scale and cursor read-out.
      controls: defaultControls({ attributionOptions: { collapsible: false } }).extend([
        new ScaleLine(),
        new MousePosition({ coordinateFormat: createStringXY(5), projection: 'EPSG:4326', className: 'cursor-position', placeholder: '' }),
      ]),
    });
    map.current = m;
    // OpenLayers' zoom buttons read "+" and "–" to a screen reader (their tooltip is not their name).
    for (const [cls, name] of [['.ol-zoom-in', 'Zoom in'], ['.ol-zoom-out', 'Zoom out']] as const) m.getViewport()?.querySelector(cls)?.setAttribute('aria-label', name);
    parcelLayers.attach(m);
    // The graticule's labels decided again for the view at rest and the map's size now: OpenLayers keeps a line's
    // label from when it made the line, and keeps lines across small moves (a fit's last frames, the map shortened
    // as the status line wraps), so one decided just inside an edge was drawn cut (graticule.ts).
    const resize = m.on('change:size', () => graticule.getSource()?.refresh());
    const key = m.on('moveend', () => {
      graticule.getSource()?.refresh();
      load.current();
      // Where the map looks, kept for the next start (features/view/) once the start's own view is set.
      const center = m.getView().getCenter();
      const zoom = m.getView().getZoom();
      if (started.current && center && zoom !== undefined) {
        const [lon, lat] = toLonLat(center);
        const round = (x: number) => Math.round(x * 1e6) / 1e6;
        useBrowse.setState({ place: { center: [Math.max(-180, Math.min(180, round(lon!))), Math.max(-90, Math.min(90, round(lat!)))], zoom: Math.round(zoom * 100) / 100 } });
      }
    });
    return () => {
      unByKey(key);
      unByKey(resize);
      parcelLayers.detach();
      m.setTarget(undefined);
      map.current = null;
    };
  }, [parcels]);

  useFitTo(map);
  usePlantsLayer(map);
  // The hover name asks the parcel layers' own hit (the source's spatial index), not forEachFeatureAtPixel, which
  // took p95 160 ms at 20,000 parcels: too slow for every pointer move.
  useHoverName(map, (pixel) => layers.current?.hit(pixel) ?? null);
  useMapLayers(map, api);
  useImportLayer(map);
  useCropColours(api);
  useEffect(() => { layers.current?.colours(colours); }, [colours]);

  // The parcels in view, read again on every move and every change of the account; a late answer to an older view is
  // dropped. A view of more than EXACT_UP_TO parcels is drawn from the host's tiles instead of read.
  useEffect(() => {
    // The tiles' address, asked once per account and colouring (the host keeps one per page session).
    const templates = new Map<string, Promise<{ template: string; maxZoom: number }>>();
    const crops = colourBy !== 'state';
    // A change of the account: the tiles in view read again (the host has dropped the stale ones).
    layers.current?.tiles.refresh();
    load.current = () => {
      const m = map.current;
      if (!m || !account || !started.current) return;
      const size = m.getSize();
      if (!size) return;
      const e = transformExtent(m.getView().calculateExtent(size), 'EPSG:3857', 'EPSG:4326');
      const bbox: [number, number, number, number] = [Math.max(-180, e[0]!), Math.max(-90, e[1]!), Math.min(180, e[2]!), Math.min(90, e[3]!)];
      // What a print shows (features/print/).
      setPrintView(bbox);
      const mine = ++asked.current;
      layers.current?.loading();
      const filtered = hasFilter(filter);
      // With a metadata filter on, only the parcels it matches (the embedded map's rule, applied by the backend).
      const exact = () => void api.viewport({ account, bbox, limit: LIMIT, ...(filtered ? { metadata: filter } : {}), ...(crops ? { crops: true, ...(campaign ? { campaign } : {}) } : {}) }).then((fc) => {
        if (mine !== asked.current) return;
        parcels.clear(true);
        parcels.addFeatures(geojson.readFeatures(fc));
        layers.current?.colourBy(colourBy);
        layers.current?.shown(fc.features.length);
        if (crops) setRotations(cropLegend(fc.features.map((f) => f.properties.crop), colourBy, (key) => cropColour(useRotations.getState().colours, colourBy, key)));
        layers.current?.select(useApp.getState().selectedId);
        layers.current?.markRows();
        set({ shown: { count: fc.features.length, truncated: fc.truncated } });
      }, () => {});
      // A metadata filter, or a campaign chosen (the tiles colour by the active crop), reads the view exactly.
      if (filtered || (crops && campaign)) return exact();
      void api.viewportCount({ account, bbox, upTo: EXACT_UP_TO }).then(async (c) => {
        if (mine !== asked.current) return;
        if (!c.more) return exact();
        const key = `${account}|${crops}`;
        let t = templates.get(key);
        if (!t) templates.set(key, (t = api.parcelTiles({ account, crops })));
        const { template, maxZoom } = await t;
        if (mine !== asked.current || !layers.current) return;
        layers.current.tiles.use(template, maxZoom, (path) => bytesUrl(path));
        // The source keeps the selected parcel alone, exact, for the selection's outline and for editing it.
        const selectedId = useApp.getState().selectedId;
        const kept = selectedId ? parcels.getFeatureById(selectedId) : null;
        parcels.clear(true);
        if (kept) parcels.addFeature(kept);
        layers.current.colourBy(colourBy);
        layers.current.tilesShown();
        layers.current.select(selectedId);
        set({ shown: { count: EXACT_UP_TO, truncated: false, all: true } });
      }).catch(() => {});
    };
    load.current();
  }, [api, account, version, parcels, filter, colourBy, campaign]);

  // In the tiles' view, a parcel selected elsewhere (the list, a search) is read exactly from the host for its outline.
  useEffect(() => {
    const l = layers.current;
    if (!l?.tiled || !selectedId || parcels.getFeatureById(selectedId)) return;
    let live = true;
    void api.parcel({ id: selectedId }).then((f) => {
      if (!live || !layers.current?.tiled || useApp.getState().selectedId !== f.id) return;
      parcels.addFeature(geojson.readFeature(f) as never);
      layers.current.select(f.id);
    }, () => {});
    return () => { live = false; };
  }, [api, selectedId, parcels, version]);

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
    // At start, the farm chosen (the one of the last start, else the largest): an account's farms can lie countries
    // apart (the demo's), and a view of all of them shows each parcel as a dot.
    // A farm chosen without parcels yet (one just created, kept from the last start) has no box: the start then
    // opens on the largest farm rather than on the whole world.
    const { farmId, farms } = useApp.getState();
    const chosen = farmId && (farms.find((f) => f.id === farmId)?.parcels ?? 0) > 0 ? farmId : null;
    const farm = zoomTo?.farm ?? chosen ?? largestFarm(farms);
    // Nothing to fit at the start (no farm, or only empty ones): back where the map looked at the last start, rather
    // than on the whole world.
    const lastPlace = () => {
      const place = zoomTo ? null : useBrowse.getState().place;
      if (place) map.current?.getView().setCenter(fromLonLat(place.center));
      if (place) map.current?.getView().setZoom(place.zoom);
    };
    if (!farm) {
      if (!started.current) lastPlace();
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
      // The padding leaves the farm clear of what covers the map (the legend, the filter banner…) at this window's size.
      const extent = box ? transformExtent(box, 'EPSG:4326', 'EPSG:3857') : null;
      if (extent) view.fit(extent, { padding: mapFitPadding(m, extent, 17), maxZoom: 17, duration: zoomTo ? 300 : 0 });
      else if (!wasStarted) lastPlace();
      // A fit that moved the view brings a moveend, which reads the view; one that did not brings none, so the start's
      // view is read here (reading it in both cases sent the same answer twice).
      if (!wasStarted && `${view.getCenter()?.join()}@${view.getResolution()}` === before) load.current();
    }, begin);
    return () => { live = false; };
  }, [api, account, zoomTo, farmsKnown]);

  useEffect(() => { layers.current?.select(selectedId); }, [selectedId]);
  // The attribute table's selection, marked (features/table/); none once the table is closed.
  const tableSelection = useTable((s) => (s.open ? s.selected : null));
  useEffect(() => { layers.current?.markRows(tableSelection ?? new Set()); }, [tableSelection]);

  // Clicking a parcel selects it (when not drawing or dropping a point).
  useEffect(() => {
    const m = map.current;
    if (!m || mode !== 'browse') return;
    const key = m.on('singleclick', (e) => {
      // OpenLayers tells a single click 250 ms late (it waits for a double-click): one made while drawing or modifying,
      // told after the mode ended (a loaded machine runs input before timers), is not a selection.
      if (e.originalEvent.timeStamp < browseSince) return;
      const l = layers.current;
      if (l?.tiled && account) {
        // The tiles are simplified: the parcel under the click is found by the host on its exact geometry.
        const start = performance.now();
        const [lon, lat] = toLonLat(e.coordinate);
        const pixel = (m.getView().getResolution() ?? 1) / 111_319.49;
        void api.parcelAt({ account, at: [Math.max(-180, Math.min(180, lon!)), Math.max(-90, Math.min(90, lat!))], pixel: Math.min(10, pixel) }).then((f: ParcelFeature | null) => {
          performance.measure('furrow:hit', { start, end: performance.now() });
          if (f && e.originalEvent.shiftKey && useTable.getState().open) return toggleRow(f.id);
          if (f && !parcels.getFeatureById(f.id)) parcels.addFeature(geojson.readFeature(f) as never);
          set({ selectedId: f ? f.id : null });
        }, () => {});
        return;
      }
      const hit = l?.hit(e.pixel);
      // With the attribute table open, Shift adds the parcel to its selection (or takes it out): the map's own
      // selection, and the side panel, stay as they were.
      if (hit && e.originalEvent.shiftKey && useTable.getState().open) return toggleRow(String(hit.getId()));
      set({ selectedId: hit ? String(hit.getId()) : null });
    });
    return () => unByKey(key);
  }, [api, account, mode, parcels]);

  // Draw polygon and drop hectare point (renderer/features/draw/): their interactions, keys and draft layer.
  useDraw(map, parcels);

  // Modify and move a parcel (renderer/features/edit/): its interactions and layer, in effects of its own.
  useModify(map, parcels);

  // Measuring (features/measure/), snapping as drawing does; the place gone to (features/goto/), with its marker.
  useMeasureLayer(map, parcels);
  useGoToMarker(map);

  // Selecting parcels in view with ] and [, Enter opening one (renderer/features/parcel-list/).
  useMapKeys(map, parcels);

  // Where the user stands, and the walk under way (renderer/features/position/).
  usePositionLayer(map);

  return (
    <>
      <div ref={el} className="map" role="application" aria-label="Map of parcels" aria-describedby={MAP_KEYS_ID} aria-keyshortcuts="] [ Enter" tabIndex={0} />
      <MapKeys />
      <LayersPanel map={map} />
      <PositionPanel />
    </>
  );
}
