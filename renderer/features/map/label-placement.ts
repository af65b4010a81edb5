// Where parcel names go on the map, in screen pixels, as a GIS user expects from QGIS: inside the shape when the name
// fits (at 12 px, else at 10 px), otherwise beside it with a short leader line to its outline; never over another
// name, another parcel or what covers the map (legend, buttons), never past the map's edge. Pure: parcel-labels.ts
// feeds it the parcels in view as pixel rings and a text measure, and draws what it returns.

export type Pt = [number, number];
/** [minX, minY, maxX, maxY] in pixels. */
export type Box = [number, number, number, number];

export interface LabelParcel {
  id: string;
  text: string;
  /** The shape in pixels: its polygons, each as rings (the outer ring first, holes after). */
  polygons: Pt[][][];
  /** The selected parcel's name is bold and placed first. */
  bold?: boolean;
}

export interface Placement {
  id: string;
  text: string;
  /** The name's centre. */
  at: Pt;
  /** Font size in pixels. */
  size: number;
  bold: boolean;
  /** The room it takes, halo included: no other name is placed there. */
  box: Box;
  /** 'inside' its shape at the full size; 'small': inside at the smaller size; 'beside': outside, with a leader. */
  kind: 'inside' | 'small' | 'beside';
  /** The leader line from the name's box to the nearest point of its shape's outline ('beside' only). */
  leader: [Pt, Pt] | null;
}

export interface PlaceOptions {
  width: number;
  height: number;
  /** The name's width in pixels at that size. */
  measure(text: string, size: number, bold: boolean): number;
  /** Boxes the names must keep off (the legend, the map's buttons). */
  obstacles?: Box[];
  /** Whether names that fit nowhere inside go beside their shapes (default true; off for crowds, where few would). */
  beside?: boolean;
}

/** The full size, and the smaller one a name tries before it goes beside its shape. */
export const SIZES = [12, 10] as const;
/** Room kept around a name's text: its white halo and a little air. */
const PAD = 3;
/** Distance from the map's edge no name comes closer than. */
const EDGE = 2;
/** How far beside its shape a name is tried, nearest first. */
const GAPS = [6, 16, 30];
/** A shape narrower and lower than this (pixels) gets no name beside it. */
const MIN_BESIDE = 3;

const overlaps = (a: Box, b: Box): boolean => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

/** The text's box (halo included) centred at `at`. */
function boxAt(at: Pt, w: number, h: number): Box {
  return [at[0] - w / 2 - PAD, at[1] - h / 2 - PAD, at[0] + w / 2 + PAD, at[1] + h / 2 + PAD];
}

/** Is `p` inside the ring (even-odd)? */
function inRing(p: Pt, ring: Pt[]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi > p[1] !== yj > p[1] && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Does the segment a–b cross the box's inside? */
function segmentMeetsBox(a: Pt, b: Pt, box: Box): boolean {
  // Liang–Barsky clipping: a part of the segment is left inside the box. Unrolled over the four sides, without an
  // array a side: the names beside their shapes test thousands of edges against each spot.
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const clip = (p: number, q: number, t: [number, number]): boolean => {
    if (p === 0) return q > 0;
    const r = q / p;
    if (p < 0) t[0] = Math.max(t[0], r);
    else t[1] = Math.min(t[1], r);
    return t[0] < t[1];
  };
  const t: [number, number] = [0, 1];
  return clip(-dx, a[0] - box[0], t) && clip(dx, box[2] - a[0], t) && clip(-dy, a[1] - box[1], t) && clip(dy, box[3] - a[1], t);
}

/** Is the box wholly inside the polygon (inside its outer ring, out of its holes, crossed by none of its edges)? */
function boxInPolygon(box: Box, polygon: Pt[][]): boolean {
  const centre: Pt = [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2];
  if (!inRing(centre, polygon[0]!) || polygon.slice(1).some((hole) => inRing(centre, hole))) return false;
  for (const ring of polygon) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) if (segmentMeetsBox(ring[j]!, ring[i]!, box)) return false;
  }
  return true;
}

