// The printed map as a PDF (pdf-lib), laid out by core/print/layout.ts: the title and the farm's line with the date,
// the basemap image under the view, every parcel of the view as a vector path (sharp at any zoom, selectable in a PDF
// editor) filled in its legend colour and outlined, the frame, the legend, a scale bar a round number of metres long
// and a north arrow; a second page with the farm's rotation table when asked. Text in the standard Helvetica (no
// font file to ship): characters outside its WinAnsi set are written as '?'.
import { PDFDocument, StandardFonts, rgb, pushGraphicsState, popGraphicsState, rectangle, clip, endPath, type PDFFont, type PDFPage, type RGB } from 'pdf-lib';
import { fitView, LEGEND_ROW, MARGIN, scaleBar, sheetLayout, SWATCH, type Orientation, type Paper, type SheetLayout } from '../core/print/layout.ts';
import type { FarmRotation } from '../core/api-rotations.ts';

export interface PrintParcel { rings: number[][][]; key: string | null }
export interface PrintLegend { key: string | null; label: string; colour: string }

export interface PrintSheet {
  title: string;
  /** "Finca El Olivar · 12 parcels", or the account's name. */
  subtitle: string;
  date: string;
  paper: Paper;
  orientation: Orientation;
  bbox: [number, number, number, number];
  parcels: PrintParcel[];
  legend: PrintLegend[];
  /** The grey of a parcel whose key the legend does not list. */
  otherColour: string;
  basemap?: { png: Uint8Array; credit: string };
  rotation?: FarmRotation;
}

const hex = (c: string): RGB => {
  const n = Number.parseInt(c.slice(1), 16);
  return rgb(((n >> 16) & 255) / 255, ((n >> 8) & 255) / 255, (n & 255) / 255);
};
const INK = rgb(0.11, 0.14, 0.15);
/** What Helvetica's WinAnsi encoding can write; anything else becomes '?'. */
const winAnsi = (t: string) => t.normalize('NFC').replace(/[^\x20-\x7E\xA0-\xFF\u2013\u2014\u2018\u2019\u201C\u201D\u2022\u2026\u20AC]/g, '?');

/** Text whose top is at `y` from the sheet's top (pdf-lib draws from the baseline, y up). */
function text(page: PDFPage, s: string, x: number, y: number, size: number, font: PDFFont, colour: RGB = INK): void {
  page.drawText(winAnsi(s), { x, y: page.getHeight() - y - size * 0.8, size, font, color: colour });
}

/** A rectangle from the sheet's top-left coordinates. */
function box(page: PDFPage, x: number, y: number, w: number, h: number, opts: { fill?: RGB; stroke?: RGB; width?: number; opacity?: number }): void {
  page.drawRectangle({ x, y: page.getHeight() - y - h, width: w, height: h, color: opts.fill, borderColor: opts.stroke, borderWidth: opts.stroke ? opts.width ?? 1 : 0, opacity: opts.opacity });
}

function drawMap(page: PDFPage, s: PrintSheet, l: SheetLayout, font: PDFFont, image: Awaited<ReturnType<PDFDocument['embedPng']>> | null): void {
  const fit = fitView(s.bbox, l.frame);
  const H = page.getHeight();
  const f = l.frame;
  // Everything of the map inside its frame.
  page.pushOperators(pushGraphicsState(), rectangle(f.x, H - f.y - f.h, f.w, f.h), clip(), endPath());
  if (image) page.drawImage(image, { x: fit.box.x, y: H - fit.box.y - fit.box.h, width: fit.box.w, height: fit.box.h });
  const colours = new Map(s.legend.map((e) => [e.key, e.colour]));
  for (const p of s.parcels) {
    const colour = hex(colours.get(p.key) ?? s.otherColour);
    // One path a parcel, its rings as subpaths, in the sheet's coordinates (drawSvgPath's y runs down from y: H).
    const d = p.rings.map((ring) => ring.map(([lon, lat], i) => {
      const [x, y] = fit.at(lon!, lat!);
      return `${i === 0 ? 'M' : 'L'}${x.toFixed(2)} ${y.toFixed(2)}`;
    }).join(' ') + ' Z').join(' ');
    page.drawSvgPath(d, { x: 0, y: H, color: colour, opacity: 0.45, borderColor: colour, borderWidth: 0.8, borderOpacity: 1 });
  }
  page.pushOperators(popGraphicsState());
  box(page, f.x, f.y, f.w, f.h, { stroke: INK, width: 0.8 });
  if (s.basemap?.credit) text(page, s.basemap.credit, f.x + 3, f.y + f.h - 9, 6, font, rgb(0.3, 0.3, 0.3));

  // The scale bar: four segments, black and white, the length under it.
  const bar = scaleBar(fit.metresPerPoint, l.scale.w);
  const seg = bar.points / 4;
  for (let i = 0; i < 4; i++) box(page, l.scale.x + i * seg, l.scale.y, seg, 5, { fill: i % 2 === 0 ? INK : rgb(1, 1, 1), stroke: INK, width: 0.6 });
  text(page, '0', l.scale.x - 2, l.scale.y + 8, 7, font);
  text(page, bar.label, l.scale.x + bar.points - font.widthOfTextAtSize(bar.label, 7) / 2, l.scale.y + 8, 7, font);

  // The north arrow: a filled triangle over an N.
  const n = l.north;
  const cx = n.x + n.w / 2;
  page.drawSvgPath(`M${cx} ${n.y} L${cx + 8} ${n.y + 24} L${cx} ${n.y + 18} L${cx - 8} ${n.y + 24} Z`, { x: 0, y: H, color: INK, borderColor: INK, borderWidth: 0.5 });
  text(page, 'N', cx - font.widthOfTextAtSize('N', 10) / 2, n.y + 27, 10, font);
}

