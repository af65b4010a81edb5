// The import preview on the map (features/imports/): the features that cannot be imported, drawn in a style no sync
// state uses (magenta, dashed, numbered as in the table), while the preview is open and its "Show…" box is ticked;
// the map fits to the file when its preview comes, and to one feature when its row asks. The layer is added in an
// effect and removed in its cleanup; the store holds the backend's plain answer.
import { useEffect, useRef, type RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import VectorLayer from 'ol/layer/Vector.js';
import VectorSource from 'ol/source/Vector.js';
import GeoJSON from 'ol/format/GeoJSON.js';
import { Circle, Fill, Stroke, Style, Text } from 'ol/style.js';
import { transformExtent } from 'ol/proj.js';
import { buffer, getHeight, getWidth, isEmpty } from 'ol/extent.js';
import type { FeatureLike } from 'ol/Feature.js';
import { useImports } from './import-store.ts';
import { mapFont } from '../map/map-font.ts';

const geojson = new GeoJSON({ dataProjection: 'EPSG:4326', featureProjection: 'EPSG:3857' });
const INVALID = '#c2185b';
/** Room the fitted file leaves: the import dialog covers the map's right side (imports.css: 600 px and its margin). */
const PADDING = [50, 630, 50, 40];
/** What a folded dialog covers of a small window's map, and room to spare (CSS px). */
const FOLDED_FOOT = 150;
/** A point, or a feature a few metres wide, still gets a field's worth of map around it. */
const MIN_SIZE_M = 200;

function invalidStyle(f: FeatureLike): Style {
  return new Style({
    fill: new Fill({ color: `${INVALID}22` }),
    stroke: new Stroke({ color: INVALID, width: 2.5, lineDash: [8, 5] }),
    image: new Circle({ radius: 6, fill: new Fill({ color: `${INVALID}55` }), stroke: new Stroke({ color: INVALID, width: 2 }) }),
    // A white box, not a halo: over a bow tie's crossing lines a haloed "#3" read as "##3". Decluttered, two
    // markers never overprint each other either.
    text: new Text({
      text: `#${Number(f.getId()) + 1}`, font: mapFont(12, true), fill: new Fill({ color: INVALID }), overflow: true,
      backgroundFill: new Fill({ color: '#ffffff' }), backgroundStroke: new Stroke({ color: INVALID, width: 1 }), padding: [1, 3, 0, 3],
    }),
  });
}

function fit(m: OlMap, box: [number, number, number, number]): void {
  let extent = transformExtent(box, 'EPSG:4326', 'EPSG:3857');
  const short = MIN_SIZE_M - Math.min(getWidth(extent), getHeight(extent));
  if (short > 0) extent = buffer(extent, short / 2);
  const size = m.getSize();
  // A narrow window keeps what room it has: the padding never swallows the map.
  // A small window's dialog, folded, keeps its title and summary over the map's foot (small-window.css).
  const padding = size && size[0]! > PADDING[1]! + PADDING[3]! + 200 ? PADDING : [40, 40, useImports.getState().folded ? FOLDED_FOOT : 40, 40];
  m.getView().fit(extent, { padding, maxZoom: 18, duration: 250 });
}

export function useImportLayer(map: RefObject<OlMap | null>) {
  const preview = useImports((s) => s.preview);
  const show = useImports((s) => s.showInvalid);
  const focus = useImports((s) => s.focus);
  const folded = useImports((s) => s.folded);
  const source = useRef(new VectorSource()).current;

  // The invalid shapes, while shown.
  useEffect(() => {
    const m = map.current;
    if (!m || !preview || !show) return;
    for (const f of preview.features) {
      if (!f.geometry) continue;
      const feature = geojson.readFeature({ type: 'Feature', id: f.index, properties: {}, geometry: f.geometry });
      source.addFeatures(Array.isArray(feature) ? feature : [feature]);
    }
    const layer = new VectorLayer({ source, style: invalidStyle, zIndex: 20, declutter: 'import' });
    m.addLayer(layer);
    return () => {
      m.removeLayer(layer);
      source.clear(true);
    };
  }, [map, preview, show, source]);

  // Where the file lies, once per preview, and again as a small window's dialog folds or unfolds.
  useEffect(() => {
    const m = map.current;
    // Folded after a row's "Show on map", the map stays on that feature (the effect below).
    if (m && preview?.bbox && !(folded && useImports.getState().focus)) fit(m, preview.bbox);
  }, [map, preview?.preview, preview?.bbox, folded]);

  // One feature, asked from its row.
  useEffect(() => {
    const m = map.current;
    const f = focus && preview?.features.find((x) => x.index === focus.index);
    if (!m || !f?.geometry) return;
    const feature = geojson.readFeature({ type: 'Feature', properties: {}, geometry: f.geometry });
    const extent = (Array.isArray(feature) ? feature[0] : feature)?.getGeometry()?.getExtent();
    if (extent && !isEmpty(extent)) fit(m, transformExtent(extent, 'EPSG:3857', 'EPSG:4326') as [number, number, number, number]);
  }, [map, focus, preview, folded]);
}
