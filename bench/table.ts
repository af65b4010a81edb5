// The attribute table at scale (issue 33): the app in browser mode (the real host, the built renderer) on the
// 100,000-parcel mirror of bench/lib/million-mirror.ts, in headless Chromium, the table opened on the whole account.
// Measured in the page: frame times while the table is scrolled with the wheel and while its scrollbar is dragged
// (jumps across the 100,000 rows), how long the rows of a jump take to be shown (the host's range read included), and
// the renderer's JavaScript heap and how many rows are in the page.
import { loadavg } from 'node:os';
import { chromium, type Browser, type Page } from 'playwright-core';
import { MILLION_ACCOUNT, millionMirror, wholeFarms } from './lib/million-mirror.ts';
import { startBrowserApp } from './lib/browser-app.ts';
import { CANVAS_CHROMIUM_ARGS, mapArgs } from './lib/map-probe.ts';
import { median, r1, summarize } from './lib/stats.ts';
import { cpuWindow } from './lib/machine.ts';
import { metric, startResult, writeResult } from './lib/result.ts';

const args = mapArgs({ parcels: 100_000, runs: 3 });
const PARCELS = wholeFarms(args.parcels);
const RUNS = args.runs;
/** Wheel steps of 400 px (about 15 rows each) per run, and jumps of the scrollbar. */
const WHEELS = 150;
const JUMPS = 20;
const ROW_H = 26;
const fmt = (n: number) => n.toLocaleString('en-US');

interface Run { load: number; wheel: number[]; drag: number[]; jumpToRows: number[]; rowsInPage: number; heapMb: number; openMs: number }

/** Frame deltas (requestAnimationFrame) recorded between start() and stop(). */
const FRAMES = `(() => {
  const p = { rec: false, frames: [], last: 0 };
  window.__frames = p;
  const tick = (t) => { if (p.rec && p.last) p.frames.push(t - p.last); p.last = t; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
})();`;
const start = (page: Page) => page.evaluate(() => { const p = (window as unknown as { __frames: { rec: boolean; frames: number[]; last: number } }).__frames; p.frames = []; p.last = 0; p.rec = true; });
const stop = (page: Page) => page.evaluate(() => { const p = (window as unknown as { __frames: { rec: boolean; frames: number[] } }).__frames; p.rec = false; return p.frames.slice(); });
/** Every row in view shows its parcel (none still "…"). */
const rowsShown = (page: Page) => page.waitForFunction(() => {
  const g = document.querySelector('.table-scroll');
  if (!g) return false;
  const rows = [...g.querySelectorAll('.trow')].filter((r) => {
    const top = (r as HTMLElement).offsetTop - g.scrollTop;
    return top >= 52 && top < g.clientHeight;
  });
  return rows.length > 0 && rows.every((r) => r.querySelector('[role=gridcell]')?.textContent !== '…');
}, undefined, { timeout: 30_000, polling: 'raf' });

async function oneRun(url: string, browser: Browser): Promise<Run> {
  const load = r1(loadavg()[0]!);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript(FRAMES);
  await page.goto(url);
  await page.waitForFunction(() => performance.getEntriesByName('furrow:parcels-drawn').length > 0, undefined, { timeout: 60_000 });
  // The table of the whole account: K, then its rows of the account.
  const t0 = performance.now();
  await page.locator('.top h1').click();
  await page.keyboard.press('k');
  await page.locator('.parcel-table select').first().selectOption('account');
  await page.waitForFunction((n) => document.querySelector('.table-count')?.textContent === `${n} rows`, fmt(PARCELS), { timeout: 60_000 });
  await rowsShown(page);
  const openMs = performance.now() - t0;
  const grid = (await page.locator('.table-scroll').boundingBox())!;
  await page.mouse.move(grid.x + grid.width / 2, grid.y + grid.height / 2);

  // The wheel: 400 px a step, a frame's pause between steps, as a hand on a mouse wheel goes.
  await start(page);
  for (let i = 0; i < WHEELS; i++) {
    await page.mouse.wheel(0, 400);
    await page.waitForTimeout(16);
  }
  const wheel = await stop(page);
  await rowsShown(page);

  // The scrollbar dragged: jumps to places spread over the 100,000 rows, each until its rows are shown.
  const drag: number[] = [];
  const jumpToRows: number[] = [];
  for (let i = 0; i < JUMPS; i++) {
    const row = Math.floor(((i * 7919) % JUMPS) / JUMPS * (PARCELS - 40));
    await start(page);
    const j0 = performance.now();
    await page.locator('.table-scroll').evaluate((el, y) => { el.scrollTop = y; }, row * ROW_H);
    await rowsShown(page);
    jumpToRows.push(performance.now() - j0);
    drag.push(...await stop(page));
  }
  const rowsInPage = await page.locator('.trow').count();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const heapMb = r1((metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? NaN) / 2 ** 20);
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  await context.close();
  return { load, wheel, drag, jumpToRows, rowsInPage, heapMb, openMs };
}

