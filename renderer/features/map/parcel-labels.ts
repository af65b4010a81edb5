// The parcels' names on a layer of their own, above every parcel layer and the plants (owned by ParcelLayers, in a
// ref of MapView; never in the store). After each move, resize and change of the parcels in view, label-placement.ts
// chooses where each name goes in screen pixels (inside its shape, smaller, or beside it with a leader); this layer
// draws those names and leaders. The names keep off the graticule's labels (graticule.ts) and what covers the map.
// What was placed is a `furrow:labels` performance mark (its detail: the names and their boxes in map pixels), which
// the end-to-end tests read.
import type OlMap from 'ol/Map.js';
import Feature from 'ol/Feature.js';
import type { FeatureLike } from 'ol/Feature.js';
import VectorLayer from 'ol/layer/Vector.js';
import Graticule from 'ol/layer/Graticule.js';
import VectorSource from 'ol/source/Vector.js';
import { LineString, MultiPolygon, Point, Polygon } from 'ol/geom.js';
import { Fill, Stroke, Style, Text } from 'ol/style.js';
import { unByKey } from 'ol/Observable.js';
import type { EventsKey } from 'ol/events.js';
import type { Coordinate } from 'ol/coordinate.js';
import { placeLabels, type Box, type LabelParcel, type Pt } from './label-placement.ts';
import { labelText } from './state-marks.ts';
import { GRATICULE_FONT, graticuleLabelBoxes } from './graticule.ts';
import { coveringBoxes } from './covering.ts';
import { mapFont } from './map-font.ts';

/** Below this resolution (m/pixel, field scale) parcels carry their names; above, only the selected one. */
export const LABEL_RESOLUTION = 25;
/** Parcels in view up to which names are placed (as many as the canvas layer draws; the WebGL layer draws no names). */
export const LABELS_UP_TO = 5000;
/**
 * Parcels in view up to which names that fit nowhere inside go beside their shapes. In a crowd of more, few would
 * find room, and looking for it (each spot checked against the shapes around) held the page for seconds at 5,000.
 */
export const BESIDE_UP_TO = 1000;
const font = (size: number, bold: boolean) => mapFont(size, bold);

/** The names' and leaders' styles, cached by size and weight. */
function labelStyle() {
  const cache = new Map<string, Style>();
  const leader = new Style({ stroke: new Stroke({ color: '#333', width: 1 }) });
  return (f: FeatureLike) => {
    if (f.getGeometry()?.getType() === 'LineString') return leader;
    const size = Number(f.get('size'));
    const bold = Boolean(f.get('bold'));
    const key = `${size}|${bold}`;
    let s = cache.get(key);
    if (!s) {
      s = new Style({
        text: new Text({
          font: font(size, bold), fill: new Fill({ color: bold ? '#111' : '#222' }), stroke: new Stroke({ color: '#fff', width: 3 }),
          textAlign: 'center', textBaseline: 'middle',
        }),
      });
      cache.set(key, s);
    }
    s.getText()!.setText(String(f.get('text')));
    return s;
  };
}

/** Largest parcels first, after those with work not yet synced (the ones people look for). */
function priority(a: { state: string; area: number }, b: { state: string; area: number }): number {
  return Number(a.state === 'synced') - Number(b.state === 'synced') || b.area - a.area;
}

export class ParcelLabels {
  readonly layer: VectorLayer<VectorSource>;
  private readonly names = new VectorSource();
  private readonly context = document.createElement('canvas').getContext('2d');
  private readonly widths = new Map<string, number>();
  private selected: string | null = null;
  private map: OlMap | null = null;
  private keys: EventsKey[] = [];
  private frame = 0;
  /** What the names layer shows, as text: a placement that changes nothing leaves it be (each change redraws the map). */
  private shown = '';

  constructor(private readonly parcels: VectorSource) {
    // Above the plants (10) and the modified parcel (10), below an import's preview (20). Not decluttered by
    // OpenLayers: label-placement.ts already keeps the names apart, and a declutter would hide one instead of moving it.
    // The layers' own class: drawn on the canvas the parcel layers draw on, not a canvas of its own, which every
    // frame of a pan or zoom cleared, drew and handed to the compositor besides (issue 32: frame time).
    this.layer = new VectorLayer({ source: this.names, style: labelStyle(), zIndex: 15 });
  }

  attach(map: OlMap): void {
    this.map = map;
    const again = () => this.schedule();
    this.keys = [map.on('moveend', again), map.on('change:size', again), this.parcels.on('change', again)];
  }

