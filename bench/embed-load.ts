// The embedded map of a 5,000-parcel account in headless Chromium: time from navigation to "map ready with every
// parcel drawn", then frame timing while panning and zooming with the mouse.
import { parseArgs } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { BATCH_SIZE, makeBatches } from './lib/parcels.ts';
import { pool, runLoad } from './lib/load.ts';
import { createFarms, createTenant, removeDir, startService, tempDataDir } from './lib/service.ts';
import { cpuWindow } from './lib/machine.ts';
import { median, r1, summarize } from './lib/stats.ts';
import { metric, startResult, writeResult, type Target } from './lib/result.ts';
import type { Timings } from '../service/web/embed/client/types.ts';

const { values: args } = parseArgs({
  options: {
    parcels: { type: 'string', default: '5000' },
    farms: { type: 'string', default: '10' },
    runs: { type: 'string', default: '7' },
    /** Every n-th parcel gets a current crop (the map colours parcels by it). */
    'crop-every': { type: 'string', default: '3' },
  },
});
const PARCELS = Math.ceil(Number(args.parcels) / BATCH_SIZE) * BATCH_SIZE;
const FARMS = Number(args.farms);
const RUNS = Number(args.runs);
const CROP_EVERY = Number(args['crop-every']);
const LOAD_TARGET: Target = { op: '<=', value: 3000 };
/** 30 frames a second while dragging: what still reads as smooth panning. */
const FRAME_TARGET: Target = { op: '<=', value: 33.4 };
const VIEWPORT = { width: 1280, height: 800 };
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-gpu'];
const FAMILIES = ['Poaceae', 'Oleaceae', 'Rosaceae', 'Vitaceae', 'Asteraceae', 'Fabaceae'];

interface LoadRun extends Timings { total_ms: number; data_bytes_transferred: number; data_bytes_decoded: number; parcels: number }
interface Interaction { frames_ms: number[]; long_frames_ms: number[] }

/**
 * A page of a fresh browser profile. The benchmark runs under tsx, whose esbuild transform wraps named functions in
 * `__name(…)`; the functions handed to page.evaluate carry that call into the page, where it must exist.
 */
async function freshPage(browser: Browser): Promise<{ page: Page; close(): Promise<void> }> {
  const ctx = await browser.newContext({ viewport: VIEWPORT });
  await ctx.addInitScript('window.__name = (f) => f;');
  return { page: await ctx.newPage(), close: () => ctx.close() };
}

async function loadOnce(page: Page, url: string): Promise<LoadRun> {
  // The basemap is optional and this machine is offline: keep the tile requests out of the measurement.
  await page.route(/tile\.openstreetmap\.org/, (r) => r.abort('internetdisconnected'));
  await page.goto(url);
  return page.evaluate(async () => {
    const hook = window.__furrowEmbed!;
    await hook.ready;
    const data = performance.getEntriesByType('resource').find((e) => e.name.includes('/data/parcels')) as PerformanceResourceTiming | undefined;
    return {
      ...(hook.timings as Timings), total_ms: hook.timings.ready!, parcels: hook.parcelNames().length,
      data_bytes_transferred: data?.transferSize ?? NaN, data_bytes_decoded: data?.decodedBodySize ?? NaN,
    };
  });
}

/** rAF intervals and long animation frames (> 50 ms, Chromium's LoAF entries) while `act` runs and 1 s after. */
async function framesDuring(page: Page, act: () => Promise<void>): Promise<Interaction> {
  await page.evaluate(() => {
    const w = window as unknown as { __bench: { frames: number[]; long: number[]; on: boolean; observer: PerformanceObserver } };
    const start = performance.now();
    const bench = { frames: [] as number[], long: [] as number[], on: true, observer: null as unknown as PerformanceObserver };
    let last = start;
    const tick = (t: number) => {
      bench.frames.push(t - last);
      last = t;
      if (bench.on) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    // Only frames that began in this phase: a LoAF entry can arrive for a frame that started before observe().
    bench.observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.startTime >= start) bench.long.push(e.duration);
    });
    bench.observer.observe({ type: 'long-animation-frame' });
    w.__bench = bench;
  });
  await act();
  await page.waitForTimeout(1000); // the VectorImage layer draws the features again once the interaction has ended
  return page.evaluate(() => {
    const w = window as unknown as { __bench: { frames: number[]; long: number[]; on: boolean; observer: PerformanceObserver } };
    w.__bench.on = false;
    w.__bench.observer.disconnect();
    return { frames_ms: w.__bench.frames.slice(1), long_frames_ms: w.__bench.long };
  });
}

