// The OpenLayers map: an optional OSM basemap, the parcels coloured by their current crop's family (colors.ts), the plants,
// and a small layer for the hovered and selected parcel. Parcels and plants are VectorImage layers: a pan or zoom
// frame only moves an already drawn image (measured here at ~0.3 ms against ~150 ms for a canvas vector layer of
// 100k parcels), and the features are drawn again once the interaction ends.
import OlMap from 'ol/Map.js';
import View from 'ol/View.js';
import Feature from 'ol/Feature.js';
import type { FeatureLike } from 'ol/Feature.js';
import type Geometry from 'ol/geom/Geometry.js';
import Point from 'ol/geom/Point.js';
import Polygon from 'ol/geom/Polygon.js';
import TileLayer from 'ol/layer/Tile.js';
import VectorLayer from 'ol/layer/Vector.js';
import VectorImageLayer from 'ol/layer/VectorImage.js';
import OSM from 'ol/source/OSM.js';
import VectorSource from 'ol/source/Vector.js';
import GeoJSON from 'ol/format/GeoJSON.js';
import { Circle as CircleStyle, Fill, Stroke, Style, Text } from 'ol/style.js';
import { defaults as defaultControls, ScaleLine } from 'ol/control.js';
import { fromLonLat } from 'ol/proj.js';
import { buffer, getCenter, getHeight, getWidth, isEmpty } from 'ol/extent.js';
import type { Extent } from 'ol/extent.js';
import type { Pixel } from 'ol/pixel.js';
import { NO_CROP, UNCLASSIFIED, categoryColor } from './colors.ts';
import type { CurrentCrop } from './types.ts';

/** Below this resolution (Web Mercator metres per pixel, about zoom 14.3) parcels carry their names, where they fit inside. */
const LABEL_RESOLUTION = 8;
/** A parcel drawn smaller than this many pixels across becomes a marker, so a zoomed-out account is not empty. */
const MARKER_PIXELS = 7;
/** Below this resolution plants are drawn as their crown outlines rather than dots. */
const CROWN_RESOLUTION = 0.8;
/** Above this one a plant is a faint speck: an orchard reads as a texture that leaves the parcel's colour visible. */
const SPECK_RESOLUTION = 2;

export const cropCategory = (crop: CurrentCrop | null): string => (crop ? crop.family ?? UNCLASSIFIED : NO_CROP);

