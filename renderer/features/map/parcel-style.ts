// How parcels look: one colour per sync state (renderer/states.ts), the canvas layer's styles and the WebGL layer's
// flat style built from the same colours, and the selected parcel's outline drawn on a layer of its own (so a
// selection never makes the whole parcel image draw again).
import { Fill, Stroke, Style, Text } from 'ol/style.js';
import type { FeatureLike } from 'ol/Feature.js';
import type { FlatStyle } from 'ol/style/flat.js';
import { STATES, stateColor } from '../../states.ts';
import type { ColourBy } from '../rotations/rotation-store.ts';
import { colourKey, type ActiveCrop } from '../rotations/crop-legend.ts';
import { familyColour, NO_CROP_COLOUR } from '../../../core/crops/family-colours.ts';

/** Below this resolution (m/pixel, field scale) parcels carry their names; above, a region's labels would stack. */
export const LABEL_RESOLUTION = 25;

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

/**
 * The canvas layer's style function: one cached Style per state (and per crop colour); names only at field scale.
 * Coloured by crop (`colourBy()` 'family' or 'crop'), a parcel's fill is its active crop's colour and its outline
 * still its sync state's; a parcel without an active crop is grey (the legend's "No active crop"), never its sync
 * state's fill, which a reader of a crop map would take for a crop.
 */
export function parcelStyle(colourBy: () => ColourBy = () => 'state', colourOf: ColourOf = alone) {
  const cache = new Map<string, Style>();
  return (f: FeatureLike, resolution: number) => {
    const state = String(f.get('state'));
    const by = colourBy();
    const key = colourKey(f.get('crop') as ActiveCrop | null | undefined, by);
    const fill = cropFill(f, by, colourOf);
    const id = fill === null ? state : `${state}|${fill}`;
    let s = cache.get(id);
    if (!s) {
      const color = stateColor(state);
      s = new Style({
        fill: new Fill({ color: fill === null ? rgba(color, 0.2) : rgba(fill, key === null ? 0.35 : 0.6) }),
        stroke: new Stroke({ color, width: 1.5 }),
        // A name wider than its parcel is left out (a region's labels would pile up), except on parcels with work
        // of the user's not yet synced: new and edited parcels are the ones people look for on the map.
        text: new Text({ font: '12px system-ui, sans-serif', fill: new Fill({ color: '#222' }), stroke: new Stroke({ color: '#fff', width: 3 }), overflow: state !== 'synced' }),
      });
      cache.set(id, s);
    }
    s.getText()!.setText(resolution < LABEL_RESOLUTION ? String(f.get('name')) : '');
    return s;
  };
}

/**
 * The selected parcel, above the others: a thick black outline and its name however narrow it is; coloured by sync
 * state, a darker fill of its state's colour; coloured by crop, a darker fill of its own crop's colour: a state colour
 * laid over a crop colour made another crop's colour (a selected cereal read as an olive grove). The fill also fades
 * the parcel's own label under the bold one.
 */
export const selectedStyle = (colourBy: () => ColourBy = () => 'state', colourOf: ColourOf = alone) => (f: FeatureLike) => new Style({
  fill: new Fill({ color: rgba(cropFill(f, colourBy(), colourOf) ?? stateColor(String(f.get('state'))), 0.5) }),
  stroke: new Stroke({ color: '#111', width: 3 }),
  text: new Text({
    text: String(f.get('name')), font: 'bold 12px system-ui, sans-serif', overflow: true,
    fill: new Fill({ color: '#111' }), stroke: new Stroke({ color: '#fff', width: 3 }),
  }),
});

/** The WebGL layer's flat style: the same colours by state, as a `match` expression on the feature's `state`. */
export function parcelFlatStyle(): FlatStyle {
  const by = (alpha: number) => ['match', ['get', 'state'], ...STATES.flatMap((s) => [s.state, rgba(s.color, alpha)]), rgba('#616161', alpha)];
  return { 'fill-color': by(0.2), 'stroke-color': by(1), 'stroke-width': 1.5 } as FlatStyle;
}
