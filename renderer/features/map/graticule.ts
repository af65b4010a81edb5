// The map's graticule (bearings offline; an optional basemap goes below it) and where its labels are, so parcel
// names keep off them. OpenLayers draws a graticule's labels straight onto its canvas after each render, outside
// any declutter group, so the names' placement (parcel-labels.ts) takes their boxes as obstacles instead: the same
// text, font and position the graticule draws them at.
//
// Its labels never run into each other: the interval between lines is chosen so that two longitudes' labels are
// always farther apart than the widest one is long (GRATICULE_TARGET). They stay whole inside the map: the
// longitudes along the top edge, below it, the latitudes along the right; one that would be cut at an edge, sit
// under the zoom buttons or the Layers button, or meet the row of longitudes is left out.
import type OlMap from 'ol/Map.js';
import Graticule from 'ol/layer/Graticule.js';
import { Fill, Stroke, Text } from 'ol/style.js';
import { degreesToStringHDMS } from 'ol/coordinate.js';
import { fromLonLat, toLonLat } from 'ol/proj.js';
import { coveringBoxes } from './covering.ts';
import type { Box } from './label-placement.ts';
import { mapFont } from './map-font.ts';

export const GRATICULE_FONT = mapFont(12);
/** The latitudes' labels end at this fraction of the map's width (their right edge). */
const LAT_AT = 0.985;
/** The longitudes' labels: their text's top this far below the map's top edge; their box's height, halo included. */
const LON_TOP = 3;
const LON_BOX = 21;
/** Half a latitude label's box height, halo included. */
const LAT_HALF = 10;
/** The halo around each label's text. */
const HALO = 3;
/** The room kept between two longitude labels side by side. */
const LABEL_GAP = 14;
/** What keeps a label off (the row of longitudes must not run under the zoom buttons, for one). */
const KEEP_OFF = ['.layers-control', '.ol-zoom'];

const lonText = (lon: number) => degreesToStringHDMS('EW', lon);
const latText = (lat: number) => degreesToStringHDMS('NS', lat);
const halo = () => new Stroke({ color: '#fff', width: HALO });

/** The widest longitude label there is, at field scale (degrees, minutes and seconds, three digits of degrees). */
const WIDEST_LON = '188° 88′ 88″ W';

/**
 * OpenLayers' Graticule takes the smallest interval whose cell, at the projection's centre (the equator in Web
 * Mercator), has a diagonal longer than `targetSize` pixels; a cell there is square, so two meridians are at least
 * targetSize / √2 pixels apart — at every latitude, Web Mercator's x being the longitude's. The target is the widest
 * label and a gap, times √2: no two longitude labels can touch.
 */
export function graticuleTarget(widestLabel: number): number {
  return Math.ceil((widestLabel + LABEL_GAP) * Math.SQRT2);
}

/** A text's width in GRATICULE_FONT, from a canvas of its own (an estimate without one: a test's DOM). */
function textWidth(): (text: string) => number {
  const ctx = typeof document === 'undefined' ? null : document.createElement('canvas').getContext('2d');
  if (ctx) ctx.font = GRATICULE_FONT;
  const widths = new Map<string, number>();
  return (text) => {
    let w = widths.get(text);
    if (w === undefined) {
      w = ctx ? ctx.measureText(text).width : text.length * 7.2;
      if (widths.size > 2000) widths.clear();
      widths.set(text, w);
    }
    return w;
  };
}

/**
 * How far above the map's bottom edge a label must end to be drawn: a line's label is decided when OpenLayers makes
 * the line, and kept while the view moves a little (a fit's last frames, the map a line shorter as the status line
 * wraps), so a label just inside would be drawn cut a pixel or two later. (The top is the longitudes' own row; the
 * sides do not move.)
 */
const EDGE_MARGIN = 4;

const overlaps = (a: Box, b: Box): boolean => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

/** Where a longitude's label goes (map pixels, halo included), its meridian at `x`. */
const lonBox = (x: number, w: number): Box => [x - w / 2 - HALO, 0, x + w / 2 + HALO, LON_BOX];
/** Where a latitude's label goes, its parallel at `y`, in a map `width` wide. */
const latBox = (y: number, w: number, width: number): Box => [width * LAT_AT - w - HALO, y - LAT_HALF, width * LAT_AT + HALO, y + LAT_HALF];

/**
 * Whether a label in `box` is drawn on a map `width` × `height`: whole inside it, off what keeps labels off, and (a
 * latitude's) below the row of longitudes.
 */
export function labelFits(box: Box, width: number, height: number, keepOff: readonly Box[], latitude: boolean, margin = 0): boolean {
  if (box[0] < 0 || box[2] > width || box[1] < 0 || box[3] > height - margin) return false;
  if (latitude && box[1] < LON_BOX) return false;
  return !keepOff.some((k) => overlaps(box, k));
}

/**
 * The map's size and view as a label's place is worked out from them, or null before it is drawn. `keepOff` given,
 * those boxes, else what keeps labels off read from the page.
 */
function frame(map: OlMap | null, keepOff?: Box[]): { width: number; height: number; extent: number[]; resolution: number; keepOff: Box[] } | null {
  const size = map?.getSize();
  const view = map?.getView();
  const resolution = view?.getResolution();
  if (!map || !size || !view || resolution === undefined || view.getRotation() !== 0) return null;
  return { width: size[0]!, height: size[1]!, extent: view.calculateExtent(size), resolution, keepOff: keepOff ?? coveringBoxes(map, KEEP_OFF) };
}

