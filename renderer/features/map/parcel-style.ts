// How parcels look: one colour per sync state (renderer/states.ts), the canvas layer's styles and the WebGL layer's
// flat style built from the same colours, and the selected parcel's outline drawn on a layer of its own (so a
// selection never makes the whole parcel image draw again).
import { Fill, Stroke, Style, Text } from 'ol/style.js';
import type { FeatureLike } from 'ol/Feature.js';
import type { FlatStyle } from 'ol/style/flat.js';
import { STATES, stateColor } from '../../states.ts';
import type { ColourBy } from '../rotations/rotation-store.ts';
import { colourKey, type ActiveCrop } from '../rotations/crop-legend.ts';
import { familyColour } from '../../../core/crops/family-colours.ts';

/** Below this resolution (m/pixel, field scale) parcels carry their names; above, a region's labels would stack. */
export const LABEL_RESOLUTION = 25;

/** '#rrggbb' and an alpha (0–1) as the rgba() text both renderers read. */
export function rgba(hex: string, alpha: number): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255},${(n >> 8) & 255},${n & 255},${alpha})`;
}

/**
 * The canvas layer's style function: one cached Style per state (and per crop colour); names only at field scale.
 * Coloured by crop (`colourBy()` 'family' or 'crop'), a parcel's fill is its active crop's colour and its outline
 * still its sync state's; a parcel without an active crop keeps the plain fill.
 */
export function parcelStyle(colourBy: () => ColourBy = () => 'state') {
  const cache = new Map<string, Style>();
  return (f: FeatureLike, resolution: number) => {
    const state = String(f.get('state'));
    const key = colourKey(f.get('crop') as ActiveCrop | null | undefined, colourBy());
    const id = key === null ? state : `${state}|${familyColour(key)}`;
    let s = cache.get(id);
    if (!s) {
      const color = stateColor(state);
      s = new Style({
        fill: new Fill({ color: key === null ? rgba(color, 0.2) : rgba(familyColour(key), 0.6) }),
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

/** The selected parcel, above the others: darker fill, a thick black outline, and its name however narrow it is. */
export const selectedStyle = (f: FeatureLike) => new Style({
  fill: new Fill({ color: rgba(stateColor(String(f.get('state'))), 0.4) }),
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