/** Does the box cover any part of the polygon? */
function boxMeetsPolygon(box: Box, polygon: Pt[][]): boolean {
  if (inRing([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2], polygon[0]!)) return true;
  for (const ring of polygon) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) if (segmentMeetsBox(ring[j]!, ring[i]!, box)) return true;
  }
  return false;
}

function bounds(points: Pt[]): Box {
  const b: Box = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < points.length; i++) {
    const x = points[i]![0];
    const y = points[i]![1];
    if (x < b[0]) b[0] = x;
    if (y < b[1]) b[1] = y;
    if (x > b[2]) b[2] = x;
    if (y > b[3]) b[3] = y;
  }
  return b;
}

/**
 * The polygon's inside along the horizontal line at `y`, as [x0, x1] spans within [lo, hi]: where the ring's edges
 * cross the line, paired (even-odd, holes included).
 */
function spansAt(polygon: Pt[][], y: number, lo: number, hi: number): [number, number][] {
  const xs: number[] = [];
  for (const ring of polygon) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [xi, yi] = ring[i]!;
      const [xj, yj] = ring[j]!;
      if (yi > y !== yj > y) xs.push(xi + ((y - yi) * (xj - xi)) / (yj - yi));
    }
  }
  xs.sort((a, b) => a - b);
  const spans: [number, number][] = [];
  for (let i = 0; i + 1 < xs.length; i += 2) {
    const a = Math.max(lo, xs[i]!);
    const b = Math.min(hi, xs[i + 1]!);
    if (b > a) spans.push([a, b]);
  }
  return spans;
}

/**
 * Points inside the polygon's visible part to centre a name on, best first: the middle of the widest span of lines
 * across it, the lines nearest the middle of its visible height first (OpenLayers' interior point is the first).
 * Made one at a time: the first usually takes the name, and making all 24 first (a span each, its crossings sorted)
 * was most of the placement's time with 500 parcels in view.
 */
function* anchors(polygon: Pt[][], view: Box, lineHeight: number, b = bounds(polygon[0]!)): Generator<Pt> {
  const top = Math.max(b[1], view[1]);
  const bottom = Math.min(b[3], view[3]);
  if (bottom <= top) return;
  const mid = (top + bottom) / 2;
  const step = Math.max(2, lineHeight / 2);
  let made = 0;
  for (let k = 0; mid - k * step > top || mid + k * step < bottom; k++) {
    for (const y of k === 0 ? [mid] : [mid - k * step, mid + k * step]) {
      if (y <= top || y >= bottom) continue;
      const spans = spansAt(polygon, y, Math.max(b[0], view[0]), Math.min(b[2], view[2]));
      const widest = spans.reduce<[number, number] | null>((w, s) => (w === null || s[1] - s[0] > w[1] - w[0] ? s : w), null);
      if (widest) { made++; yield [(widest[0] + widest[1]) / 2, y]; }
    }
    if (made >= 24) return;
  }
}

/** The first of `anchors`, or undefined. */
function firstAnchor(polygon: Pt[][], view: Box, lineHeight: number): Pt | undefined {
  for (const at of anchors(polygon, view, lineHeight)) return at;
  return undefined;
}

