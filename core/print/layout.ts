// Where everything of a printed map goes on its sheet (issue 33, Print): the paper in points (1/72 in), the title and
// the farm's line, the map's frame, and below it the legend, the scale bar and the north arrow; how a view (a box in
// longitude and latitude) fits the frame in Web Mercator, as the app's map shows it; and a scale bar a round number
// of metres long. Pure: the host draws it (backend/print-pdf.ts), the tests find things where this says they are.
// Coordinates are from the sheet's top-left corner, y down.

export type Paper = 'A4' | 'A3';
export type Orientation = 'portrait' | 'landscape';

/** ISO 216 sizes in points, portrait. */
const PAPER: Record<Paper, [number, number]> = { A4: [595.28, 841.89], A3: [841.89, 1190.55] };

export interface Box { x: number; y: number; w: number; h: number }

export interface SheetLayout {
  page: { w: number; h: number };
  title: { x: number; y: number; size: number };
  subtitle: { x: number; y: number; size: number };
  frame: Box;
  legend: Box;
  scale: Box;
  north: Box;
}

export const MARGIN = 28;
const HEAD = 46;
const FOOT = 70;
/** A legend entry's row, and its swatch's side. */
export const LEGEND_ROW = 13;
export const SWATCH = 9;

export function sheetLayout(paper: Paper, orientation: Orientation): SheetLayout {
  const [a, b] = PAPER[paper];
  const [w, h] = orientation === 'portrait' ? [a, b] : [b, a];
  const frame = { x: MARGIN, y: MARGIN + HEAD, w: w - 2 * MARGIN, h: h - 2 * MARGIN - HEAD - FOOT };
  const footY = frame.y + frame.h + 10;
  const footH = FOOT - 14;
  return {
    page: { w, h },
    title: { x: MARGIN, y: MARGIN, size: 18 },
    subtitle: { x: MARGIN, y: MARGIN + 24, size: 10 },
    frame,
    legend: { x: MARGIN, y: footY, w: frame.w * 0.6, h: footH },
    scale: { x: MARGIN + frame.w * 0.64, y: footY + 14, w: frame.w * 0.26, h: 16 },
    north: { x: MARGIN + frame.w - 24, y: footY, w: 24, h: 40 },
  };
}

const R = 6_378_137;
/** [lon, lat] in Web Mercator metres, as the map projects it. */
export function mercator(lon: number, lat: number): [number, number] {
  const l = Math.max(-85.05112878, Math.min(85.05112878, lat));
  return [(R * lon * Math.PI) / 180, R * Math.log(Math.tan(Math.PI / 4 + (l * Math.PI) / 360))];
}

/** How a view fits a frame: its box's middle at the frame's middle, the whole box inside, north up. */
export interface ViewFit {
  /** Points per Web Mercator metre. */
  scale: number;
  /** Where a [lon, lat] falls on the sheet. */
  at(lon: number, lat: number): [number, number];
  /** Where the view's box lies on the sheet (within the frame). */
  box: Box;
  /** Ground metres a point of the sheet stands for, at the view's middle latitude. */
  metresPerPoint: number;
}

export function fitView(bbox: readonly [number, number, number, number], frame: Box): ViewFit {
  const [x0, y0] = mercator(bbox[0], bbox[1]);
  const [x1, y1] = mercator(bbox[2], bbox[3]);
  const dx = Math.max(x1 - x0, 1e-6);
  const dy = Math.max(y1 - y0, 1e-6);
  const scale = Math.min(frame.w / dx, frame.h / dy);
  const cx = (x0 + x1) / 2;
  const cy = (y0 + y1) / 2;
  const fx = frame.x + frame.w / 2;
  const fy = frame.y + frame.h / 2;
  const midLat = (bbox[1] + bbox[3]) / 2;
  return {
    scale,
    at(lon, lat) {
      const [x, y] = mercator(lon, lat);
      return [fx + (x - cx) * scale, fy - (y - cy) * scale];
    },
    box: { x: fx - (dx * scale) / 2, y: fy - (dy * scale) / 2, w: dx * scale, h: dy * scale },
    // A Mercator metre is cos(latitude) metres on the ground.
    metresPerPoint: Math.cos((midLat * Math.PI) / 180) / scale,
  };
}

/** The longest round length (1, 2 or 5 × 10ⁿ metres) whose bar fits `maxPoints`, its length in points and its words. */
export function scaleBar(metresPerPoint: number, maxPoints: number): { metres: number; points: number; label: string } {
  const most = metresPerPoint * maxPoints;
  let metres = 10 ** Math.floor(Math.log10(most));
  for (const f of [5, 2]) if (metres * f <= most) { metres *= f; break; }
  const label = metres >= 1000 ? `${(metres / 1000).toLocaleString('en-US')} km` : `${metres.toLocaleString('en-US')} m`;
  return { metres, points: metres / metresPerPoint, label };
}
