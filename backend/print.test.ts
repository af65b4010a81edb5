// The printed map (core/api-print.ts printMap) on a real mirror, rendered back with poppler's pdftoppm: the parcels
// drawn where the layout puts their coordinates, in their legend colour; the legend's swatches and the scale bar where
// core/print/layout.ts says; the parcels as vector paths in the content stream (not an image), sharp at 4×; A3 and
// portrait the sizes they are; the rotation table on a second page; a basemap that is no PNG, another account's farm,
// and a caller without a page session refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { PDFDocument } from 'pdf-lib';
import { Backend } from './backend.ts';
import { ByteResources } from './bytes.ts';
import { printHandlers } from './print.ts';
import { inProcess } from '../core/rpc.ts';
import type { PRINT_API } from '../core/api-print.ts';
import { parseBytesPath } from '../core/bytes-protocol.ts';
import { fitView, sheetLayout, LEGEND_ROW, type Orientation, type Paper } from '../core/print/layout.ts';
import { decodePng, solidPng } from '../test/helpers/png.ts';
import type { FarmRow } from '../db/types.ts';

const dir = mkdtempSync(join(tmpdir(), 'furrow-print-'));
const ACC = 'acc-00000000-0000-4000-8000-0000000000c1';
const OTHER = 'acc-00000000-0000-4000-8000-0000000000c2';
let backend: Backend;
let bytes: ByteResources;
let api: ReturnType<typeof inProcess<typeof PRINT_API>>;
let farm: FarmRow;
let notMine: FarmRow;
const BBOX: [number, number, number, number] = [-4.02, 37.99, -3.96, 38.03];
const GREEN = '#2e7d32';
const RED = '#c62828';

const square = (name: string, lon: number, lat: number, d: number) => ({
  name, metadata: {}, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[lon, lat], [lon + d, lat], [lon + d, lat + d], [lon, lat + d], [lon, lat]]] } },
});

beforeAll(() => {
  backend = new Backend({ home: dir });
  bytes = new ByteResources(join(dir, 'exports'));
  api = inProcess<typeof PRINT_API>(printHandlers(backend.mirror, bytes.session(), (f) => backend.farmRotation(f)));
  const m = backend.mirror;
  for (const id of [ACC, OTHER]) m.syncDb.prepare("INSERT INTO accounts (id, service_url, mode, label, created) VALUES (?, 'http://127.0.0.1:1', 'api_key', 'P', '2026-01-01')").run(id);
  farm = m.write.createFarm(ACC, 'Finca Print');
  notMine = m.write.createFarm(OTHER, 'Not mine');
  m.write.createParcels(farm.local_id, [square('West', -4.01, 38.0, 0.01), square('East', -3.98, 38.0, 0.01)]);
  // West synced (its op gone), East pending.
  const west = m.syncDb.prepare("SELECT local_id FROM parcels WHERE name = 'West'").pluck().get() as string;
  m.syncDb.prepare("DELETE FROM outbox WHERE entity = 'parcel' AND local_id = ?").run(west);
  m.write.createCrop(ACC, west, { name: 'Wheat', campaign: '2025' });
});
afterAll(() => {
  backend.close();
  rmSync(dir, { recursive: true, force: true });
});

const legend = [{ key: 'synced', label: 'Synced', colour: GREEN }, { key: 'pending', label: 'Pending', colour: RED }];
const args = { account: ACC, farm: '', title: 'Finca Print map', bbox: BBOX, paper: 'A4' as Paper, orientation: 'landscape' as Orientation, colourBy: 'state' as const, legend };

async function printed(over: Partial<typeof args> & { rotation?: boolean; basemap?: { png: string; credit: string } } = {}) {
  const r = await api.printMap({ ...args, farm: farm.local_id, ...over });
  const opened = (await bytes.open(parseBytesPath(r.path)!))!;
  try {
    return { r, pdf: await opened.handle!.readFile(), meta: opened.meta };
  } finally {
    await opened.handle!.close();
  }
}