  detach(): void {
    unByKey(this.keys);
    this.keys = [];
    cancelAnimationFrame(this.frame);
    this.map = null;
  }

  /**
   * The selected parcel's name, bold and placed first. Placed at once, not at the next frame: called as a selection
   * or an answer's parcels are shown, the names then change in the same frame as the parcels (one redraw of the
   * map, which with the WebGL layer on a software renderer took most of a second).
   */
  select(id: string | null): void {
    this.selected = id;
    cancelAnimationFrame(this.frame);
    this.place();
  }

  /** Places the names once per frame however many changes came in it (a drag of a vertex changes it at every move). */
  private schedule(): void {
    cancelAnimationFrame(this.frame);
    this.frame = requestAnimationFrame(() => this.place());
  }

  private measure(text: string, size: number, bold: boolean, as = font(size, bold)): number {
    const key = `${as}|${text}`;
    let w = this.widths.get(key);
    if (w === undefined) {
      if (this.context) this.context.font = as;
      w = this.context ? this.context.measureText(text).width : text.length * size * 0.6;
      if (this.widths.size > 20_000) this.widths.clear();
      this.widths.set(key, w);
    }
    return w;
  }

  /** The graticule's labels' boxes, in the map's pixels. */
  private graticule(map: OlMap): Box[] {
    const g = map.getAllLayers().find((l): l is Graticule => l instanceof Graticule);
    return g ? graticuleLabelBoxes(g, map, (t) => this.measure(t, 12, false, GRATICULE_FONT)) : [];
  }

  private place(): void {
    const start = performance.now();
    const m = this.map;
    const size = m?.getSize();
    const resolution = m?.getView().getResolution();
    if (!m || !size || resolution === undefined) return;
    // Not rendered (the map hidden, as on the first run's Connect form): no pixel to place a name at.
    if (!m.getPixelFromCoordinate([0, 0])) return;
    const extent = m.getView().calculateExtent(size);
    const inView = this.parcels.getFeaturesInExtent(extent);
    const all = resolution < LABEL_RESOLUTION && inView.length <= LABELS_UP_TO;
    const toPixel = (c: Coordinate): Pt => m.getPixelFromCoordinate(c) as Pt;
    const wanted = inView.flatMap((f) => {
      const id = String(f.getId());
      if (!all && id !== this.selected) return [];
      const g = f.getGeometry();
      const polygons = g instanceof Polygon ? [g.getCoordinates()] : g instanceof MultiPolygon ? g.getCoordinates() : [];
      if (polygons.length === 0) return [];
      const state = String(f.get('state'));
      const parcel: LabelParcel = {
        id, text: labelText(state, String(f.get('name'))), bold: id === this.selected,
        polygons: polygons.map((rings) => rings.map((ring) => ring.map(toPixel))),
      };
      return [{ parcel, state, area: g instanceof Polygon || g instanceof MultiPolygon ? g.getArea() : 0 }];
    }).sort(priority);
    const graticule = this.graticule(m);
    const placed = placeLabels(wanted.map((w) => w.parcel), {
      width: size[0]!, height: size[1]!, measure: (t, s, b) => this.measure(t, s, b), obstacles: [...coveringBoxes(m), ...graticule],
      beside: wanted.length <= BESIDE_UP_TO,
    });
    const features: Feature[] = [];
    for (const p of placed) {
      features.push(new Feature({ geometry: new Point(m.getCoordinateFromPixel(p.at)), text: p.text, size: p.size, bold: p.bold }));
      if (p.leader) features.push(new Feature({ geometry: new LineString(p.leader.map((px) => m.getCoordinateFromPixel(px))) }));
    }
    const shown = features.map((f) => `${f.get('text')}|${f.get('size')}|${f.get('bold')}|${f.getGeometry()!.getExtent().map((v) => v.toFixed(2)).join()}`).join('\n');
    if (shown !== this.shown) {
      this.shown = shown;
      this.names.clear(true);
      this.names.addFeatures(features);
    }
    performance.clearMarks('furrow:labels');
    performance.clearMeasures('furrow:place-labels');
    performance.measure('furrow:place-labels', { start, end: performance.now(), detail: { parcels: wanted.length } });
    performance.mark('furrow:labels', {
      detail: { parcels: wanted.length, graticule, placed: placed.map((p) => ({ id: p.id, text: p.text, kind: p.kind, size: p.size, box: p.box, leader: p.leader })) },
    });
  }
}
