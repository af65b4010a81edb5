// The parcel layers of the map, owned by MapView (one instance, in a ref; never in the store):
// - canvas: a VectorImage layer. It draws the parcels into one image when the view rests, and pan and zoom move and
//   scale that image instead of drawing 50,000 polygons every frame (a plain Vector layer took p95 152 ms a frame at
//   100,000 parcels); the image is drawn again once the view stops.
// - webgl: a WebGLVector layer on the same source, used for large answers when this browser has WebGL. Without it
//   (webglAvailable() false) the canvas layer draws every answer: the fallback.
// - selection: the selected parcel alone on a small Vector layer above, so selecting never redraws the parcel image.
// - marked: the attribute table's selected rows in view (features/table/), outlined on a Vector layer of their own.
// - labels: the parcels' names, placed as QGIS would (parcel-labels.ts), on a layer above all these and the plants.
// - tiles: every parcel, as the host's vector tiles (parcel-tile-layer.ts), under them all: shown instead of the
//   canvas and WebGL layers when a view holds more parcels than the map reads exactly (MapView, EXACT_UP_TO).
// The renderer in use and WebGL's availability are written on the map element (data-parcel-renderer, data-webgl)
// for the tests and the benchmark; performance marks say when parcels were first drawn and how long hits took.
import type OlMap from 'ol/Map.js';
import type Feature from 'ol/Feature.js';
import type BaseLayer from 'ol/layer/Base.js';
import VectorLayer from 'ol/layer/Vector.js';
import VectorImageLayer from 'ol/layer/VectorImage.js';
import WebGLVectorLayer from 'ol/layer/WebGLVector.js';
import VectorSource from 'ol/source/Vector.js';
import type { Pixel } from 'ol/pixel.js';
import type { Coordinate } from 'ol/coordinate.js';
import { markedStyle, parcelFlatStyle, parcelStyle, selectedStyle } from './parcel-style.ts';
import { webglAvailable } from './webgl.ts';
import { LABELS_UP_TO, ParcelLabels } from './parcel-labels.ts';
import { ParcelTileLayer } from './parcel-tile-layer.ts';
import type { ColourBy, CropColours } from '../rotations/rotation-store.ts';
import { colourIn } from '../../../core/crops/family-colours.ts';

/** Answers larger than this go to the WebGL layer when there is one; smaller ones keep the canvas layer's names. */
export const WEBGL_FROM = LABELS_UP_TO;

export type ParcelRenderer = 'canvas' | 'webgl' | 'tiles';

const HIT_TOLERANCE = 3;

/** The parcel containing `at`, else the nearest one within `tolerance` (map units), from the source's index. */
function nearestAt(source: VectorSource, at: Coordinate, tolerance: number): Feature | null {
  let best: Feature | null = null;
  let bestD = Infinity;
  const box = [at[0]! - tolerance, at[1]! - tolerance, at[0]! + tolerance, at[1]! + tolerance];
  source.forEachFeatureInExtent(box, (f) => {
    const g = f.getGeometry();
    if (!g) return;
    if (g.intersectsCoordinate(at)) { best = f; bestD = -1; return true; }
    const c = g.getClosestPoint(at);
    const d = Math.hypot(c[0]! - at[0]!, c[1]! - at[1]!);
    if (d <= tolerance && d < bestD) { best = f; bestD = d; }
    return undefined;
  });
  return best;
}

export class ParcelLayers {
  readonly canvas: VectorImageLayer<VectorSource>;
  readonly webgl: WebGLVectorLayer<VectorSource> | null;
  readonly selection: VectorLayer<VectorSource>;
  readonly marked: VectorLayer<VectorSource>;
  readonly labels: ParcelLabels;
  readonly tiles: ParcelTileLayer;
  private readonly picked = new VectorSource();
  private readonly markedSource = new VectorSource();
  private markedIds: ReadonlySet<string> = new Set();
  private renderer: ParcelRenderer = 'canvas';
  /** What the canvas layer colours parcels by; anything but the sync state keeps every answer on it (see shown). */
  private colouring: ColourBy = 'state';
  /** The account's colours of families and crops (rotation-store.ts), which the canvas and selection styles read. */
  private palette: CropColours = { family: new Map(), crop: new Map() };
  private map: OlMap | null = null;
  private firstDrawn = false;
  private loadStart = 0;

  constructor(readonly source: VectorSource, webgl = webglAvailable()) {
    // imageRatio 1.5: the image covers half a view more on every side, so a short pan shows drawn parcels at once.
    const colourOf = (by: 'family' | 'crop', key: string) => colourIn(this.palette[by], key);
    this.canvas = new VectorImageLayer({ source, style: parcelStyle(() => this.colouring, colourOf), imageRatio: 1.5 });
    this.webgl = webgl ? new WebGLVectorLayer({ source, style: parcelFlatStyle(), visible: false, disableHitDetection: true }) : null;
    this.selection = new VectorLayer({ source: this.picked, style: selectedStyle(() => this.colouring, colourOf) });
    this.marked = new VectorLayer({ source: this.markedSource, style: markedStyle() });
    this.labels = new ParcelLabels(source);
    this.tiles = new ParcelTileLayer(() => this.colouring, colourOf);
  }