/** A uniform grid of boxes, for "does this box meet one already there" over thousands of names. */
class BoxGrid<T> {
  // Cells by a number made of their column and row (a string key a cell was most of a lookup's time).
  private readonly cells = new Map<number, { box: Box; item: T }[]>();
  constructor(private readonly cell = 64) {}
  private range(b: Box): [number, number, number, number] {
    const c = this.cell;
    return [Math.floor(b[0] / c), Math.floor(b[1] / c), Math.floor(b[2] / c), Math.floor(b[3] / c)];
  }
  private static key(x: number, y: number): number {
    return (x + 0x8000) * 0x10000 + (y + 0x8000);
  }
  add(box: Box, item: T): void {
    const [x0, y0, x1, y1] = this.range(box);
    for (let x = x0; x <= x1; x++) {
      for (let y = y0; y <= y1; y++) {
        const k = BoxGrid.key(x, y);
        const list = this.cells.get(k);
        if (list) list.push({ box, item });
        else this.cells.set(k, [{ box, item }]);
      }
    }
  }
  /** Whether an item whose box meets `box` passes `test` (each looked at once at most per cell it is in). */
  some(box: Box, test: (item: T) => boolean = () => true): boolean {
    const [x0, y0, x1, y1] = this.range(box);
    for (let x = x0; x <= x1; x++) {
      for (let y = y0; y <= y1; y++) {
        const list = this.cells.get(BoxGrid.key(x, y));
        if (list) for (const e of list) if (overlaps(e.box, box) && test(e.item)) return true;
      }
    }
    return false;
  }
}

/** The point of the box nearest `p`. */
const nearestOnBox = (box: Box, p: Pt): Pt => [Math.min(box[2], Math.max(box[0], p[0])), Math.min(box[3], Math.max(box[1], p[1]))];

/** The point of the segment a–b nearest `p`. */
function nearestOnSegment(a: Pt, b: Pt, p: Pt): Pt {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len = dx * dx + dy * dy;
  const t = len === 0 ? 0 : Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len));
  return [a[0] + t * dx, a[1] + t * dy];
}

/**
 * Where a leader from a name's box meets its shape: the point of the shape's outline (within the map) nearest the
 * box, so the leader is as short as the gap between them; a leader to the shape's middle crossed a long shape.
 */
function leaderEnd(box: Box, outer: Pt[], view: Box, fallback: Pt): Pt {
  const centre: Pt = [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2];
  let best = fallback;
  let bestD = Infinity;
  for (let i = 0, j = outer.length - 1; i < outer.length; j = i++) {
    const q = nearestOnSegment(outer[j]!, outer[i]!, centre);
    const onBox = nearestOnBox(box, q);
    const d = Math.hypot(q[0] - onBox[0], q[1] - onBox[1]);
    if (d < bestD && q[0] >= view[0] && q[0] <= view[2] && q[1] >= view[1] && q[1] <= view[3]) { best = q; bestD = d; }
  }
  return best;
}

/**
 * Every parcel's name placed, or left out where there is no room at all. The selected parcel first, then by the
 * order given; each name inside its shape where it fits (full size, then smaller), and only then, in a second round,
 * the names that fit nowhere inside go beside their shapes, on the first free spot around them (right, left, above,
 * below, then the corners, nearest first) that covers no other parcel.
 */
