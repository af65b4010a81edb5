// Every parcel at every zoom with a million in the mirror (issue 32): the app in browser mode (the real host, the
// built renderer) on a mirror of 1,000,000 parcels, in headless Chromium with WebGL off (the canvas path, as
// bench/map.ts). Measured in the page: the first paint of parcels after the navigation; frame times while panning
// and zooming; and the view complete after a move (the map's request to the rendercomplete after the new view is
// drawn, its parcels read exactly or its tiles cut and drawn) at three zooms: the start's farm, a region (four
// levels out: about 60 km across) and every parcel in view. Beside them the renderer's JavaScript heap and the host's
// memory (resident and peak, and what its tile cache and overview hold).
import { loadavg } from 'node:os';
import { chromium, type Browser, type Page } from 'playwright-core';
import { MILLION_ACCOUNT, millionMirror, wholeFarms } from './lib/million-mirror.ts';
import { startBrowserApp } from './lib/browser-app.ts';
import { CANVAS_CHROMIUM_ARGS, exercise as exerciseView, firstGesture, mapArgs, openMap, type MapProbe, type Scale } from './lib/map-probe.ts';
import { median, r1, summarize, type LatencySummary } from './lib/stats.ts';
import { cpuWindow, procMemoryKb } from './lib/machine.ts';
import { metric, startResult, writeResult, type Table } from './lib/result.ts';

const args = mapArgs({ parcels: 1_000_000, runs: 2 });
const PARCELS = wholeFarms(args.parcels);
const { runs: RUNS, pans: PANS, zooms: ZOOMS } = args;
/** Where the generated mirror's parcels lie (bench/lib/fields.ts lays farms out in Spain), [lon, lat] corners. */
const DATA_BBOX = [-7, 36.77, -1.55, 39.52];
const exercise = (page: Page, probe: MapProbe) => exerciseView(page, probe, PANS, ZOOMS);
const fmt = (n: number) => n.toLocaleString('en-US');
const mb = (b: number) => r1(b / 2 ** 20);

interface Run {
  load: number;
  firstPaintMs: number;
  farm: Scale;
  region: Scale;
  all: Scale;
  renderers: string[];
  heapUsed: number;
  hostRssKb: number;
  hostPeakKb: number;
}

async function lonLatAt(page: Page, x: number, y: number): Promise<[number, number]> {
  await page.mouse.move(x, y);
  const [lon, lat] = ((await page.locator('.cursor-position').textContent()) ?? '').split(',').map((s) => Number(s.trim()));
  return [lon!, lat!];
}

/** One wheel step of a zoom level out (300 px) at the map's centre, waited out. */
async function wheelOut(page: Page, probe: MapProbe): Promise<void> {
  const box = (await page.locator('.map .ol-viewport').boundingBox())!;
  await probe.start();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, 300);
  await probe.settle();
}

/** Wheels out until the view holds every parcel of the mirror. */
async function zoomOutToAll(page: Page, probe: MapProbe): Promise<void> {
  const box = (await page.locator('.map .ol-viewport').boundingBox())!;
  for (let steps = 0; steps < 16; steps++) {
    const [w, n] = await lonLatAt(page, box.x + 5, box.y + 5);
    const [e, s] = await lonLatAt(page, box.x + box.width - 5, box.y + box.height - 5);
    if (w <= DATA_BBOX[0]! && s <= DATA_BBOX[1]! && e >= DATA_BBOX[2]! && n >= DATA_BBOX[3]!) return;
    await wheelOut(page, probe);
  }
  throw new Error('the map did not zoom out to the whole mirror in 16 wheel steps');
}

const rendererOf = async (page: Page) => (await page.locator('.map').getAttribute('data-parcel-renderer')) ?? '?';

async function oneRun(url: string, browser: Browser, hostPid: number): Promise<Run> {
  const load = r1(loadavg()[0]!);
  const { context, page, probe, errors } = await openMap(browser, url);
  const firstPaintMs = await page.evaluate(() => performance.getEntriesByName('furrow:parcels-drawn')[0]!.startTime);
  await probe.quiet();
  await firstGesture(page, probe);
  const renderers: string[] = [];
  const farm = await exercise(page, probe);
  renderers.push(await rendererOf(page));
  for (let i = 0; i < 4; i++) await wheelOut(page, probe);
  const region = await exercise(page, probe);
  renderers.push(await rendererOf(page));
  await zoomOutToAll(page, probe);
  const all = await exercise(page, probe);
  renderers.push(await rendererOf(page));
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const heapUsed = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? NaN;
  const host = procMemoryKb(hostPid);
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  await context.close();
  return { load, firstPaintMs, farm, region, all, renderers, heapUsed, hostRssKb: host.rss, hostPeakKb: host.hwm };
}

