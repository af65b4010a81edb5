// Measuring on the map (E, or the toolbar's Measure): OpenLayers' Draw as a line or a polygon, snapping to the
// parcels and the vector overlays shown as drawing does (map/snap.ts), never making a parcel. Each segment is drawn
// as the map's straight line and measured as the geodesic between its ends (measure-math.ts): for a field's edges the
// two are the same within centimetres. A vertex snapped onto a parcel's vertex is measured at the parcel's stored
// [lon, lat], read from the host (the map's Web Mercator round trip is not exact in floating point), so a parcel's
// outline measured gives its hectares exactly. Enter or a double-click finishes, Backspace takes back a vertex, Esc
// ends measuring. Interactions and the layer are added in effects and removed in their cleanup.
import { useEffect, type RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import type VectorSource from 'ol/source/Vector.js';
import VectorLayer from 'ol/layer/Vector.js';
import VectorSourceImpl from 'ol/source/Vector.js';
import Draw from 'ol/interaction/Draw.js';
import LineString from 'ol/geom/LineString.js';
import Polygon from 'ol/geom/Polygon.js';
import { mapFont } from '../map/map-font.ts';
import Point from 'ol/geom/Point.js';
import type Geometry from 'ol/geom/Geometry.js';
import type { FeatureLike } from 'ol/Feature.js';
import type { Coordinate } from 'ol/coordinate.js';
import { Circle, Fill, Stroke, Style, Text } from 'ol/style.js';
import { unByKey } from 'ol/Observable.js';
import type { EventsKey } from 'ol/events.js';
import { useApi } from '../../context.ts';
import { useApp, type Position2 } from '../../store.ts';
import { behindPanel } from '../../keymap.ts';
import { isField, ownsEnter } from '../../keys.ts';
import { parcelSnap } from '../map/snap.ts';
import { TypedVertices } from '../draw/typed-vertices.ts';
import { formatLength, measure } from './measure-math.ts';
import { stopMeasure, useMeasure } from './measure-store.ts';

const COLOR = '#e65100';

/** The coordinates measured of a sketch or a finished shape: a polygon's ring without its closing vertex. */
function coordsOf(g: Geometry): Coordinate[] {
  if (g instanceof LineString) return g.getCoordinates();
  if (g instanceof Polygon) return (g.getCoordinates()[0] ?? []).slice(0, -1);
  return [];
}

/** An orange outline, each segment's length at its middle: what is measured, never a parcel's colours. */
function measureStyle(f: FeatureLike): Style[] {
  const g = f.getGeometry();
  if (g instanceof Point) return [new Style({ image: new Circle({ radius: 4, fill: new Fill({ color: '#fff' }), stroke: new Stroke({ color: COLOR, width: 2 }) }) })];
  if (!(g instanceof LineString) && !(g instanceof Polygon)) return [];
  const styles = [new Style({ stroke: new Stroke({ color: COLOR, width: 2.5, lineDash: [8, 5] }), fill: new Fill({ color: `${COLOR}22` }) })];
  const { segments } = measure(useMeasure.getState().kind, useMeasure.getState().points);
  const c = g instanceof Polygon ? (g.getCoordinates()[0] ?? []) : g.getCoordinates();
  const { units } = useMeasure.getState();
  for (let i = 0; i + 1 < c.length && i < segments.length; i++) {
    if (!(segments[i]! > 0)) continue;
    const mid = [(c[i]![0]! + c[i + 1]![0]!) / 2, (c[i]![1]! + c[i + 1]![1]!) / 2];
    styles.push(new Style({
      geometry: new Point(mid),
      text: new Text({ text: formatLength(segments[i]!, units), font: mapFont(12), fill: new Fill({ color: '#3e2000' }), stroke: new Stroke({ color: '#fff', width: 3 }), offsetY: -10 }),
    }));
  }
  return styles;
}

export function useMeasureLayer(map: RefObject<OlMap | null>, parcels: VectorSource): void {
  const api = useApi();
  const mode = useApp((s) => s.mode);
  const kind = useMeasure((s) => s.kind);
  const units = useMeasure((s) => s.units);

  useEffect(() => {
    const m = map.current;
    if (!m || mode !== 'measure') return;
    const source = new VectorSourceImpl();
    const layer = new VectorLayer({ source, style: measureStyle, zIndex: 22 });
    const draw = new Draw({ type: kind === 'line' ? 'LineString' : 'Polygon', style: measureStyle });
    // The parcels' stored positions by their map coordinates (TypedVertices keeps positions by map coordinate).
    const exact = new TypedVertices();
    const asked = new Set<string>();
    let shown: Geometry | null = null;
    let sketchKey: EventsKey | null = null;
    const read = () => {
      if (shown) useMeasure.setState({ points: coordsOf(shown).map((c) => exact.lonLat(c)) });
      layer.changed();
    };
    draw.on('drawstart', (e) => {
      source.clear();
      shown = e.feature.getGeometry() ?? null;
      useMeasure.setState({ done: false });
      sketchKey = shown?.on('change', read) ?? null;
    });
    draw.on('drawend', (e) => {
      if (sketchKey) unByKey(sketchKey);
      shown = e.feature.getGeometry() ?? null;
      read();
      useMeasure.setState({ done: true });
      source.addFeature(e.feature);
    });
    draw.on('drawabort', () => { if (sketchKey) unByKey(sketchKey); shown = null; useMeasure.setState({ points: [], done: false }); });
    const { snap, dispose } = parcelSnap(parcels);
    // Snapped onto a parcel's vertex: its stored positions, once per parcel, then the measurement read again.
    snap.on('snap', (e) => {
      const id = e.feature.getId();
      if (e.segment !== null || id === undefined || parcels.getFeatureById(id) !== e.feature || asked.has(String(id))) return;
      asked.add(String(id));
      void api.parcel({ id: String(id) }).then((p) => {
        for (const pos of positions(p.geometry.coordinates)) exact.place(pos);
        if (useApp.getState().mode === 'measure') read();
      }, () => {});
    });
    const onKey = (e: KeyboardEvent) => {
      if (isField(e.target) || behindPanel()) return;
      const clicked = useMeasure.getState().points.length - 1; // the last follows the pointer
      if (e.key === 'Escape') { e.preventDefault(); draw.abortDrawing(); stopMeasure(); }
      else if (e.key === 'Enter' && !ownsEnter(e.target) && !useMeasure.getState().done && clicked >= (kind === 'line' ? 2 : 3)) { e.preventDefault(); draw.finishDrawing(); }
      else if (e.key === 'Backspace' && !useMeasure.getState().done) { e.preventDefault(); draw.removeLastPoint(); }
    };
    m.addLayer(layer);
    m.addInteraction(draw);
    m.addInteraction(snap);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      if (sketchKey) unByKey(sketchKey);
      dispose();
      m.removeInteraction(snap);
      m.removeInteraction(draw);
      m.removeLayer(layer);
      useMeasure.setState({ points: [], done: false });
    };
  }, [api, map, mode, kind, parcels]);

  // Units changed: the labels on the map follow.
  useEffect(() => { map.current?.render(); }, [map, units]);
}

/** Every [lon, lat] of a GeoJSON geometry's coordinates, however nested. */
function positions(c: unknown): Position2[] {
  if (!Array.isArray(c)) return [];
  if (typeof c[0] === 'number') return [[c[0], c[1] as number]];
  return c.flatMap(positions);
}
