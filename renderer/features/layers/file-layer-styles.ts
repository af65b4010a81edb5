// How the user's own vector files look under the parcels. A vector tile set (MBTiles or PMTiles of MVT) comes with no
// style the map could read (MapLibre's style documents fetch their fonts and sprites from a server): one default
// style reads what the common schemas (OpenMapTiles, Protomaps, Shortbread, a tile set GDAL wrote from the user's own
// layers) have in common — water, land use, roads, boundaries, buildings, places — by each feature's layer name and
// its kind/class, and draws anything else plainly by its geometry. Labels use the font bundled with the page (Noto Sans,
// features/map/map-font.ts): nothing is fetched. A read-only vector overlay (cadastre, roads, drains) is drawn plainly in one colour, thin enough to see the
// parcels and the photo under it.
import { Circle, Fill, Stroke, Style, Text } from 'ol/style.js';
import type { FeatureLike } from 'ol/Feature.js';
import { mapFont } from '../map/map-font.ts';

export type TileCategory = 'water' | 'land' | 'road' | 'rail' | 'boundary' | 'building' | 'place' | 'other';

/** Checked in order: the first that matches a feature's kind/class, then its layer's name. */
const CATEGORIES: [TileCategory, RegExp][] = [
  ['water', /water|ocean|sea\b|lake|river|stream|canal|drain|ditch|pond|reservoir|basin|wetland/],
  ['rail', /rail/],
  ['road', /road|transport|highway|street|motorway|trunk|primary|secondary|tertiary|residential|service|track|path|way\b/],
  ['boundary', /bound|admin|border/],
  ['building', /build/],
  ['land', /land|park|wood|forest|farm|grass|meadow|orchard|vineyard|crop|scrub|green|earth|cover/],
  ['place', /place|label|poi|name|city|town|village/],
];

/** What a vector tile's feature is, by its kind or class (more telling) and then its layer. */
export function tileCategory(layer: string, kind: unknown): TileCategory {
  const k = typeof kind === 'string' ? kind.toLowerCase() : '';
  for (const [c, re] of CATEGORIES) if (k && re.test(k)) return c;
  const l = layer.toLowerCase();
  for (const [c, re] of CATEGORIES) if (re.test(l)) return c;
  return 'other';
}

/** A road's width in pixels by its class: major roads wider. */
export function roadWidth(kind: unknown): number {
  const k = typeof kind === 'string' ? kind.toLowerCase() : '';
  if (/motorway|trunk|highway/.test(k)) return 4;
  if (/primary/.test(k)) return 3;
  if (/secondary|tertiary/.test(k)) return 2.5;
  return 1.5;
}

export const TILE_COLOURS = {
  water: '#a8cce8', waterLine: '#6aa3d6', land: '#dfe9c8', road: '#ffffff', roadCasing: '#9a9a9a', rail: '#8c8c8c',
  boundary: '#8a5ca8', building: '#d9d0c9', buildingLine: '#bfb5ac', other: '#6b6b6b', label: '#2b2b2b',
} as const;

/** The font bundled with the page (features/map/map-font.ts; nothing fetched): the same as the parcels' labels. */
const FONT = mapFont(12);
/** Labels from this resolution down (metres a pixel: about zoom 12). */
const LABEL_RESOLUTION = 40;

