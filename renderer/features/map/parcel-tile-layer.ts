// Every parcel at every zoom: the host's parcel tiles (core/api-parcel-tiles.ts parcelTiles; MVT cut from the mirror,
// backend/parcel-tiles.ts) drawn by OpenLayers' VectorTile layer with the parcel layers' own style (parcel-style.ts:
// sync-state colours and marks, crop colours), a parcel smaller than a pixel as a dot in the same colours. The map
// shows it when a view holds more parcels than it reads exactly (MapView); the host drops a changed parcel's tiles
// before the page hears of the change, and `refresh` reads the tiles in view again under a new address (the old
// ones drawn until the new have come, so an edit shows without the map going blank).
import VectorTileLayer from 'ol/layer/VectorTile.js';
import VectorTileSource from 'ol/source/VectorTile.js';
import MVT from 'ol/format/MVT.js';
import type { FeatureLike } from 'ol/Feature.js';
import { Fill, Style } from 'ol/style.js';
import type SimpleGeometry from 'ol/geom/SimpleGeometry.js';
import RenderFeature from 'ol/render/Feature.js';
import { parcelStyle, rgba, type ColourOf } from './parcel-style.ts';
import type { ColourBy } from '../rotations/rotation-store.ts';
import { colourKey, type ActiveCrop } from '../rotations/crop-legend.ts';
import { NO_CROP_COLOUR } from '../../../core/crops/family-colours.ts';
import { stateColor } from '../../states.ts';

/** The tile's active crop, as the viewport's features carry it (properties.crop), for the shared style. */
function cropOf(f: FeatureLike): ActiveCrop | null {
  const name = f.get('cropName') as string | undefined;
  const family = f.get('family') as string | undefined;
  return name || family ? { name: name ?? null, family: family ?? null } : null;
}

/** The tile features seen as the viewport's: `crop` an object, the rest as they are. */
const asParcel = (f: FeatureLike): FeatureLike => ({ get: (k: string) => (k === 'crop' ? cropOf(f) : f.get(k)) }) as FeatureLike;

/** Half the side of a sub-pixel parcel's dot, in pixels: a square of about 3 px. */
const DOT_HALF_PX = 1.5;

/** The square of half-side `h` (map units) around a point feature, as a polygon of the tile's own kind. */
function square(f: FeatureLike, h: number): RenderFeature {
  const [x, y] = (f.getGeometry() as RenderFeature | SimpleGeometry).getFlatCoordinates() as [number, number];
  return new RenderFeature('Polygon', [x - h, y - h, x + h, y - h, x + h, y + h, x - h, y + h, x - h, y - h], [10], 2, {}, undefined);
}

/**
 * The style of the tiles' features: polygons as the parcel layers draw them, points (parcels under a pixel) as squares
 * of about 3 px in the fill's colour. The squares are polygons, not an image style: in the layer's hybrid mode
 * polygons are drawn once into each tile's image, while images are drawn again one by one on every frame (a save,
 * a drawImage and a restore each): with hundreds of thousands of dots in view that made every frame of a pan 50-80 ms.
 * `resolution` is the tile's, so a square stays about 3 px at the zoom its tile was cut for. One Style per colour and
 * resolution; a square is a RenderFeature, which the renderer takes as it is (no simplified copy of it made).
 */
export function tileStyle(colourBy: () => ColourBy, colourOf: ColourOf) {
  const polygon = parcelStyle(colourBy, colourOf);
  const squares = new Map<string, Style>();
  return (f: FeatureLike, resolution: number) => {
    if (f.getGeometry()?.getType() !== 'Point') return polygon(asParcel(f));
    const by = colourBy();
    const key = colourKey(cropOf(f), by);
    const colour = by === 'state' ? stateColor(String(f.get('state'))) : key === null ? NO_CROP_COLOUR : colourOf(by, key);
    const id = `${colour}|${resolution}`;
    let s = squares.get(id);
    if (!s) {
      if (squares.size > 1000) squares.clear();
      const h = DOT_HALF_PX * resolution;
      squares.set(id, (s = new Style({ fill: new Fill({ color: rgba(colour, 0.9) }), geometry: (g) => square(g, h) })));
    }
    return s;
  };
}

export class ParcelTileLayer {
  readonly layer: VectorTileLayer;
  private source: VectorTileSource | null = null;
  private template: string | null = null;
  private version = 0;

  constructor(colourBy: () => ColourBy, colourOf: ColourOf) {
    // Hybrid: the polygons (the dots too, tileStyle) drawn once into each tile's image, which a frame only copies.
    this.layer = new VectorTileLayer({ style: tileStyle(colourBy, colourOf), renderMode: 'hybrid', visible: false, declutter: false });
  }

  /**
   * Reads the tiles at the bytes path `template` ({z}, {x}, {y} to fill in), up to `maxZoom`, each made a URL by
   * `toUrl` (renderer/bytes-url.ts); the same template again keeps the source.
   */
  use(template: string, maxZoom: number, toUrl: (path: string) => string): void {
    if (template === this.template) return;
    this.template = template;
    this.source = new VectorTileSource({ format: new MVT({ idProperty: 'id' }), maxZoom, tileSize: 512 });
    this.toUrl = toUrl;
    this.source.setTileUrlFunction(this.urlOf, `v${this.version}`);
    this.layer.setSource(this.source);
  }

  /** The tiles in view are read again (the host cut the changed ones anew); those drawn stay until the new have come. */
  refresh(): void {
    if (!this.source || !this.template) return;
    this.version++;
    this.source.setTileUrlFunction(this.urlOf, `v${this.version}`);
  }

  /** Drawn again with the style's new colours (crop colours changed). */
  restyle(): void {
    this.layer.changed();
  }

  show(on: boolean): void {
    this.layer.setVisible(on && this.source !== null);
  }

  get shown(): boolean {
    return this.layer.getVisible();
  }

  private toUrl: (path: string) => string = (p) => p;

  // Both shells read a bytes path without its query (core/bytes-protocol.ts): the version only makes the address new,
  // so that OpenLayers, which keeps a tile by its address, reads it again.
  private readonly urlOf = (c: number[]): string | undefined => this.template
    ? `${this.toUrl(this.template.replace('{z}', String(c[0])).replace('{x}', String(c[1])).replace('{y}', String(c[2])))}?v=${this.version}`
    : undefined;
}