async function main(): Promise<void> {
  const record = startResult('map-million', `Every parcel at every zoom, ${fmt(PARCELS)} in the mirror: first paint, frames, view complete after a move, memory`, `npm run bench -- map-million${PARCELS === 1_000_000 ? '' : ` --parcels ${PARCELS}`}`);
  const mm = millionMirror(PARCELS);
  const app = await startBrowserApp(mm.file, MILLION_ACCOUNT);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CANVAS_CHROMIUM_ARGS });
  const runs: Run[] = [];
  const cpu = cpuWindow({ bench: process.pid, host: app.host.pid });
  let window: ReturnType<typeof cpu.end> | undefined;
  try {
    for (let i = 0; i < RUNS; i++) {
      const r = await oneRun(app.url, browser, app.host.pid);
      runs.push(r);
      const p95 = (s: Scale) => summarize(s.reload).p95_ms;
      process.stderr.write(`  run ${i + 1}: load ${r.load}, first paint ${r1(r.firstPaintMs)} ms, view complete p95 farm ${p95(r.farm)} / region ${p95(r.region)} / all ${p95(r.all)} ms, frames p95 ${summarize(frames(r)).p95_ms} ms, heap ${mb(r.heapUsed)} MB, host ${r1(r.hostRssKb / 1024)} MB (${r.renderers.join(', ')})\n`);
    }
    window = cpu.end();
  } finally {
    await browser.close();
    await app.close();
  }
  const per = (f: (r: Run) => number) => runs.map(f);
  const med = (f: (r: Run) => number) => r1(median(per(f)));
  const spread = (f: (r: Run) => number) => per(f).map((x) => fmt(r1(x))).join(' / ');
  const pooled = (f: (r: Run) => number[]) => summarize(runs.flatMap(f));
  const lat = (label: string, l: LatencySummary): (string | number)[] => [label, l.count, l.p50_ms, l.p95_ms, l.max_ms];
  const tables: Table[] = [{
    title: `Timings, all ${RUNS} runs pooled (ms)`,
    columns: ['What', 'samples', 'p50', 'p95', 'max'],
    rows: [
      lat('View complete after a move, farm view', pooled((r) => r.farm.reload)),
      lat('View complete after a move, region (4 levels out)', pooled((r) => r.region.reload)),
      lat(`View complete after a move, all ${fmt(PARCELS)} in view`, pooled((r) => r.all.reload)),
      lat('Pan frames, farm view', pooled((r) => r.farm.pan)), lat('Zoom frames, farm view', pooled((r) => r.farm.zoom)),
      lat('Pan frames, region', pooled((r) => r.region.pan)), lat('Zoom frames, region', pooled((r) => r.region.zoom)),
      lat('Pan frames, all in view', pooled((r) => r.all.pan)), lat('Zoom frames, all in view', pooled((r) => r.all.zoom)),
    ],
  }, {
    title: 'Each run (load average at its start)',
    columns: ['Run', 'load', 'first paint ms', 'frames p95', 'view complete p95 farm / region / all', 'drawn by', 'heap MB', 'host RSS MB (peak)'],
    rows: runs.map((r, i) => [i + 1, r.load, r1(r.firstPaintMs), summarize(frames(r)).p95_ms,
      `${summarize(r.farm.reload).p95_ms} / ${summarize(r.region.reload).p95_ms} / ${summarize(r.all.reload).p95_ms}`, r.renderers.join(', '), mb(r.heapUsed), `${r1(r.hostRssKb / 1024)} (${r1(r.hostPeakKb / 1024)})`]),
  }];
  const viewP = (f: (r: Run) => number[], q: 'p50_ms' | 'p95_ms') => pooled(f)[q];
  const result = record.finish({
    method: [
      `The app as in browser mode: the mirror host (backend/host.ts, from source) serving the built renderer, the API and the parcel tiles, on a copy of the ${fmt(PARCELS)}-parcel mirror of bench/lib/million-mirror.ts (${mm.meta.farms} farms in Spain${mm.reused ? ', cached under bench/tmp/' : ', built by this run'}); no service (the app goes on offline). Headless Chromium (/usr/bin/chromium, 1280×800) with WebGL off. ${RUNS} runs on the same host, each a new browser context: the host's tile cache and its overview of the parcels' boxes (built in the background once the page first asks for tiles) carry over from one run to the next, as they do in a day's use; the first run's first visit to each view is cold.`,
      "First paint: from the navigation's start to the renderer's `furrow:parcels-drawn` mark (the map's first rendercomplete after the start's farm view is drawn).",
      `Three views, each put through ${PANS} drags of 192 px and ${ZOOMS} wheel zooms (one level each) at its centre: the start's farm, a region four levels out (about 60 km across), and every parcel of the mirror in view (wheeled out until the map's corners cover the data). Frames: requestAnimationFrame deltas from an interaction's start to its moveend. View complete after a move: the renderer's \`furrow:reload\` measure, from the map's request for the new view (moveend) to the rendercomplete after it is drawn — a view of up to 5,000 parcels read exactly (GeoJSON, names), a larger one drawn from the host's parcel tiles (every tile in view loaded and drawn).`,
      "Memory: the renderer's JS heap (CDP Performance.getMetrics JSHeapUsedSize) at the end of a run, all in view; the host's resident set (VmRSS) and its peak (VmHWM) from /proc at the same moment.",
    ],
    metrics: [
      metric(`First map paint after navigation (median of ${RUNS})`, med((r) => r.firstPaintMs), 'ms', { op: '<=', value: 1500 }),
      metric('Pan and zoom frame time p95, all three views pooled', pooled(frames).p95_ms, 'ms', { op: '<', value: 33 }),
      metric('View complete after a move, farm view, p95', viewP((r) => r.farm.reload, 'p95_ms'), 'ms', { op: '<=', value: 300 }),
      metric('View complete after a move, region, p95', viewP((r) => r.region.reload, 'p95_ms'), 'ms', { op: '<=', value: 300 }),
      metric(`View complete after a move, all ${fmt(PARCELS)} in view, p95`, viewP((r) => r.all.reload, 'p95_ms'), 'ms', { op: '<=', value: 300 }),
      metric('View complete after a move, farm view, p50', viewP((r) => r.farm.reload, 'p50_ms'), 'ms'),
      metric('View complete after a move, region, p50', viewP((r) => r.region.reload, 'p50_ms'), 'ms'),
      metric('View complete after a move, all in view, p50', viewP((r) => r.all.reload, 'p50_ms'), 'ms'),
      metric('Renderer JS heap used, all in view (max of runs)', Math.max(...per((r) => mb(r.heapUsed))), 'MB', { op: '<=', value: 300 }),
      metric('Host resident memory at the end (max of runs)', Math.max(...per((r) => r1(r.hostRssKb / 1024))), 'MB'),
      metric('Host peak resident memory', Math.max(...per((r) => r1(r.hostPeakKb / 1024))), 'MB'),
    ],
    tables,
    notes: [
      `Spread over the runs — first paint ms: ${spread((r) => r.firstPaintMs)}; heap MB: ${spread((r) => mb(r.heapUsed))}; view complete p95 at all in view ms: ${spread((r) => summarize(r.all.reload).p95_ms)}.`,
      `Load average (1 min) at each run's start: ${runs.map((r) => r.load).join(', ')} on 2 cores shared with other work; CPU over the runs: the host ${window!.ours.host}, this process ${window!.ours.bench}, everything else (Chromium and other agents) ${window!.others} cores.`,
      'No WebGL figures: the canvas path is what this machine (no GPU) can measure meaningfully; the tiles are drawn by the canvas VectorTile layer in either case.',
    ],
    details: { runs },
  });
  process.stderr.write(`  wrote ${writeResult(result)}\n`);
}

function frames(r: Run): number[] {
  return [...r.farm.pan, ...r.farm.zoom, ...r.region.pan, ...r.region.zoom, ...r.all.pan, ...r.all.zoom];
}

await main();