function drawLegend(page: PDFPage, s: PrintSheet, l: SheetLayout, font: PDFFont, bold: PDFFont): void {
  const g = l.legend;
  text(page, 'Legend', g.x, g.y, 8, bold);
  const perColumn = Math.max(1, Math.floor((g.h - 12) / LEGEND_ROW));
  const colWidth = 140;
  s.legend.forEach((e, i) => {
    const x = g.x + Math.floor(i / perColumn) * colWidth;
    const y = g.y + 12 + (i % perColumn) * LEGEND_ROW;
    if (x + colWidth > g.x + g.w + colWidth / 2) return;
    box(page, x, y, SWATCH, SWATCH, { fill: hex(e.colour), stroke: hex(e.colour), width: 0.8 });
    text(page, e.label, x + SWATCH + 4, y + 1, 8, font);
  });
}

function drawRotation(pdf: PDFDocument, s: PrintSheet, font: PDFFont, bold: PDFFont): void {
  const r = s.rotation!;
  const l = sheetLayout(s.paper, s.orientation);
  let page = pdf.addPage([l.page.w, l.page.h]);
  text(page, `${s.title}: crop rotation`, MARGIN, MARGIN, 16, bold);
  const nameW = 140;
  const cols = r.campaigns.length;
  const cellW = cols ? Math.min(110, (l.page.w - 2 * MARGIN - nameW) / cols) : 0;
  const row = 13;
  let y = MARGIN + 30;
  const header = () => {
    text(page, 'Parcel', MARGIN, y, 8, bold);
    r.campaigns.forEach((c, i) => text(page, c ?? 'No campaign', MARGIN + nameW + i * cellW, y, 8, bold));
    y += row;
  };
  header();
  const fitIn = (t: string, w: number) => {
    let out = winAnsi(t);
    while (out.length > 1 && font.widthOfTextAtSize(out, 7.5) > w - 4) out = `${out.slice(0, -2)}…`;
    return out;
  };
  for (const p of r.parcels) {
    if (y + row > l.page.h - MARGIN) {
      page = pdf.addPage([l.page.w, l.page.h]);
      y = MARGIN;
      header();
    }
    text(page, fitIn(p.name, nameW), MARGIN, y, 7.5, font);
    p.cells.forEach((c, i) => {
      const words = c.crops.map((x) => x.name ?? 'Crop').join(', ');
      if (words) text(page, fitIn(`${words}${c.familyRepeats ? ' !' : ''}`, cellW), MARGIN + nameW + i * cellW, y, 7.5, font, c.familyRepeats ? rgb(0.6, 0.35, 0) : INK);
    });
    y += row;
  }
  if (!r.parcels.length) text(page, 'No parcels in this farm.', MARGIN, y, 8, font);
}

/** The sheet as PDF bytes. */
export async function printPdf(s: PrintSheet): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setTitle(winAnsi(s.title));
  pdf.setCreator('Furrow');
  pdf.setProducer('Furrow (pdf-lib)');
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const l = sheetLayout(s.paper, s.orientation);
  const page = pdf.addPage([l.page.w, l.page.h]);
  text(page, s.title, l.title.x, l.title.y, l.title.size, bold);
  text(page, `${s.subtitle} · ${s.date}`, l.subtitle.x, l.subtitle.y, l.subtitle.size, font);
  const image = s.basemap ? await pdf.embedPng(s.basemap.png) : null;
  drawMap(page, s, l, font, image);
  drawLegend(page, s, l, font, bold);
  if (s.rotation) drawRotation(pdf, s, font, bold);
  return pdf.save();
}