/** The graticule of the map `getMap` answers (the map does not exist yet when its layers are made). */
export function makeGraticule(getMap: () => OlMap | null): Graticule {
  const measure = textWidth();
  // Read once per view (the labels are formatted a dozen at a time), never across two: during a zoom's animation a
  // frame's labels decided with the frame before's view were left where the boxes said there were none.
  let cached: { key: string; f: ReturnType<typeof frame> } = { key: '', f: null };
  const current = () => {
    const map = getMap();
    const view = map?.getView();
    const key = `${view?.getCenter()?.join()}|${view?.getResolution()}|${map?.getSize()?.join()}`;
    if (key !== cached.key) {
      // While the view pans or zooms, what keeps the labels off (the zoom buttons, the Layers button: they do not
      // move with it) is kept from the frame before: read from the page at every frame, the boxes forced a layout
      // in each (the scale line's and cursor read-out's changes), about a millisecond of a zoom's frame of ten.
      const moving = view !== undefined && (view.getAnimating() || view.getInteracting());
      cached = { key, f: frame(map, moving ? cached.f?.keepOff : undefined) };
    }
    return cached.f;
  };
  // Each label's last decision, as OpenLayers keeps it: it formats a line's label when it makes the line, and keeps
  // lines (and so their labels) while the view's extent moves by less than a pixel — the end of a fit's animation
  // reuses the frame before's. The boxes (graticuleLabelBoxes) follow these decisions, not the view's own.
  const shown = new Map<string, boolean>();
  const lonLabel = (lon: number) => {
    const text = lonText(lon);
    const f = current();
    if (!f) return text;
    const x = (fromLonLat([lon, 0])[0]! - f.extent[0]!) / f.resolution;
    const fits = labelFits(lonBox(x, measure(text)), f.width, f.height, f.keepOff, false, EDGE_MARGIN);
    shown.set(`lon ${text}`, fits);
    return fits ? text : '';
  };
  const latLabel = (lat: number) => {
    const text = latText(lat);
    const f = current();
    if (!f) return text;
    const y = (f.extent[3]! - fromLonLat([0, lat])[1]!) / f.resolution;
    const fits = labelFits(latBox(y, measure(text), f.width), f.width, f.height, f.keepOff, true, EDGE_MARGIN);
    shown.set(`lat ${text}`, fits);
    return fits ? text : '';
  };
  const graticule = new Graticule({
    strokeStyle: new Stroke({ color: 'rgba(0,0,0,0.12)', width: 1 }), showLabels: true, wrapX: false, targetSize: graticuleTarget(measure(WIDEST_LON)),
    lonLabelPosition: 1, latLabelPosition: LAT_AT, lonLabelFormatter: lonLabel, latLabelFormatter: latLabel,
    lonLabelStyle: new Text({ font: GRATICULE_FONT, textBaseline: 'top', offsetY: LON_TOP, fill: new Fill({ color: '#000' }), stroke: halo() }),
    latLabelStyle: new Text({ font: GRATICULE_FONT, textAlign: 'right', fill: new Fill({ color: '#000' }), stroke: halo() }),
  });
  decisions.set(graticule, shown);
  return graticule;
}

/** The labels' last decisions of each graticule made here (makeGraticule), by `lon <text>` / `lat <text>`. */
const decisions = new WeakMap<Graticule, Map<string, boolean>>();

/**
 * The boxes (map pixels, halo included) of the labels the graticule drew at the map's last render, for a view that
 * is not rotated (a rotated one puts them elsewhere: none then): the ones its formatters kept, by the same rule.
 * `measure` is the text's width in GRATICULE_FONT.
 */
export function graticuleLabelBoxes(graticule: Graticule, map: OlMap, measure: (text: string) => number): Box[] {
  const f = frame(map);
  if (!f) return [];
  // As the formatters decided when OpenLayers made the lines; a graticule made elsewhere, by the rule itself.
  const made = decisions.get(graticule);
  const drawn = (key: string, rule: () => boolean) => made?.get(key) ?? rule();
  const boxes: Box[] = [];
  for (const line of graticule.getMeridians()) {
    const c = line.getFirstCoordinate();
    // No pixel while the map has not been rendered (hidden, as on the first run's Connect form): no box either.
    const px = map.getPixelFromCoordinate(c) as number[] | null;
    if (!px) return [];
    const text = lonText(toLonLat(c)[0]!);
    const box = lonBox(px[0]!, measure(text));
    if (drawn(`lon ${text}`, () => labelFits(box, f.width, f.height, f.keepOff, false))) boxes.push(box);
  }
  for (const line of graticule.getParallels()) {
    const c = line.getFirstCoordinate();
    const px = map.getPixelFromCoordinate(c) as number[] | null;
    if (!px) return [];
    const text = latText(toLonLat(c)[1]!);
    const box = latBox(px[1]!, measure(text), f.width);
    if (drawn(`lat ${text}`, () => labelFits(box, f.width, f.height, f.keepOff, true))) boxes.push(box);
  }
  return boxes;
}
