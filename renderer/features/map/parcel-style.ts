// How parcels look: one colour and one set of marks per sync state (renderer/states.ts, state-marks.ts), the canvas
// layer's styles and the WebGL layer's flat style built from the same colours and dashes, and the selected parcel's
// outline drawn on a layer of its own (so a selection never makes the whole parcel image draw again).
import { Fill, Stroke, Style } from 'ol/style.js';
import type { FeatureLike } from 'ol/Feature.js';
import type { FlatStyle } from 'ol/style/flat.js';
import { STATES, stateColor } from '../../states.ts';
import { stateMark, type Hatch } from './state-marks.ts';
import type { ColourBy } from '../rotations/rotation-store.ts';
import { colourKey, type ActiveCrop } from '../rotations/crop-legend.ts';
import { familyColour, NO_CROP_COLOUR } from '../../../core/crops/family-colours.ts';

/** '#rrggbb' and an alpha (0–1) as the rgba() text both renderers read. */
export function rgba(hex: string, alpha: number): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255},${(n >> 8) & 255},${n & 255},${alpha})`;
}

/** The colour of a family or crop name, by what the map is coloured by (the account's, rotation-store.ts cropColour). */
export type ColourOf = (by: 'family' | 'crop', key: string) => string;
const alone: ColourOf = (_by, key) => familyColour(key);

/** A parcel's fill colour on a map coloured by crop: its active crop's (family's) colour, or grey; null by sync state. */
function cropFill(f: FeatureLike, by: ColourBy, colourOf: ColourOf): string | null {
  if (by === 'state') return null;
  const key = colourKey(f.get('crop') as ActiveCrop | null | undefined, by);
  return key === null ? NO_CROP_COLOUR : colourOf(by, key);
}

/** A canvas pattern of `hatch` lines in `color` on a clear ground, laid over a parcel's fill. */
export function hatchPattern(hatch: Hatch, color: string): CanvasPattern | string {
  const size = 8;
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = size;
  const g = canvas.getContext('2d');
  if (!g) return rgba(color, 0.35);
  g.strokeStyle = color;
  g.lineWidth = 1.5;
  g.beginPath();
  if (hatch === 'horizontal') {
    g.moveTo(0, size / 2);
    g.lineTo(size, size / 2);
  } else {
    // Corner to corner and across the two opposite corners, so the lines join from one tile to the next.
    g.moveTo(0, size); g.lineTo(size, 0);
    g.moveTo(-1, 1); g.lineTo(1, -1);
    g.moveTo(size - 1, size + 1); g.lineTo(size + 1, size - 1);
    if (hatch === 'cross') {
      g.moveTo(0, 0); g.lineTo(size, size);
      g.moveTo(size - 1, -1); g.lineTo(size + 1, 1);
      g.moveTo(-1, size - 1); g.lineTo(1, size + 1);
    }
  }
  g.stroke();
  return g.createPattern(canvas, 'repeat') ?? rgba(color, 0.35);
}

/** How a hatch becomes a fill: a canvas pattern on the map; tests pass their own. */
export type HatchFill = (hatch: Hatch, color: string) => CanvasPattern | string;

/**
 * The canvas layer's style function: one cached pair of Styles per state (and per crop colour). Each state has its
 * colour and its marks (state-marks.ts): the outline's dashes and a hatch over the fill, so states differ without
 * their hue. Coloured by crop (`colourBy()` 'family' or 'crop'), a parcel's fill is its active crop's colour and its
 * outline and hatch still its sync state's; a parcel without an active crop is grey (the legend's "No active crop"),
 * never its sync state's fill, which a reader of a crop map would take for a crop. Names are drawn by the label
 * layer (parcel-labels.ts), above the plants.
 */
export function parcelStyle(colourBy: () => ColourBy = () => 'state', colourOf: ColourOf = alone, hatchFill: HatchFill = hatchPattern) {
  const cache = new Map<string, Style[]>();
  return (f: FeatureLike) => {
    const state = String(f.get('state'));
    const by = colourBy();
    const key = colourKey(f.get('crop') as ActiveCrop | null | undefined, by);
    const fill = cropFill(f, by, colourOf);
    const id = fill === null ? state : `${state}|${fill}`;
    let s = cache.get(id);
    if (!s) {
      const color = stateColor(state);
      const mark = stateMark(state);
      // The fill, the hatch over it (a fill of its own, so a crop's colour stays beneath it), the outline on top.
      s = [
        new Style({ fill: new Fill({ color: fill === null ? rgba(color, 0.2) : rgba(fill, key === null ? 0.35 : 0.6) }) }),
        ...(mark.hatch ? [new Style({ fill: new Fill({ color: hatchFill(mark.hatch, color) }) })] : []),
        new Style({ stroke: new Stroke({ color, width: 2, lineDash: mark.dash ?? undefined }) }),
      ];
      cache.set(id, s);
    }
    return s;
  };
}

/**
 * The selected parcel, above the others: a thick black outline; coloured by sync state, a darker fill of its state's
 * colour; coloured by crop, a darker fill of its own crop's colour: a state colour laid over a crop colour made
 * another crop's colour (a selected cereal read as an olive grove). Its name, in bold, is the label layer's first.
 */
export const selectedStyle = (colourBy: () => ColourBy = () => 'state', colourOf: ColourOf = alone) => (f: FeatureLike) => new Style({
  fill: new Fill({ color: rgba(cropFill(f, colourBy(), colourOf) ?? stateColor(String(f.get('state'))), 0.5) }),
  stroke: new Stroke({ color: '#111', width: 3 }),
});

/** A row selected in the attribute table (features/table/): a blue outline over its own colours, a light blue wash. */
export const markedStyle = () => {
  const style = new Style({ fill: new Fill({ color: 'rgba(11,87,208,0.18)' }), stroke: new Stroke({ color: '#0b57d0', width: 2.5 }) });
  return () => style;
};

/**
 * The WebGL layer's flat style: the same colours by state, as a `match` expression on the feature's `state`; no
 * dashes or hatches (it draws answers over 5,000 parcels, each a few pixels wide, where they would not show).
 */
export function parcelFlatStyle(): FlatStyle {
  const by = (alpha: number) => ['match', ['get', 'state'], ...STATES.flatMap((s) => [s.state, rgba(s.color, alpha)]), rgba('#616161', alpha)];
  return { 'fill-color': by(0.2), 'stroke-color': by(1), 'stroke-width': 1.5 } as FlatStyle;
}
