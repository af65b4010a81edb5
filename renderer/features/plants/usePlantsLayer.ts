// The account's plants on a layer of their own above the parcels (the backend's `plantsInView` for the view), when
// the legend's toggle is on and the map is close enough for them to mean something (under a metadata filter, only
// those of the parcels it shows); a click on one opens its popup
// (an ol/Overlay whose content is built here, no markup from data). The layer, overlay and listeners are added in
// effects and removed in their cleanup; the store gets plain data (counts, the plant's id and fields).
import { useEffect, useRef, type RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import VectorLayer from 'ol/layer/Vector.js';
import VectorSource from 'ol/source/Vector.js';
import GeoJSON from 'ol/format/GeoJSON.js';
import Overlay from 'ol/Overlay.js';
import { Circle, Fill, Stroke, Style } from 'ol/style.js';
import { fromLonLat, toLonLat, transformExtent } from 'ol/proj.js';
import { unByKey } from 'ol/Observable.js';
import type { FeatureLike } from 'ol/Feature.js';
import type { Point } from 'ol/geom.js';
import { useApi } from '../../context.ts';
import { useApp } from '../../store.ts';
import { hasFilter, useBrowse, type PlantShown } from '../browse-store.ts';
import { PLANTS_MAX_RESOLUTION, crownPixels } from './plant-view.ts';
import { fillPlantPopup } from './plant-popup.ts';

const geojson = new GeoJSON({ dataProjection: 'EPSG:4326', featureProjection: 'EPSG:3857' });
const LIMIT = 5000;
const setBrowse = useBrowse.setState;

function plantStyle() {
  const cache = new Map<number, Style>();
  return (f: FeatureLike, resolution: number) => {
    const r = Math.round(crownPixels(Number(f.get('area')), resolution));
    let s = cache.get(r);
    if (!s) {
      s = new Style({ image: new Circle({ radius: r, fill: new Fill({ color: 'rgba(76,175,80,0.55)' }), stroke: new Stroke({ color: '#1b5e20', width: 1 }) }) });
      cache.set(r, s);
    }
    return s;
  };
}

export function usePlantsLayer(map: RefObject<OlMap | null>) {
  const api = useApi();
  const account = useApp((s) => s.account?.id);
  const version = useApp((s) => s.version);
  const mode = useApp((s) => s.mode);
  const show = useBrowse((s) => s.showPlants);
  const plant = useBrowse((s) => s.plant);
  const filter = useBrowse((s) => s.filter);
  const source = useRef(new VectorSource()).current;
  const layer = useRef<VectorLayer | null>(null);
  const overlay = useRef<Overlay | null>(null);

  // The layer and the popup's overlay, while plants are shown.
  useEffect(() => {
    const m = map.current;
    if (!m || !show) return;
    const l = new VectorLayer({ source, style: plantStyle(), maxResolution: PLANTS_MAX_RESOLUTION, zIndex: 10 });
    layer.current = l;
    const el = document.createElement('div');
    el.className = 'plant-popup';
    const o = new Overlay({ element: el, positioning: 'bottom-center', offset: [0, -10], stopEvent: true });
    overlay.current = o;
    m.addLayer(l);
    m.addOverlay(o);
    return () => {
      m.removeLayer(l);
      m.removeOverlay(o);
      source.clear(true);
      layer.current = null;
      overlay.current = null;
      setBrowse({ plants: null, plant: null });
    };
  }, [map, show, source]);

  // The plants in view, on every move and every change of the account, only close enough; a late answer is dropped.
  useEffect(() => {
    const m = map.current;
    if (!m || !show || !account) return;
    let seq = 0;
    const load = () => {
      const mine = ++seq;
      const size = m.getSize();
      const resolution = m.getView().getResolution() ?? Infinity;
      if (!size) return;
      if (resolution > PLANTS_MAX_RESOLUTION) {
        source.clear(true);
        setBrowse({ plants: { count: 0, truncated: false, tooFar: true } });
        return;
      }
      const e = transformExtent(m.getView().calculateExtent(size), 'EPSG:3857', 'EPSG:4326');
      const bbox: [number, number, number, number] = [Math.max(-180, e[0]!), Math.max(-90, e[1]!), Math.min(180, e[2]!), Math.min(90, e[3]!)];
      // Under a metadata filter, as on the embedded map: only the plants of the parcels shown (those it matches in
      // the same box; a plant lies inside its parcel, so its parcel meets the box too).
      const shownParcels = hasFilter(filter)
        ? api.viewport({ account, bbox, limit: 50_000, metadata: filter }).then((p) => new Set(p.features.map((f) => f.id)))
        : Promise.resolve(null);
      void Promise.all([api.plantsInView({ account, bbox, limit: LIMIT }), shownParcels]).then(([fc, only]) => {
        if (mine !== seq) return;
        const features = only ? fc.features.filter((f) => f.properties.parcel !== null && only.has(f.properties.parcel)) : fc.features;
        source.clear(true);
        source.addFeatures(geojson.readFeatures({ type: 'FeatureCollection', features }));
        setBrowse({ plants: { count: features.length, truncated: fc.truncated, tooFar: false } });
      }, () => {});
    };
    const key = m.on('moveend', load);
    load();
    return () => { seq++; unByKey(key); };
  }, [api, map, show, account, version, source, filter]);

  // A click on a plant opens its popup (browsing only: drawing's clicks are vertices).
  useEffect(() => {
    const m = map.current;
    if (!m || !show || mode !== 'browse') return;
    const key = m.on('singleclick', (e) => {
      const hit = m.forEachFeatureAtPixel(e.pixel, (f) => f, { layerFilter: (l) => l === layer.current, hitTolerance: 4 });
      if (!hit) { setBrowse({ plant: null }); return; }
      const at = toLonLat((hit.getGeometry() as Point).getCoordinates()) as [number, number];
      const shown: PlantShown = { id: Number(hit.getId()), at, area: Number(hit.get('area')), info: hit.get('info') as unknown, parcel: (hit.get('parcel') as string | null) ?? null };
      setBrowse({ plant: shown });
    });
    return () => unByKey(key);
  }, [map, show, mode]);

  // The popup follows the plant chosen; Esc or its × closes it.
  useEffect(() => {
    const o = overlay.current;
    if (!o) return;
    if (!plant) { o.setPosition(undefined); return; }
    fillPlantPopup(o.getElement()!, plant, () => setBrowse({ plant: null }));
    o.setPosition(fromLonLat(plant.at));
    const onKey = (e: KeyboardEvent) => { if (e.key === 'Escape') setBrowse({ plant: null }); };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [plant]);
}
