// The room a fit leaves around what it shows (a farm, a parcel, a filter's matches), from what covers the map at that
// moment: the filter banner across its top, the legend in its bottom-left corner (folded or opened), the zoom
// buttons and the basemap switcher at the top left, the scale line. A fixed padding made for 1280 px (210 px at the
// left for the legend) fitted a farm into a sliver at the right of a 320 px wide map (200 % zoom), and nothing kept
// the filter's matches from under its banner. Pure: the boxes are read by the caller (features/map/covering.ts).
import type { Box } from '../map/label-placement.ts';

/** [top, right, bottom, left], in pixels: OpenLayers' fit padding. */
export type Padding = [number, number, number, number];

/** At most this share of the map's width (and of its height) is given to padding: a tiny map still shows the fit. */
const MAX_SHARE = 0.6;
/** Room around the fit besides what covers the map, as a share of the map's smaller side, within these bounds. */
const MARGIN_SHARE = 0.085;
const MARGIN_MIN = 8;
const MARGIN_MAX = 40;
/** Room between what covers the map and what a fit shows. */
const COVER_GAP = 10;
/** The row of the graticule's longitude labels along the top edge (graticule.ts). */
const LABEL_ROW = 21;

/**
 * A cover is kept clear by padding the left or right side it stands at while that takes at most this share of the
 * width: a column does not change with what the cover holds (the legend grows with the crops in view, after the fit,
 * but not wider). Past it (the legend across most of a 320 px map), the top or bottom, whichever costs less.
 */
const SIDE_SHARE = 0.3;

const overlaps = (a: Box, b: Box): boolean => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

/** Scales a pair of opposite paddings down to at most MAX_SHARE of `size` together. */
function shrink(a: number, b: number, size: number): [number, number] {
  const k = a + b > size * MAX_SHARE ? (size * MAX_SHARE) / (a + b) : 1;
  return [Math.round(a * k), Math.round(b * k)];
}

/** What is known of the fit: its content's size (map units) and the smallest resolution it may take (its maxZoom). */
export interface FitContent {
  size: readonly [number, number];
  minResolution?: number;
}

/**
 * Where `content` lands, in map pixels, fitted to a map `width` × `height` with `padding`: as OpenLayers' fit puts
 * it, centred in what the padding leaves, as large as it fits (no closer than its maxZoom).
 */
export function fittedBox(width: number, height: number, padding: Padding, content: FitContent): Box {
  const [top, right, bottom, left] = padding;
  const [w, h] = [Math.max(1, width - left - right), Math.max(1, height - top - bottom)];
  const resolution = Math.max(content.size[0] / w, content.size[1] / h, content.minResolution ?? 0) || 1;
  const [cw, ch] = [content.size[0] / resolution, content.size[1] / resolution];
  const [cx, cy] = [left + w / 2, top + h / 2];
  return [cx - cw / 2, cy - ch / 2, cx + cw / 2, cy + ch / 2];
}

/**
 * The padding for a map `width` × `height` whose `covers` (map pixels) hide part of it, for `content` (unknown: as
 * if it filled the map). First a margin all round (`margin` at most; the top at least the longitude labels' row);
 * then each cover the content would lie under is kept clear by padding one side — its column at the left or right
 * when narrow enough (SIDE_SHARE), else its row at the top or bottom (a banner across the top, a legend across a
 * small map's foot) — with a small gap, until none is in the way. A parcel in the middle stays in the middle; a farm
 * that fills the map moves off the legend. The whole is scaled down where it would leave too little of a small map.
 */
export function fitPadding(width: number, height: number, covers: readonly Box[], content?: FitContent, marginMax = MARGIN_MAX): Padding {
  const margin = Math.min(marginMax, Math.max(MARGIN_MIN, Math.round(Math.min(width, height) * MARGIN_SHARE)));
  const p: Padding = [Math.max(margin, LABEL_ROW + COVER_GAP), margin, margin, margin];
  const limited = (): Padding => {
    const [top, bottom] = shrink(p[0], p[2], height);
    const [right, left] = shrink(p[1], p[3], width);
    return [top, right, bottom, left];
  };
  // Outside the map, or nothing of it: no room needed.
  const inMap = covers.filter(([x0, y0, x1, y1]) => x1 > 0 && y1 > 0 && x0 < width && y0 < height && x1 > x0 && y1 > y0);
  const clear = new Set<Box>();
  for (let round = 0; round < inMap.length; round++) {
    const box = content ? fittedBox(width, height, limited(), content) : ([0, 0, width, height] as Box);
    const inTheWay = inMap.filter((c) => !clear.has(c) && overlaps(c, box));
    if (!inTheWay.length) break;
    for (const c of inTheWay) {
      const [x0, y0, x1, y1] = c;
      type Option = [side: 0 | 1 | 2 | 3, px: number, share: number];
      const cheapest = (options: Option[]) => options.reduce((best, o) => (o[2] < best[2] ? o : best));
      const column = cheapest([[1, width - x0, (width - x0) / width], [3, x1, x1 / width]]);
      const [side, px] = column[2] <= SIDE_SHARE ? column : cheapest([[0, y1, y1 / height], [2, height - y0, (height - y0) / height]]);
      p[side] = Math.max(p[side], px + COVER_GAP);
      clear.add(c);
    }
  }
  return limited();
}