async function drag(page: Page): Promise<void> {
  const cx = VIEWPORT.width / 2 + 150;
  const cy = VIEWPORT.height / 2;
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  // About one pointer event per display frame for 1.5 s, in a loop out and back: a user panning around.
  for (let i = 0; i <= 90; i++) {
    const a = (i / 90) * 2 * Math.PI;
    await page.mouse.move(cx + 220 * Math.sin(a), cy + 140 * Math.sin(2 * a));
    await page.waitForTimeout(16);
  }
  await page.mouse.up();
}

async function zoom(page: Page): Promise<void> {
  await page.mouse.move(VIEWPORT.width / 2 + 150, VIEWPORT.height / 2);
  for (const dy of [-120, -120, -120, 120, 120, 120, 120, -120]) {
    await page.mouse.wheel(0, dy);
    await page.waitForTimeout(300);
  }
}

async function main(): Promise<void> {
  const record = startResult('embed-load', `Embedded map: load and pan/zoom of a ${PARCELS.toLocaleString('en-US')}-parcel account in headless Chromium`, 'npm run bench -- embed-load');
  const dir = tempDataDir('embed');
  const svc = await startService(dir);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  try {
    const p = pool(svc.url, 4);
    const tenant = await createTenant(dir, p);
    const farms = await createFarms(p, tenant, FARMS);
    const set = makeBatches(PARCELS / BATCH_SIZE, farms);
    const headers = { ...tenant.headers, 'content-type': 'application/json' };
    const filled = await runLoad(p, set.bodies.length, (i) => ({ method: 'POST', path: '/api/parcels/', headers, body: set.bodies[i]! }), 4, 201);
    if (filled.statuses['201'] !== set.bodies.length) throw new Error(`filling the account: ${JSON.stringify(filled.statuses)} ${filled.first_error}`);
    const account = JSON.parse(await (await p.request({ method: 'GET', path: `/api/accounts/${tenant.accountId}/`, headers: tenant.headers })).body.text()) as { embedded_url: string };
    const url = account.embedded_url;
    const authId = new URL(url).searchParams.get('auth_id')!;
    const listing = JSON.parse(await (await p.request({ method: 'GET', path: `/embed/data/parcels?auth_id=${authId}`, headers: {} })).body.text()) as { features: { id: number }[] };
    const ids = listing.features.map((f) => f.id).filter((_, i) => i % CROP_EVERY === 0);
    const crops = await runLoad(p, ids.length, (i) => ({
      method: 'POST', path: '/api/crops/', headers,
      body: JSON.stringify({ parcel: ids[i], name: 'Crop', family: { name: FAMILIES[i % FAMILIES.length] }, sowing: '2025-10-01', is_active: true }),
    }), 4, 201);
    if (crops.statuses['201'] !== ids.length) throw new Error(`crops: ${crops.first_error}`);

    // The data route alone, gzipped as a browser asks for it: the service's share of the load.
    const dataGet = { method: 'GET' as const, path: `/embed/data/parcels?auth_id=${authId}`, headers: { 'accept-encoding': 'gzip' } };
    await runLoad(p, 3, () => dataGet, 1, 200);
    const cpu = cpuWindow({ service: svc.pid });
    const dataRun = await runLoad(p, 10, () => dataGet, 1, 200);
    const dataCpu = cpu.end();
    await p.close();
    const dataLatency = summarize(dataRun.latencies);

    // First load after start-up: the service bundles the page's code with esbuild on this request.
    const coldTab = await freshPage(browser);
    const cold = await loadOnce(coldTab.page, url);
    await coldTab.close();
    if (cold.parcels !== PARCELS) throw new Error(`the map shows ${cold.parcels} parcels, expected ${PARCELS}`);

    // Each measured load in a fresh browser profile: no HTTP cache, as a first visit from an integrator's page.
    const runs: LoadRun[] = [];
    for (let i = 0; i < RUNS; i++) {
      const tab = await freshPage(browser);
      runs.push(await loadOnce(tab.page, url));
      await tab.close();
    }
    const { page, close } = await freshPage(browser);
    await loadOnce(page, url);
    const pan = await framesDuring(page, () => drag(page));
    const zoomed = await framesDuring(page, () => zoom(page));
    await close();

    const med = (k: keyof LoadRun) => r1(median(runs.map((r) => r[k])));
    const panS = summarize(pan.frames_ms);
    const zoomS = summarize(zoomed.frames_ms);
    const longest = (xs: number[]) => r1(Math.max(0, ...xs));
    const result = record.finish({
      method: [
        `The service runs as a child process (synchronous=FULL, fresh DATA_DIR). One account gets ${PARCELS.toLocaleString('en-US')} parcels in ${FARMS} farms through POST /api/parcels/ (the generated batches of service-bulk: polygons of 10–50 vertices, ~8 % points, 5 metadata keys), and one parcel in ${CROP_EVERY} a current crop in one of ${FAMILIES.length} families through POST /api/crops/.`,
        `Debian's Chromium (headless, --disable-gpu: software canvas) opens the account's embedded_url at ${VIEWPORT.width}×${VIEWPORT.height}, with the OSM basemap requests failing as offline. "Load" is the page's own performance.now() when window.__furrowEmbed.ready resolves: from navigation start until the data is fetched, the features read, the view fitted and the parcel layer drawn once. The page must then hold every parcel.`,
        `One cold load right after start-up (the service bundles the page's code with esbuild on that request), then ${RUNS} measured loads, each in a fresh browser profile (no HTTP cache).`,
        'Frame timing on a loaded page: requestAnimationFrame intervals and long animation frames (Chromium LoAF entries, > 50 ms) while the mouse drags the map in a loop for 1.5 s (one move per ~16 ms), and while the wheel zooms in three steps and out four; each phase includes the second after the interaction, when the VectorImage layer draws the parcels again.',
      ],
      metrics: [
        metric(`Load: navigation → map ready with all ${PARCELS.toLocaleString('en-US')} parcels, median of ${RUNS}`, med('total_ms'), 'ms', LOAD_TARGET),
        metric('Pan: frame interval p95 while dragging', panS.p95_ms, 'ms', FRAME_TARGET),
        metric('Pan: longest frame (includes the redraw after the drag)', longest(pan.frames_ms), 'ms'),
        metric('Zoom: frame interval p95 while wheel-zooming', zoomS.p95_ms, 'ms'),
        metric('Zoom: longest frame', longest(zoomed.frames_ms), 'ms'),
        metric('First load after service start (includes the esbuild bundle)', r1(cold.total_ms), 'ms'),
        metric('Parcel data transferred (gzip)', r1(median(runs.map((r) => r.data_bytes_transferred)) / 2 ** 20), 'MiB'),
        metric('Data route alone: GET /embed/data/parcels p50 (gzip)', dataLatency.p50_ms, 'ms'),
      ],
      tables: [{
        title: `Where the load time goes (median of ${RUNS}; ms since navigation start)`,
        columns: ['script running', 'data received', 'features read', 'first render (ready)', 'data bytes (gzip)', 'data bytes (JSON)'],
        rows: [[med('script_start'), med('data_received'), med('features_read'), med('first_render'), med('data_bytes_transferred'), med('data_bytes_decoded')]],
      }, {
        title: 'Every measured load',
        columns: ['run', 'ready ms', 'data received ms', 'features read ms', 'first render ms'],
        rows: runs.map((r, i) => [i + 1, r1(r.total_ms), r1(r.data_received), r1(r.features_read), r1(r.first_render)]),
      }, {
        title: 'Frame intervals (requestAnimationFrame; 16.7 ms is 60 frames a second)',
        columns: ['phase', 'frames', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'long animation frames (> 50 ms)', 'their durations ms'],
        rows: [
          ['pan (drag)', panS.count, panS.p50_ms, panS.p95_ms, panS.p99_ms, panS.max_ms, pan.long_frames_ms.length, pan.long_frames_ms.map(r1).join(', ') || '—'],
          ['zoom (wheel)', zoomS.count, zoomS.p50_ms, zoomS.p95_ms, zoomS.p99_ms, zoomS.max_ms, zoomed.long_frames_ms.length, zoomed.long_frames_ms.map(r1).join(', ') || '—'],
        ],
      }],
      notes: [
        'The browser is Chromium without a GPU (software rendering) on a 2-core virtual machine shared with other engineers; a desktop browser with a GPU draws faster.',
        `The data route answered in ${dataLatency.p50_ms} ms (p50 of 10, service CPU ${dataCpu.ours.service ?? 0} cores, other processes ${dataCpu.others} cores); the rest of the load is the browser fetching the page and its bundle, parsing ${r1(med('data_bytes_decoded') / 2 ** 20)} MiB of GeoJSON and drawing.`,
        'Pan frames stay short because a VectorImage layer moves an already drawn image while the map is dragged; the parcels are drawn again once, after the interaction ends: that frame is the longest one of each phase.',
      ],
      details: { parcels: PARCELS, farms: FARMS, crops: ids.length, cold, runs, pan, zoom: zoomed, data_route: { latency: dataLatency, cpu: dataCpu }, set: { polygons: set.polygons, points: set.points, vertices: set.vertices } },
    });
    process.stderr.write(`  load median ${med('total_ms')} ms, pan p95 ${panS.p95_ms} ms, zoom p95 ${zoomS.p95_ms} ms\n  wrote ${writeResult(result)}\n`);
  } finally {
    await browser.close();
    await svc.stop();
    removeDir(dir);
  }
}

await main();
