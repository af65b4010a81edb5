// Print the map (issue 33), as app.test.ts runs the app (`npm start`'s launcher with the embedded demo service,
// Debian's Chromium at 1280x800): the demo's Finca El Olivar chosen, the print panel's PDF (A4 landscape, its rotation
// table on a second page) downloaded and rendered with poppler's pdftoppm — the parcels inside the map's frame around
// its middle, the legend's first swatch the synced green where core/print/layout.ts puts it, the scale bar's first
// segment black, the parcels as vector paths in the content stream; A3 portrait at its size; and the PNG of the map
// with its title, legend and parcels.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { PDFDocument } from 'pdf-lib';
import { ROOT } from '../helpers/process.ts';
import { SHOTS } from './embed-harness.ts';
import { decodePng, openApp, shownOn, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';
import { sheetLayout } from '../../core/print/layout.ts';

let ctx: DemoApp;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-print-');
  ({ browser } = ctx);
}, 150_000);

afterAll(async () => {
  await ctx?.stop();
});

const poll = <T>(fn: () => Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout });
const SYNCED = [0x2e, 0x7d, 0x32];
const near = (c: readonly number[], rgb: readonly number[], tol: number) => c.every((v, i) => Math.abs(v - rgb[i]!) <= tol);
/** A parcel's green: its fill (45 % over the ground) or its outline. */
const greenish = (c: readonly number[]) => c[1]! - c[0]! > 20 && c[1]! - c[2]! > 20;

/** Saves what clicking `button` downloads; its path. */
async function downloaded(button: string): Promise<string> {
  const [d] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.getByRole('button', { name: button, exact: true }).click()]);
  const file = join(ctx.dir, d.suggestedFilename());
  await d.saveAs(file);
  return file;
}

function render(pdf: string, page = 1) {
  execFileSync('/usr/bin/pdftoppm', ['-png', '-r', '72', '-f', String(page), '-l', String(page), '-singlefile', pdf, `${pdf}-${page}`]);
  const img = decodePng(readFileSync(`${pdf}-${page}.png`));
  const at = (x: number, y: number) => { const i = (Math.round(y) * img.width + Math.round(x)) * 4; return [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!]; };
  return { ...img, at, file: `${pdf}-${page}.png` };
}

describe('printing the map', () => {
  it("prints the farm's map as a PDF with its legend, scale bar and north arrow, the parcels as vectors, the rotation table after", async () => {
    ({ page } = await openApp(browser, ctx.app.url));
    await poll(() => shownOn(page), 60_000).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    await page.locator('.farm', { hasText: 'Finca El Olivar' }).click();
    await page.waitForTimeout(1500); // the fit's animation, and the view read again
    await page.getByRole('button', { name: 'Print the map' }).click();
    await poll(() => page.getByLabel('Title').inputValue()).toBe('Finca El Olivar');
    await page.getByLabel("The farm's rotation table on a second page").check();
    await page.screenshot({ path: join(SHOTS, 'app-print-panel.png') });
    const pdf = await downloaded('PDF');
    expect(pdf.endsWith('Finca El Olivar A4 landscape.pdf')).toBe(true);
    await poll(() => page.getByRole('status', { name: 'Message' }).textContent()).toMatch(/^Printed \d+ parcels to Finca El Olivar A4 landscape\.pdf/);
    const bytes = readFileSync(pdf);
    expect((await PDFDocument.load(bytes)).getPageCount()).toBe(2);

    const l = sheetLayout('A4', 'landscape');
    const img = render(pdf);
    expect([img.width, img.height]).toEqual([842, 596]);
    // The parcels: green inside the frame, around its middle (the farm fitted to the view); none above the frame.
    const inFrame: [number, number][] = [];
    for (let y = Math.ceil(l.frame.y) + 2; y < l.frame.y + l.frame.h - 2; y += 2) for (let x = Math.ceil(l.frame.x) + 2; x < l.frame.x + l.frame.w - 2; x += 2) if (greenish(img.at(x, y))) inFrame.push([x, y]);
    expect(inFrame.length).toBeGreaterThan(100);
    const mx = inFrame.reduce((s, p) => s + p[0], 0) / inFrame.length;
    const my = inFrame.reduce((s, p) => s + p[1], 0) / inFrame.length;
    expect(Math.abs(mx - (l.frame.x + l.frame.w / 2))).toBeLessThan(l.frame.w * 0.3);
    expect(Math.abs(my - (l.frame.y + l.frame.h / 2))).toBeLessThan(l.frame.h * 0.3);
    let above = 0;
    for (let y = 0; y < l.frame.y - 2; y++) for (let x = 0; x < img.width; x += 2) if (greenish(img.at(x, y))) above++;
    expect(above).toBe(0);
    // The legend's first swatch: Synced, in its green; the scale bar's first segment black; the north arrow's ink.
    expect(near(img.at(l.legend.x + 4, l.legend.y + 12 + 4), SYNCED, 40)).toBe(true);
    expect(near(img.at(l.scale.x + 3, l.scale.y + 2.5), [0x1c, 0x24, 0x27], 50)).toBe(true);
    expect(near(img.at(l.north.x + l.north.w / 2, l.north.y + 16), [0x1c, 0x24, 0x27], 60)).toBe(true);
    copyFileSync(img.file, join(ROOT, 'docs/img/app-print.png'));

    // Vector: the parcels are paths (moveto, linetos) in the page's content, however the basemap is an image.
    const text = bytes.toString('latin1');
    const content = [...text.matchAll(/stream\r?\n/g)].map((m) => {
      const raw = bytes.subarray(m.index! + m[0].length, text.indexOf('endstream', m.index! + m[0].length));
      try { return inflateSync(raw).toString('latin1'); } catch { return ''; }
    }).join('\n');
    expect((content.match(/ l\n/g) ?? []).length).toBeGreaterThanOrEqual(12 * 4);
    // The second page: the rotation table, its heading drawn.
    const second = render(pdf, 2);
    expect([...Array(300).keys()].filter((i) => near(second.at(28 + i, 36), [0x1c, 0x24, 0x27], 80)).length).toBeGreaterThan(5);
  }, 240_000);

  it('prints A3 portrait at its size, and the map as a PNG with its title, legend and parcels', async () => {
    await page.getByLabel('Paper').selectOption('A3');
    await page.getByLabel('Orientation').selectOption('portrait');
    await page.getByLabel("The farm's rotation table on a second page").uncheck();
    const pdf = await downloaded('PDF');
    expect(pdf.endsWith('A3 portrait.pdf')).toBe(true);
    expect((await PDFDocument.load(readFileSync(pdf))).getPageCount()).toBe(1);
    expect([render(pdf).width, render(pdf).height]).toEqual([842, 1191]);

    const png = decodePng(readFileSync(await downloaded('PNG')));
    const map = (await page.locator('.map .ol-viewport').boundingBox())!;
    expect(png.width).toBe(Math.round(map.width) + 32);
    const at = (x: number, y: number) => { const i = (y * png.width + x) * 4; return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!]; };
    // The title's ink in the top band, the parcels' green in the map.
    let ink = 0;
    for (let y = 16; y < 40; y++) for (let x = 16; x < 200; x++) if (at(x, y)[0]! < 100) ink++;
    expect(ink).toBeGreaterThan(20);
    let green = 0;
    for (let y = 60; y < png.height - 80; y += 2) for (let x = 16; x < png.width - 16; x += 2) if (greenish(at(x, y))) green++;
    expect(green).toBeGreaterThan(100);
  }, 120_000);
});