/** Page `n` of the PDF as pixels, at `dpi` (72: a point is a pixel). */
function render(pdf: Buffer, dpi = 72, n = 1) {
  const file = join(dir, `p-${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, pdf);
  execFileSync('/usr/bin/pdftoppm', ['-png', '-r', String(dpi), '-f', String(n), '-l', String(n), '-singlefile', file, file]);
  const img = decodePng(readFileSync(`${file}.png`));
  const at = (x: number, y: number) => { const i = (Math.round(y) * img.width + Math.round(x)) * 4; return [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!] as const; };
  return { ...img, at };
}
const near = (c: readonly number[], hex: string, tol = 40) => {
  const n = Number.parseInt(hex.slice(1), 16);
  return Math.abs(c[0]! - ((n >> 16) & 255)) <= tol && Math.abs(c[1]! - ((n >> 8) & 255)) <= tol && Math.abs(c[2]! - (n & 255)) <= tol;
};
/** A colour at 45 % over white, as a parcel's fill is printed. */
const tint = (hex: string) => {
  const n = Number.parseInt(hex.slice(1), 16);
  const mix = (v: number) => Math.round(255 + (v - 255) * 0.45).toString(16).padStart(2, '0');
  return `#${mix((n >> 16) & 255)}${mix((n >> 8) & 255)}${mix(n & 255)}`;
};

describe('the printed map', () => {
  it('draws each parcel where its coordinates fall, in its legend colour, with the legend and the scale bar where the layout puts them', async () => {
    const { r, pdf, meta } = await printed();
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect([r.parcels, r.fileName, meta.type]).toEqual([2, 'Finca Print map A4 landscape.pdf', 'application/pdf']);
    const l = sheetLayout('A4', 'landscape');
    const img = render(pdf);
    // pdftoppm rounds a page's points up to whole pixels.
    expect([img.width, img.height]).toEqual([842, 596]);
    const fit = fitView(BBOX, l.frame);
    // The middle of each parcel: the synced one green, the pending one red (45 % over white).
    const [wx, wy] = fit.at(-4.005, 38.005);
    const [ex, ey] = fit.at(-3.975, 38.005);
    expect(near(img.at(wx, wy), tint(GREEN), 12)).toBe(true);
    expect(near(img.at(ex, ey), tint(RED), 12)).toBe(true);
    // Between them: nothing (white).
    expect(near(img.at((wx + ex) / 2, wy), '#ffffff', 3)).toBe(true);
    // The legend's swatches, in their order.
    expect(near(img.at(l.legend.x + 4, l.legend.y + 12 + 4), GREEN)).toBe(true);
    expect(near(img.at(l.legend.x + 4, l.legend.y + 12 + LEGEND_ROW + 4), RED)).toBe(true);
    // The scale bar: its first segment black, its second white inside a black outline.
    expect(near(img.at(l.scale.x + 3, l.scale.y + 2.5), '#1c2427', 50)).toBe(true);
    const firstWhite = [...Array(60).keys()].map((i) => img.at(l.scale.x + 8 + i, l.scale.y + 2.5)).findIndex((c) => near(c, '#ffffff', 10));
    expect(firstWhite).toBeGreaterThan(0);
  });

  it('writes the parcels as vector paths, sharp at 4×: no image of the map', async () => {
    const { pdf } = await printed();
    const text = pdf.toString('latin1');
    const streams = [...text.matchAll(/stream\r?\n/g)].map((m) => {
      const start = m.index! + m[0].length;
      const raw = pdf.subarray(start, text.indexOf('endstream', start));
      try { return inflateSync(raw).toString('latin1'); } catch { return raw.toString('latin1'); }
    });
    const content = streams.join('\n');
    // Each parcel's ring: a moveto and four linetos, closed; filled and stroked.
    expect((content.match(/ l\n/g) ?? []).length).toBeGreaterThanOrEqual(8);
    expect(content).toMatch(/ m\n/);
    expect(text).not.toMatch(/\/Subtype\s*\/Image/);
    // At 4× (288 dpi) the parcel's edge goes from fill to outside within two pixels: drawn, not scaled up.
    const l = sheetLayout('A4', 'landscape');
    const fit = fitView(BBOX, l.frame);
    const big = render(pdf, 288);
    const [x0] = fit.at(-4.01, 38.005);
    const y = fit.at(-4.005, 38.005)[1] * 4;
    const row = [...Array(24).keys()].map((i) => big.at(x0 * 4 - 12 + i, y));
    const inside = row.findIndex((c) => near(c, tint(GREEN), 12));
    const outsideLast = row.map((c) => near(c, '#ffffff', 3)).lastIndexOf(true);
    expect(inside).toBeGreaterThan(0);
    expect(inside - outsideLast).toBeLessThanOrEqual(8);
  });

  it('prints A3 and portrait at their sizes, the basemap under the parcels, the rotation table on a second page', async () => {
    const png = solidPng('#d0e8ff', 4).toString('base64');
    const { pdf } = await printed({ paper: 'A3', orientation: 'portrait', rotation: true, basemap: { png, credit: '© Test tiles' } });
    const img = render(pdf);
    expect([img.width, img.height]).toEqual([842, 1191]);
    expect((await PDFDocument.load(pdf)).getPageCount()).toBe(2);
    const l = sheetLayout('A3', 'portrait');
    const fit = fitView(BBOX, l.frame);
    // The basemap's colour where no parcel is, inside the view's box.
    expect(near(img.at(fit.box.x + 5, fit.box.y + 5), '#d0e8ff', 6)).toBe(true);
    const second = render(pdf, 72, 2);
    // Its heading and rows are drawn (dark pixels in the heading's band).
    const dark = [...Array(300).keys()].filter((i) => near(second.at(28 + i, 36), '#1c2427', 80)).length;
    expect(dark).toBeGreaterThan(5);
  });

  it("refuses a basemap that is no PNG, another account's farm, and a caller without a page session", async () => {
    await expect(api.printMap({ ...args, farm: farm.local_id, basemap: { png: Buffer.from('GIF89a').toString('base64'), credit: '' } })).rejects.toMatchObject({ code: 'invalid_choice' });
    await expect(api.printMap({ ...args, farm: notMine.local_id })).rejects.toMatchObject({ code: 'not_found' });
    const cli = inProcess<typeof PRINT_API>(printHandlers(backend.mirror, null, (f) => backend.farmRotation(f)));
    await expect(cli.printMap({ ...args, farm: farm.local_id })).rejects.toMatchObject({ code: 'forbidden' });
  });
});
