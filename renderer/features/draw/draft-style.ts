// What is being drawn or dropped, not yet saved: Draw's sketch and the draft layer (useDraftLayer.ts) share one style.
import Polygon from 'ol/geom/Polygon.js';
import { Fill, Stroke, Style } from 'ol/style.js';
import type { FeatureLike } from 'ol/Feature.js';
import { useApp } from '../../store.ts';
import { draftHectares } from '../../preview.ts';
import { outerRing } from './typed-vertices.ts';

/**
 * A cyan outline no sync state uses (the blue it had read as Sending), red and dashed once it is above the account's
 * limit and would be refused at save. Anything but a polygon (Draw's sketch point and line) is not drawn.
 */
export function draftStyle(f: FeatureLike): Style | undefined {
  const g = f.getGeometry();
  if (!(g instanceof Polygon)) return new Style({});
  const limit = useApp.getState().account?.parcelLimit ?? Infinity;
  const over = draftHectares(outerRing(g)) > limit;
  const color = over ? '#d32f2f' : '#0097a7';
  return new Style({ fill: new Fill({ color: `${color}33` }), stroke: new Stroke({ color, width: 2, lineDash: over ? [6, 4] : undefined }) });
}
