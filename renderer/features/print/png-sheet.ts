// The printed map as a PNG, made in the page from what the map drew (map-image.ts): the title and the farm's line
// with the date above, the map in a frame, and below it the legend, a scale bar a round number of metres long and a
// north arrow — the PDF's sheet (backend/print-pdf.ts) at the screen's size. Browser code (a canvas).
import { mercator, scaleBar } from '../../../core/print/layout.ts';
import type { PrintLegendEntry } from './print-legend.ts';

const M = 16;
const HEAD = 52;
const FOOT = 74;
const INK = '#1c2427';

export interface PngSheet { title: string; subtitle: string; legend: PrintLegendEntry[]; bbox: readonly [number, number, number, number] }

export function pngSheet(map: HTMLCanvasElement, s: PngSheet): HTMLCanvasElement {
  const out = document.createElement('canvas');
  out.width = map.width + 2 * M;
  out.height = map.height + HEAD + FOOT + M;
  const g = out.getContext('2d')!;
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, out.width, out.height);
  g.fillStyle = INK;
  g.textBaseline = 'top';
  g.font = 'bold 22px sans-serif';
  g.fillText(s.title, M, M);
  g.font = '13px sans-serif';
  g.fillText(s.subtitle, M, M + 28);
  g.drawImage(map, M, HEAD + M / 2);
  g.strokeStyle = INK;
  g.lineWidth = 1;
  g.strokeRect(M + 0.5, HEAD + M / 2 + 0.5, map.width - 1, map.height - 1);

  const footY = HEAD + M / 2 + map.height + 10;
  g.font = 'bold 12px sans-serif';
  g.fillText('Legend', M, footY);
  g.font = '12px sans-serif';
  const perColumn = 3;
  s.legend.forEach((e, i) => {
    const x = M + Math.floor(i / perColumn) * 150;
    const y = footY + 16 + (i % perColumn) * 16;
    if (x + 150 > out.width * 0.62) return;
    g.fillStyle = e.colour;
    g.fillRect(x, y, 11, 11);
    g.fillStyle = INK;
    g.fillText(e.label, x + 16, y);
  });

  // The scale bar: metres a pixel stands for at the view's middle latitude (a Web Mercator metre is cos(lat) on the ground).
  const [x0] = mercator(s.bbox[0], s.bbox[1]);
  const [x1] = mercator(s.bbox[2], s.bbox[3]);
  const perPixel = ((x1 - x0) / map.width) * Math.cos((((s.bbox[1] + s.bbox[3]) / 2) * Math.PI) / 180);
  const bar = scaleBar(perPixel, out.width * 0.25);
  const bx = out.width * 0.64;
  const by = footY + 20;
  for (let i = 0; i < 4; i++) {
    g.fillStyle = i % 2 === 0 ? INK : '#ffffff';
    g.fillRect(bx + (i * bar.points) / 4, by, bar.points / 4, 6);
  }
  g.strokeRect(bx + 0.5, by + 0.5, bar.points, 6);
  g.fillStyle = INK;
  g.fillText('0', bx - 3, by + 10);
  g.fillText(bar.label, bx + bar.points - g.measureText(bar.label).width / 2, by + 10);

  // The north arrow.
  const nx = out.width - M - 14;
  g.beginPath();
  g.moveTo(nx, footY);
  g.lineTo(nx + 9, footY + 28);
  g.lineTo(nx, footY + 21);
  g.lineTo(nx - 9, footY + 28);
  g.closePath();
  g.fill();
  g.font = 'bold 12px sans-serif';
  g.fillText('N', nx - g.measureText('N').width / 2, footY + 32);
  return out;
}
