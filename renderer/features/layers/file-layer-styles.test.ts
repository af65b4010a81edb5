// The default style of a vector tile set and of a vector overlay: features told by kind/class first, then by their
// layer's name, across the common schemas; anything else drawn plainly by its geometry; labels only close in.
import { describe, expect, it } from 'vitest';
import Feature from 'ol/Feature.js';
import Point from 'ol/geom/Point.js';
import LineString from 'ol/geom/LineString.js';
import Polygon from 'ol/geom/Polygon.js';
import type { Style } from 'ol/style.js';
import { OVERLAY_COLOUR, overlayStyle, roadWidth, TILE_COLOURS, tileCategory, vectorTileStyle } from './file-layer-styles.ts';

const area = new Polygon([[[0, 0], [1, 0], [1, 1], [0, 0]]]);
const line = new LineString([[0, 0], [1, 1]]);
const f = (geometry: Point | LineString | Polygon, props: Record<string, unknown>) => new Feature({ geometry, ...props });
const styles = (s: Style | Style[]) => (Array.isArray(s) ? s : [s]);
const fillOf = (s: Style | Style[]) => styles(s)[0]!.getFill()?.getColor();
const strokes = (s: Style | Style[]) => styles(s).map((x) => x.getStroke()?.getColor()).filter(Boolean);

describe('vector tile style', () => {
  it("tells features by kind or class, then by their layer, across the common schemas", () => {
    expect(tileCategory('water', undefined)).toBe('water'); // OpenMapTiles
    expect(tileCategory('landuse', 'farmland')).toBe('land');
    expect(tileCategory('transportation', 'primary')).toBe('road');
    expect(tileCategory('roads', 'rail')).toBe('rail'); // Protomaps: kind over layer
    expect(tileCategory('roads', 'drain')).toBe('water');
    expect(tileCategory('boundaries', undefined)).toBe('boundary');
    expect(tileCategory('building', undefined)).toBe('building');
    expect(tileCategory('place', 'village')).toBe('place');
    expect(tileCategory('parcelas', undefined)).toBe('other');
    expect([roadWidth('motorway'), roadWidth('primary'), roadWidth('secondary'), roadWidth('track'), roadWidth(undefined)]).toEqual([4, 3, 2.5, 1.5, 1.5]);
  });

  it('draws water, land, roads (cased) and anything else by its geometry; names only close in', () => {
    expect(fillOf(vectorTileStyle(f(area, { layer: 'water' }), 10))).toBe(TILE_COLOURS.water);
    expect(strokes(vectorTileStyle(f(line, { layer: 'waterway', class: 'river' }), 10))).toEqual([TILE_COLOURS.waterLine]);
    expect(fillOf(vectorTileStyle(f(area, { layer: 'landcover', class: 'wood' }), 10))).toBe(TILE_COLOURS.land);
    expect(strokes(vectorTileStyle(f(line, { layer: 'transportation', class: 'primary' }), 10))).toEqual([TILE_COLOURS.roadCasing, TILE_COLOURS.road]);
    const named = styles(vectorTileStyle(f(line, { layer: 'roads', kind: 'minor_road', name: 'Camino de la Vega' }), 10));
    expect(named.at(-1)!.getText()?.getText()).toBe('Camino de la Vega');
    expect(named.at(-1)!.getText()?.getFont()).toBe('12px "Noto Sans", system-ui, sans-serif');
    // Far out: no labels.
    expect(styles(vectorTileStyle(f(line, { layer: 'roads', name: 'Camino' }), 500)).every((s) => !s.getText())).toBe(true);
    expect(styles(vectorTileStyle(f(new Point([0, 0]), { layer: 'roads', kind: 'well' }), 10))[0]!.getImage()).toBeTruthy();
    expect(strokes(vectorTileStyle(f(area, { layer: 'parcelas' }), 10))).toEqual([TILE_COLOURS.other]);
  });
});

describe('vector overlay style', () => {
  it('draws outlines, lines and points in one colour', () => {
    expect(overlayStyle(f(area, {})).getStroke()?.getColor()).toBe(OVERLAY_COLOUR);
    expect(overlayStyle(f(line, {})).getStroke()?.getColor()).toBe(OVERLAY_COLOUR);
    expect(overlayStyle(f(new Point([0, 0]), {})).getImage()).toBeTruthy();
  });
});
