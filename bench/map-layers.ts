// The map with a raster basemap (issue 30): the app in browser mode on a mirror of 10,000 parcels, an XYZ layer from
// a tile server on 127.0.0.1 answering textured 256 px PNG tiles (what a photo tile costs to decode and draw), and
// the world backdrop under it — in headless Chromium with WebGL off, so the canvas path is what is measured. Frame
// times while panning and zooming at the farm view and zoomed out to the whole mirror, as bench/map.ts measures them.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { chromium, type Browser, type Page } from 'playwright-core';
import { MILLION_ACCOUNT, millionMirror, wholeFarms } from './lib/million-mirror.ts';
import { startBrowserApp } from './lib/browser-app.ts';
import { CANVAS_CHROMIUM_ARGS, exercise, firstGesture, mapArgs, openMap, type MapProbe } from './lib/map-probe.ts';
import { rgbPng } from '../test/helpers/png.ts';
import { median, r1, summarize } from './lib/stats.ts';
import { cpuWindow } from './lib/machine.ts';
import { metric, startResult, writeResult } from './lib/result.ts';
import { worldLayer } from '../core/layers/layer-rules.ts';

const args = mapArgs({ parcels: 10_000 });
const PARCELS = wholeFarms(args.parcels);
const { runs: RUNS, pans: PANS, zooms: ZOOMS } = args;
const fmt = (n: number) => n.toLocaleString('en-US');

/** Eight textured tiles (blocks of noise over a gradient, ~60 KB each), answered in turn by tile position. */
function tiles(): Buffer[] {
  return Array.from({ length: 8 }, (_, k) => {
    let seed = 1234567 + k * 7919;
    const noise = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff; };
    const blocks = Array.from({ length: 64 * 64 }, () => [noise(), noise(), noise()]);
    return rgbPng(256, (x, y) => {
      const b = blocks[(y >> 2) * 64 + (x >> 2)]!;
      return [Math.round(90 + 60 * b[0]! + x / 8), Math.round(110 + 50 * b[1]! + y / 8), Math.round(70 + 40 * b[2]!)];
    });
  });
}

/** The frames of a view's drags and wheel zooms at the centre (bench/lib/map-probe.ts), pooled. */
async function frames(page: Page, probe: MapProbe): Promise<number[]> {
  const s = await exercise(page, probe, PANS, ZOOMS);
  return [...s.pan, ...s.zoom];
}

interface Run { load: number; farm: number[]; wide: number[]; tiles: number }

async function oneRun(url: string, browser: Browser, served: () => number): Promise<Run> {
  const load = r1(loadavg()[0]!);
  const before = served();
  const { context, page, probe, errors } = await openMap(browser, url);
  await probe.quiet();
  await firstGesture(page, probe);
  const farm = await frames(page, probe);
  // Zoomed out five levels: the farms of a region, tiles of the basemap replaced at each level.
  for (let i = 0; i < 5; i++) {
    await probe.start();
    await page.mouse.wheel(0, 300);
    await probe.settle();
  }
  const wide = await frames(page, probe);
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  await context.close();
  return { load, farm, wide, tiles: served() - before };
}

async function main(): Promise<void> {
  const record = startResult('map-layers', `The map with a raster basemap and ${fmt(PARCELS)} parcels: pan and zoom frames (canvas path)`, 'npm run bench -- map-layers');
  const made = tiles();
  let served = 0;
  const server = createServer((req, res) => {
    const [z, x, y] = (req.url ?? '').split('/').slice(1).map((n) => parseInt(n, 10));
    served++;
    res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'max-age=3600' });
    res.end(made[((x ?? 0) * 3 + (y ?? 0) * 5 + (z ?? 0)) % made.length]);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const mm = millionMirror(PARCELS);
  const app = await startBrowserApp(mm.file, MILLION_ACCOUNT);
  await app.host.api.saveLayers({ layers: [worldLayer(), { id: 'photo', name: 'Textured tiles', visible: true, opacity: 1, source: { kind: 'xyz', url: `http://127.0.0.1:${port}/{z}/{x}/{y}.png` } }] });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CANVAS_CHROMIUM_ARGS });
  const runs: Run[] = [];
  const cpu = cpuWindow({ bench: process.pid, host: app.host.pid });
  let window: ReturnType<typeof cpu.end> | undefined;
  try {
    for (let i = 0; i < RUNS; i++) {
      const r = await oneRun(app.url, browser, () => served);
      runs.push(r);
      process.stderr.write(`  run ${i + 1}: load ${r.load}, farm p95 ${summarize(r.farm).p95_ms} ms, zoomed out p95 ${summarize(r.wide).p95_ms} ms, ${r.tiles} tiles\n`);
    }
    window = cpu.end();
  } finally {
    await browser.close();
    await app.close();
    server.close();
  }
  const p95 = (xs: number[]) => summarize(xs).p95_ms;
  const med = (f: (r: Run) => number) => r1(median(runs.map(f)));
  const result = record.finish({
    method: [
      `The app as in browser mode (bench/lib/browser-app.ts: the mirror host from source serving the built renderer) on a copy of the ${fmt(PARCELS)}-parcel mirror of bench/lib/million-mirror.ts, its layers set through the host's API before the page opens: the world backdrop and an XYZ layer from a tile server in this process on 127.0.0.1, answering 256 px PNG tiles with texture (blocks of noise over a gradient, ${fmt(Math.round(made.reduce((a, b) => a + b.length, 0) / made.length / 1024))} KB each: decoding and drawing them costs what a photo tile costs). Headless Chromium with WebGL switched off: the canvas path.`,
      `Frames: requestAnimationFrame deltas from the start of an interaction until its moveend (bench/lib/map-probe.ts), ${PANS} drags of 192 px and ${ZOOMS} wheel zooms at the centre, at the start's farm view and again zoomed out five levels (a region's farms, the basemap's tiles replaced at each level). ${RUNS} runs, each in a new browser context (tiles fetched afresh); figures are the median of the runs' p95s.`,
    ],
    metrics: [
      metric(`Pan and zoom frame time p95 with the raster basemap, farm view (median of ${RUNS})`, med((r) => p95(r.farm)), 'ms', { op: '<', value: 33 }),
      metric('Pan and zoom frame time p95 with the raster basemap, zoomed out (median of runs)', med((r) => p95(r.wide)), 'ms', { op: '<', value: 33 }),
      metric('Frame time p50, farm view', med((r) => summarize(r.farm).p50_ms), 'ms'),
      metric('Tiles served per run (median)', med((r) => r.tiles), 'tiles'),
    ],
    tables: [{
      title: 'Each run (load average at its start)', columns: ['Run', 'load', 'farm view p95 ms', 'zoomed out p95 ms', 'frames', 'tiles served'],
      rows: runs.map((r, i) => [i + 1, r.load, p95(r.farm), p95(r.wide), r.farm.length + r.wide.length, r.tiles]),
    }],
    notes: [`CPU over the runs: the host ${window!.ours.host}, this process (and its tile server) ${window!.ours.bench}, everything else (Chromium and other work) ${window!.others} cores.`],
    details: { runs },
  });
  process.stderr.write(`  wrote ${writeResult(result)}\n`);
}

await main();