function alpha(hex: string, a: number): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${a})`;
}

interface CategoryStyle { plain: Style; labelled: Style; marker: Style }

function categoryStyle(category: string): CategoryStyle {
  const color = categoryColor(category);
  const fill = new Fill({ color: alpha(color, category === NO_CROP ? 0.22 : 0.42) });
  const stroke = new Stroke({ color: alpha(color, 0.95), width: 1.25 });
  const text = new Text({
    font: '600 12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
    fill: new Fill({ color: '#1d232b' }),
    stroke: new Stroke({ color: 'rgba(255, 255, 255, 0.9)', width: 3 }),
    overflow: false,
  });
  const marker = new Style({
    geometry: (f) => f.get('marker') as Point,
    // Only labels give way to each other; a marker is a parcel and is always drawn.
    image: new CircleStyle({ radius: 5, fill: new Fill({ color: alpha(color, 0.9) }), stroke: new Stroke({ color: '#ffffff', width: 1.5 }), declutterMode: 'none' }),
  });
  return { plain: new Style({ fill, stroke }), labelled: new Style({ fill, stroke, text }), marker };
}

/** The style of a parcel: its current crop's family colour; a marker when too small to see; named when close. */
function parcelStyle(): (f: FeatureLike, resolution: number) => Style {
  const cache = new Map<string, CategoryStyle>();
  return (f, resolution) => {
    const category = cropCategory(f.get('crop') as CurrentCrop | null);
    let s = cache.get(category);
    if (!s) cache.set(category, (s = categoryStyle(category)));
    if ((f.get('size') as number) / resolution < MARKER_PIXELS) return s.marker;
    if (resolution >= LABEL_RESOLUTION) return s.plain;
    // Shared style objects, text set just before drawing: the renderer reads it immediately (OpenLayers' own pattern).
    s.labelled.getText()!.setText(String(f.get('name') ?? ''));
    return s.labelled;
  };
}

const plantSpeck = new Style({ image: new CircleStyle({ radius: 1.1, fill: new Fill({ color: 'rgba(31, 77, 31, 0.55)' }) }) });
const plantDot = new Style({ image: new CircleStyle({ radius: 2.5, fill: new Fill({ color: '#2d6a2d' }), stroke: new Stroke({ color: 'rgba(255,255,255,0.8)', width: 0.75 }) }) });
const plantCrown = new Style({
  geometry: (f) => (f.get('crown') as Geometry | undefined) ?? f.getGeometry(),
  fill: new Fill({ color: 'rgba(45, 106, 45, 0.55)' }),
  stroke: new Stroke({ color: '#1f4d1f', width: 1 }),
  image: new CircleStyle({ radius: 2.5, fill: new Fill({ color: '#2d6a2d' }) }),
});

const highlightStyles: Record<string, Style> = {
  hover: new Style({ stroke: new Stroke({ color: '#1d232b', width: 2.5 }), fill: new Fill({ color: 'rgba(255, 255, 255, 0.18)' }) }),
  selected: new Style({ stroke: new Stroke({ color: '#0b57d0', width: 3.5 }), fill: new Fill({ color: 'rgba(11, 87, 208, 0.12)' }) }),
};

export interface ParcelMap {
  map: OlMap;
  parcels: VectorSource;
  plants: VectorSource;
  layers: { basemap: TileLayer<OSM>; parcels: VectorImageLayer<VectorSource>; plants: VectorImageLayer<VectorSource> };
  /** The topmost parcel whose shape contains the pixel (geometry test through the source's spatial index). */
  parcelAtPixel(pixel: Pixel): Feature | null;
  setHover(f: Feature | null): void;
  setSelected(f: Feature | null): void;
  /** True once the view has stopped moving and everything has been drawn for where it stopped. */
  settled(): boolean;
  /** Fits an extent (map projection) inside the padding, no closer than maxZoom; animated when asked. */
  fit(extent: Extent, padding: Padding, opts?: { maxZoom?: number; animate?: boolean }): void;
}

/** Pixels kept clear at the top, right, bottom and left of the map, in OpenLayers' order. */
export type Padding = [number, number, number, number];

/** Parcels as close as this (zoom 16, about 2 m a pixel in Europe) when the view opens on them: a single small parcel is not blown up. */
export const FIT_MAX_ZOOM = 16;

export interface MapOptions {
  target: HTMLElement;
  /** Called once when the basemap's tiles cannot be fetched (offline, blocked): the map goes on without it. */
  onBasemapOffline(): void;
}

export function createMap(opts: MapOptions): ParcelMap {
  const parcels = new VectorSource();
  const plants = new VectorSource();
  const highlight = new VectorSource();
  const basemapSource = new OSM();
  const basemap = new TileLayer({ source: basemapSource, className: 'basemap', preload: 0 });
  let tilesOk = 0;
  let tilesFailed = 0;
  basemapSource.on('tileloadend', () => { tilesOk++; });
  basemapSource.on('tileloaderror', () => {
    // A few failures and not one tile ever loaded: offline or blocked. Stop asking (no retries, no error noise).
    if (++tilesFailed === 4 && tilesOk === 0) {
      basemap.setVisible(false);
      opts.onBasemapOffline();
    }
  });
  const parcelLayer = new VectorImageLayer({ source: parcels, style: parcelStyle(), imageRatio: 1.5, declutter: true, properties: { name: 'parcels' } });
  const plantLayer = new VectorImageLayer({
    source: plants, imageRatio: 1.5, maxResolution: 20, properties: { name: 'plants' },
    style: (_f, resolution) => (resolution < CROWN_RESOLUTION ? plantCrown : resolution < SPECK_RESOLUTION ? plantDot : plantSpeck),
  });
  const highlightLayer = new VectorLayer({ source: highlight, style: (f) => highlightStyles[String(f.get('role'))] ?? highlightStyles.hover! });

  const map = new OlMap({
    target: opts.target,
    layers: [basemap, parcelLayer, plantLayer, highlightLayer],
    view: new View({ center: fromLonLat([0, 20]), zoom: 2, maxZoom: 21 }),
    controls: defaultControls({ rotate: false, attributionOptions: { collapsible: true, collapsed: true } }).extend([new ScaleLine()]),
  });

  // A view change (synchronous, even before the next frame) unsettles; 'rendercomplete' comes once an animation has
  // ended and every layer and tile has been drawn.
  let settled = false;
  map.getView().on(['change:center', 'change:resolution', 'change:rotation'], () => { settled = false; });
  map.on('rendercomplete', () => { settled = true; });

  const marks = { hover: null as Feature | null, selected: null as Feature | null };
  const redrawHighlight = () => {
    highlight.clear(true);
    const out: Feature[] = [];
    if (marks.selected) out.push(new Feature({ geometry: marks.selected.getGeometry(), role: 'selected' }));
    if (marks.hover && marks.hover !== marks.selected) out.push(new Feature({ geometry: marks.hover.getGeometry(), role: 'hover' }));
    highlight.addFeatures(out);
  };

  /** Zoomed out, a parcel is a marker larger than its shape: the nearest marker within its radius. */
  const markerAt = (coord: number[]): Feature | null => {
    const resolution = map.getView().getResolution() ?? 1;
    const reach = 6 * resolution;
    let best: Feature | null = null;
    let bestD = reach * reach;
    for (const f of parcels.getFeaturesInExtent(buffer([coord[0]!, coord[1]!, coord[0]!, coord[1]!], reach))) {
      if ((f.get('size') as number) / resolution >= MARKER_PIXELS) continue;
      const [x, y] = (f.get('marker') as Point).getCoordinates();
      const d = (x! - coord[0]!) ** 2 + (y! - coord[1]!) ** 2;
      if (d <= bestD) { best = f; bestD = d; }
    }
    return best;
  };

  return {
    map, parcels, plants,
    layers: { basemap, parcels: parcelLayer, plants: plantLayer },
    parcelAtPixel(pixel) {
      const coord = map.getCoordinateFromPixel(pixel);
      const hits = parcels.getFeaturesAtCoordinate(coord);
      if (hits.length === 0) return markerAt(coord);
      if (hits.length === 1) return hits[0]!;
      // Overlapping parcels: the smallest is the one the pointer is most plausibly meant for.
      return hits.reduce((a, b) => ((b.getGeometry() as Polygon).getArea() < (a.getGeometry() as Polygon).getArea() ? b : a));
    },
    setHover(f) {
      if (marks.hover === f) return;
      marks.hover = f;
      redrawHighlight();
    },
    setSelected(f) {
      marks.selected = f;
      redrawHighlight();
    },
    settled: () => settled && !map.getView().getAnimating() && !map.getView().getInteracting(),
    fit(extent, padding, { maxZoom = FIT_MAX_ZOOM, animate = false } = {}) {
      if (isEmpty(extent)) return;
      map.getView().fit(extent, { padding, maxZoom, duration: animate ? 350 : 0 });
    },
  };
}

/** Parcels in the map's projection, with what the style function and the hit tests need precomputed. */
export function loadParcels(pm: ParcelMap, collection: unknown): Feature[] {
  const features = new GeoJSON().readFeatures(collection, { dataProjection: 'EPSG:4326', featureProjection: 'EPSG:3857' }) as Feature[];
  for (const f of features) {
    const extent = f.getGeometry()!.getExtent();
    // Set silently, before the features reach the source: precomputed once for the style function and hit tests.
    f.setProperties({ marker: new Point(getCenter(extent)), size: Math.max(getWidth(extent), getHeight(extent)) }, true);
  }
  pm.parcels.addFeatures(features);
  return features;
}

export function loadPlants(pm: ParcelMap, collection: unknown, keepParcel: (id: number | null) => boolean): number {
  const features = (new GeoJSON().readFeatures(collection, { dataProjection: 'EPSG:4326', featureProjection: 'EPSG:3857' }) as Feature[])
    .filter((f) => keepParcel((f.get('parcel') as number | null) ?? null));
  for (const f of features) {
    const shape = f.get('shape') as { coordinates?: number[][][] } | null;
    if (shape?.coordinates) f.set('crown', new Polygon(shape.coordinates).transform('EPSG:4326', 'EPSG:3857'), true);
  }
  pm.plants.addFeatures(features);
  return features.length;
}