const fill = (c: string) => new Fill({ color: c });
const stroke = (c: string, width: number, lineDash?: number[]) => new Stroke({ color: c, width, lineDash });
const S = {
  waterArea: new Style({ fill: fill(TILE_COLOURS.water) }),
  waterLine: new Style({ stroke: stroke(TILE_COLOURS.waterLine, 1.5) }),
  land: new Style({ fill: fill(TILE_COLOURS.land) }),
  rail: new Style({ stroke: stroke(TILE_COLOURS.rail, 1.5, [6, 3]) }),
  boundary: new Style({ stroke: stroke(TILE_COLOURS.boundary, 1, [5, 4]) }),
  building: new Style({ fill: fill(TILE_COLOURS.building), stroke: stroke(TILE_COLOURS.buildingLine, 0.75) }),
  otherArea: new Style({ fill: fill('rgba(107,107,107,0.12)'), stroke: stroke(TILE_COLOURS.other, 0.75) }),
  otherLine: new Style({ stroke: stroke(TILE_COLOURS.other, 1.2) }),
  point: new Style({ image: new Circle({ radius: 3, fill: fill(TILE_COLOURS.other) }) }),
};
const roads = new Map<number, Style[]>();
function roadStyle(width: number): Style[] {
  let s = roads.get(width);
  if (!s) {
    s = [new Style({ stroke: stroke(TILE_COLOURS.roadCasing, width + 2), zIndex: 1 }), new Style({ stroke: stroke(TILE_COLOURS.road, width), zIndex: 2 })];
    roads.set(width, s);
  }
  return s;
}

const nameOf = (f: FeatureLike): string | null => {
  for (const k of ['name', 'name:latin', 'name_en', 'name:en', 'NAME', 'nombre']) {
    const v = f.get(k);
    if (typeof v === 'string' && v.trim()) return v.trim();
  }
  return null;
};

function label(text: string, line: boolean): Style {
  return new Style({
    text: new Text({
      text, font: FONT, placement: line ? 'line' : 'point', overflow: false, offsetY: line ? 0 : -10,
      fill: fill(TILE_COLOURS.label), stroke: stroke('#ffffff', 3),
    }),
    zIndex: 10,
  });
}

/** The default style of a vector tile set's features. */
export function vectorTileStyle(f: FeatureLike, resolution: number): Style | Style[] {
  const type = f.getGeometry()?.getType() ?? 'Point';
  const area = type === 'Polygon' || type === 'MultiPolygon';
  const line = type === 'LineString' || type === 'MultiLineString';
  const kind = f.get('kind') ?? f.get('class') ?? f.get('type') ?? f.get('highway');
  const cat = tileCategory(String(f.get('layer') ?? ''), kind);
  const name = resolution <= LABEL_RESOLUTION ? nameOf(f) : null;
  let base: Style | Style[];
  if (!area && !line) return name ? [S.point, label(name, false)] : S.point;
  switch (cat) {
    case 'water': base = area ? S.waterArea : S.waterLine; break;
    case 'land': base = area ? S.land : S.otherLine; break;
    case 'road': base = area ? S.otherArea : roadStyle(roadWidth(kind)); break;
    case 'rail': base = S.rail; break;
    case 'boundary': base = S.boundary; break;
    case 'building': base = area ? S.building : S.otherLine; break;
    default: base = area ? S.otherArea : S.otherLine;
  }
  if (!name || (area && cat !== 'place')) return base;
  return [...(Array.isArray(base) ? base : [base]), label(name, line)];
}

/** The read-only overlay's one colour. */
export const OVERLAY_COLOUR = '#c2410c';
const OVERLAY_POINT = new Circle({ radius: 4, fill: fill('#ffffff'), stroke: stroke(OVERLAY_COLOUR, 2) });
const OVERLAY = {
  area: new Style({ fill: fill('rgba(194,65,12,0.08)'), stroke: stroke(OVERLAY_COLOUR, 1.5) }),
  line: new Style({ stroke: stroke(OVERLAY_COLOUR, 2) }),
  point: new Style({ image: OVERLAY_POINT }),
  mixed: new Style({ fill: fill('rgba(194,65,12,0.08)'), stroke: stroke(OVERLAY_COLOUR, 2), image: OVERLAY_POINT }),
};

/** A vector overlay's features: outlines, lines and points in one colour. */
export function overlayStyle(f: FeatureLike): Style {
  const type = f.getGeometry()?.getType() ?? 'Point';
  if (type === 'Polygon' || type === 'MultiPolygon') return OVERLAY.area;
  if (type === 'LineString' || type === 'MultiLineString') return OVERLAY.line;
  if (type === 'GeometryCollection') return OVERLAY.mixed;
  return OVERLAY.point;
}