  /** The layers, bottom to top, for the map's layer list. */
  layers(): BaseLayer[] {
    return [this.tiles.layer, this.canvas, ...(this.webgl ? [this.webgl] : []), this.marked, this.selection, this.labels.layer];
  }

  attach(map: OlMap): void {
    this.map = map;
    this.labels.attach(map);
    this.mark();
  }

  /** The map is going: its listeners are removed. */
  detach(): void {
    this.labels.detach();
    this.map = null;
  }

  /** The parcels of a new view are asked for (after a move, a change): marked, so reading and drawing them is timed. */
  loading(): void {
    this.loadStart = performance.mark('furrow:load').startTime;
  }

  /** After an answer of `count` parcels was put in the source: picks the layer that draws it. */
  shown(count: number): void {
    // Coloured by crop, the canvas layer draws every answer: the WebGL layer's style colours by sync state only.
    this.renderer = this.webgl && count > WEBGL_FROM && this.colouring === 'state' ? 'webgl' : 'canvas';
    this.canvas.setVisible(this.renderer === 'canvas');
    this.webgl?.setVisible(this.renderer === 'webgl');
    this.tiles.show(false);
    this.drawn(count);
  }

  /**
   * The view holds more parcels than are read exactly: the tiles draw them all (the source keeps only the selected
   * parcel, exact, for the selection and editing layers); their time from asking to drawn is measured as an answer's.
   */
  tilesShown(): void {
    this.renderer = 'tiles';
    this.canvas.setVisible(false);
    this.webgl?.setVisible(false);
    this.tiles.show(true);
    this.drawn(-1);
  }

  /** On screen once the map has finished rendering (`count` parcels read, or -1: the tiles). */
  private drawn(count: number): void {
    this.mark();
    const m = this.map;
    if (!m) return;
    const first = !this.firstDrawn && count !== 0;
    if (first) this.firstDrawn = true;
    const start = this.loadStart;
    // On screen once the map has finished rendering them: the first answer's is the first-paint mark, and every
    // answer's time from asking to drawn is a `furrow:reload` measure (bench/map.ts reads both).
    m.once('rendercomplete', () => {
      const detail = { count, renderer: this.renderer };
      if (first) performance.mark('furrow:parcels-drawn', { detail });
      performance.measure('furrow:reload', { start, end: performance.now(), detail });
    });
    // The tiles may all be drawn already (the same view's, cached): a render, so that its rendercomplete comes.
    m.render();
  }

  /** Colours the parcels by sync state, or by their active crop's family or name (the next answer carries the crops). */
  colourBy(by: ColourBy): void {
    if (by === this.colouring) return;
    this.colouring = by;
    this.canvas.changed();
    this.selection.changed();
    this.tiles.restyle();
  }

  /** The account's colours of families and crops changed (a crop added or renamed): drawn again with them. */
  colours(palette: CropColours): void {
    if (palette === this.palette) return;
    this.palette = palette;
    if (this.colouring === 'state') return;
    this.canvas.changed();
    this.selection.changed();
    this.tiles.restyle();
  }

  /** Shows `id` as selected (or nothing), from the parcels in the source. */
  select(id: string | null): void {
    this.picked.clear(true);
    const f = id === null ? null : this.source.getFeatureById(id);
    if (f) this.picked.addFeature(f as Feature);
    this.picked.changed();
    this.labels.select(id);
  }

  /**
   * Marks the table's selected rows that are in the source (the view): `ids` given, those; else the last ones again,
   * after a new answer. At most the view's parcels, found by id.
   */
  markRows(ids?: ReadonlySet<string>): void {
    if (ids) this.markedIds = ids;
    const found: Feature[] = [];
    if (this.markedIds.size) {
      // The smaller side looked up in the other: 500 rows selected among 20,000 in view, or all of them.
      if (this.markedIds.size < this.source.getFeatures().length) {
        for (const id of this.markedIds) { const f = this.source.getFeatureById(id); if (f) found.push(f as Feature); }
      } else {
        for (const f of this.source.getFeatures()) if (this.markedIds.has(String(f.getId()))) found.push(f);
      }
    }
    this.markedSource.clear(true);
    this.markedSource.addFeatures(found);
    this.markedSource.changed();
    const el = this.map?.getTargetElement();
    if (el) el.dataset.marked = String(found.length);
  }

  /** Whether the tiles draw the view (the source then holds the selected parcel alone). */
  get tiled(): boolean {
    return this.renderer === 'tiles';
  }

  /** The parcel under the pixel (3 px of tolerance); its time is measured. */
  hit(pixel: Pixel): Feature | null {
    const m = this.map;
    if (!m) return null;
    const start = performance.now();
    // Found in the source's index by geometry, whichever layer draws: the WebGL layer's hit detection reads back a
    // colour buffer that misses sub-pixel parcels, and the canvas layer's forEachFeatureAtPixel took p95 160 ms with
    // 20,000 parcels in view (bench/map.ts); the index answers in a few ms at the same 3 px.
    const f = nearestAt(this.source, m.getCoordinateFromPixel(pixel), HIT_TOLERANCE * (m.getView().getResolution() ?? 1));
    performance.measure('furrow:hit', { start, end: performance.now() });
    return f;
  }

  private mark(): void {
    const el = this.map?.getTargetElement();
    if (!el) return;
    el.dataset.parcelRenderer = this.renderer;
    el.dataset.webgl = this.webgl ? 'available' : 'unavailable';
  }
}