export function placeLabels(parcels: LabelParcel[], opts: PlaceOptions): Placement[] {
  const view: Box = [EDGE, EDGE, opts.width - EDGE, opts.height - EDGE];
  const within = (b: Box) => b[0] >= view[0] && b[1] >= view[1] && b[2] <= view[2] && b[3] <= view[3];
  const taken = new BoxGrid<Box>();
  for (const o of opts.obstacles ?? []) taken.add(o, o);
  const free = (b: Box) => within(b) && !taken.some(b);
  const shapes = new BoxGrid<Pt[][]>();
  const order = [...parcels].sort((a, b) => Number(Boolean(b.bold)) - Number(Boolean(a.bold)));
  for (const p of order) for (const poly of p.polygons) if (poly[0]?.length) shapes.add(bounds(poly[0]), poly);

  // Each polygon's box, once (the loops below ask for it per size and per anchor).
  const boxes = new Map<Pt[][], Box>();
  const boxOf = (poly: Pt[][]): Box => { let b = boxes.get(poly); if (!b) boxes.set(poly, (b = bounds(poly[0]!))); return b; };
  const placed = new Map<string, Placement>();
  const put = (p: LabelParcel, pl: Omit<Placement, 'id' | 'text' | 'bold'>) => {
    placed.set(p.id, { id: p.id, text: p.text, bold: Boolean(p.bold), ...pl });
    taken.add(pl.box, pl.box);
  };

  const area = (poly: Pt[][]) => { const b = boxOf(poly); return (b[2] - b[0]) * (b[3] - b[1]); };
  // Inside: the largest polygon of a parcel that has room, at the full size, then the smaller.
  for (const p of order) {
    const largestFirst = p.polygons.filter((poly) => poly[0]?.length).sort((a, b) => area(b) - area(a));
    done: for (const [i, size] of SIZES.entries()) {
      const w = opts.measure(p.text, size, Boolean(p.bold));
      const h = Math.round(size * 1.2);
      for (const poly of largestFirst) {
        // A shape narrower or lower than the text has no room for it: most of a crowd of small parcels, not searched.
        const b = boxOf(poly);
        if (Math.min(b[2], view[2]) - Math.max(b[0], view[0]) < w || Math.min(b[3], view[3]) - Math.max(b[1], view[1]) < h) continue;
        for (const at of anchors(poly, view, h, b)) {
          const box = boxAt(at, w, h);
          // The text itself (not its halo) inside the shape, and its halo clear of other names and the map's edge.
          if (!boxInPolygon([box[0] + PAD - 1, box[1] + PAD - 1, box[2] - PAD + 1, box[3] - PAD + 1], poly) || !free(box)) continue;
          put(p, { at, size, box, kind: i === 0 ? 'inside' : 'small', leader: null });
          break done;
        }
      }
    }
  }

  // Beside, with a leader to a point inside the shape.
  for (const p of opts.beside === false ? [] : order) {
    if (placed.has(p.id)) continue;
    const size = SIZES[0];
    const w = opts.measure(p.text, size, Boolean(p.bold));
    const h = Math.round(size * 1.2);
    const visible = p.polygons.filter((poly) => poly[0]?.length).map((poly) => ({ poly, anchor: firstAnchor(poly, view, 2) })).filter((v) => v.anchor);
    if (visible.length === 0) continue;
    const { poly, anchor } = visible[0]!;
    // Around the shape's visible part: around the whole of one mostly out of view, the name went far from what shows.
    const whole = boxOf(poly);
    const b: Box = [Math.max(whole[0], view[0]), Math.max(whole[1], view[1]), Math.min(whole[2], view[2]), Math.min(whole[3], view[3])];
    // A shape of a pixel or two is a dot at this scale: a name beside it would only crowd the others.
    if (b[2] - b[0] < MIN_BESIDE && b[3] - b[1] < MIN_BESIDE) continue;
    const [cx, cy] = anchor!;
    const hw = w / 2 + PAD;
    const hh = h / 2 + PAD;
    let best: { box: Box; at: Pt } | null = null;
    spots: for (const gap of GAPS) {
      const spots: Pt[] = [
        [b[2] + gap + hw, cy], [b[0] - gap - hw, cy], [cx, b[1] - gap - hh], [cx, b[3] + gap + hh],
        [b[2] + gap + hw, b[1] - gap - hh], [b[0] - gap - hw, b[1] - gap - hh], [b[2] + gap + hw, b[3] + gap + hh], [b[0] - gap - hw, b[3] + gap + hh],
      ];
      for (const at of spots) {
        const box = boxAt(at, w, h);
        // Never over another parcel: in a crowd of small parcels, names laid over their neighbours hid them all
        // under text; such a name is left out (hovering names it) until the map is closer.
        if (!free(box) || shapes.some(box, (other) => other !== poly && boxMeetsPolygon(box, other))) continue;
        best = { box, at };
        break spots;
      }
    }
    if (!best) continue;
    const end = leaderEnd(best.box, poly[0]!, view, anchor!);
    put(p, { at: best.at, size, box: best.box, kind: 'beside', leader: [nearestOnBox(best.box, end), end] });
  }
  return order.flatMap((p) => placed.get(p.id) ?? []);
}