async function main(): Promise<void> {
  const record = startResult('table', 'The attribute table at 100,000 rows: scrolling frames, rows after a jump, renderer memory', 'npm run bench -- table');
  const mm = millionMirror(PARCELS);
  const app = await startBrowserApp(mm.file, MILLION_ACCOUNT);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CANVAS_CHROMIUM_ARGS });
  const runs: Run[] = [];
  const cpu = cpuWindow({ bench: process.pid, host: app.host.pid });
  let window: ReturnType<typeof cpu.end> | undefined;
  try {
    for (let i = 0; i < RUNS; i++) {
      const r = await oneRun(app.url, browser);
      runs.push(r);
      process.stderr.write(`  run ${i + 1}: load ${r.load}, wheel p95 ${summarize(r.wheel).p95_ms} ms, drag p95 ${summarize(r.drag).p95_ms} ms, jump → rows p50 ${summarize(r.jumpToRows).p50_ms} ms\n`);
    }
    window = cpu.end();
  } finally {
    await browser.close();
    await app.close();
  }
  const med = (f: (r: Run) => number) => r1(median(runs.map(f)));
  const p95 = (xs: number[]) => summarize(xs).p95_ms;
  const scrolling = (r: Run) => [...r.wheel, ...r.drag];
  const spread = (f: (r: Run) => number) => runs.map((r) => fmt(r1(f(r)))).join(' / ');
  const pooled = (f: (r: Run) => number[]) => summarize(runs.flatMap(f));
  const lat = (label: string, l: ReturnType<typeof summarize>) => [label, l.count, l.p50_ms, l.p95_ms, l.max_ms];
  const result = record.finish({
    method: [
      `The app as in browser mode: the mirror host (backend/host.ts, from source) serving the built renderer and the API over its WebSocket, on a copy of the ${fmt(PARCELS)}-parcel mirror of bench/lib/million-mirror.ts (${mm.meta.farms} farms${mm.reused ? ', cached' : ', built by this run'}); no service. Headless Chromium (/usr/bin/chromium through playwright-core, 1280×800, WebGL off as in bench/map.ts). ${RUNS} runs, each a new browser context; figures are the median of the runs, the spread each run's value.`,
      `The table opened with K and switched to the whole account (${fmt(PARCELS)} rows, sorted by name): the host answers each block of 100 rows (renderer/features/table/useTableRows.ts) from SQL (db/table.ts), the page keeps only the rows in view and 8 either side (TableGrid.tsx).`,
      `Frames: requestAnimationFrame deltas while scrolling — ${WHEELS} wheel steps of 400 px with 16 ms between them, then ${JUMPS} jumps of the scrollbar (scrollTop set) to rows spread over the table, each until every row in view shows its parcel. "Jump → rows shown" is from the jump to that moment: the range read by the host (a sort of ${fmt(PARCELS)} names) included.`,
    ],
    metrics: [
      metric(`Scrolling frame time p95, ${fmt(PARCELS)} rows (wheel and scrollbar, median of runs)`, med((r) => p95(scrolling(r))), 'ms', { op: '<', value: 33 }),
      metric('Wheel scrolling frame time p95', med((r) => p95(r.wheel)), 'ms'),
      metric('Scrollbar jumps frame time p95', med((r) => p95(r.drag)), 'ms'),
      metric('Jump → rows shown, p50', med((r) => summarize(r.jumpToRows).p50_ms), 'ms'),
      metric('Table opened on the whole account → first rows shown', med((r) => r.openMs), 'ms'),
      metric('Rows in the page at the end', med((r) => r.rowsInPage), 'rows'),
      metric('Renderer JS heap used at the end', med((r) => r.heapMb), 'MB'),
    ],
    tables: [{
      title: `All ${RUNS} runs pooled (ms)`,
      columns: ['What', 'samples', 'p50', 'p95', 'max'],
      rows: [lat('Wheel scrolling frames', pooled((r) => r.wheel)), lat('Scrollbar jump frames', pooled((r) => r.drag)), lat('Jump → rows shown', pooled((r) => r.jumpToRows))],
    }],
    notes: [
      `Spread over the runs — scrolling frame p95 ms: ${spread((r) => p95(scrolling(r)))}; jump → rows p50 ms: ${spread((r) => summarize(r.jumpToRows).p50_ms)}.`,
      `Load average (1 min) at each run's start: ${runs.map((r) => r.load).join(', ')} on 2 cores shared with other work; CPU over the runs: the host ${window!.ours.host}, this process ${window!.ours.bench}, everything else (Chromium and other agents) ${window!.others} cores.`,
    ],
    details: { runs: runs.map(({ wheel, drag, ...r }) => ({ ...r, wheelFrames: wheel.length, dragFrames: drag.length })) },
  });
  process.stderr.write(`  wrote ${writeResult(result)}\n`);
}

await main();
