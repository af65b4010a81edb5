// Where the user stands, end to end (issue 31): "Position event from the receiver's socket to the marker drawn: p95 <
// 100 ms at 10 Hz". The simulated receiver (test/helpers/nmea-sim.ts) on 127.0.0.1 over TCP at 10 Hz, the app in
// browser mode connected to it (the host parses, thins, sends the `position` event over the page's WebSocket), the
// page in headless Chromium drawing the marker. The simulator stamps when it sent each cycle; the page says, on the
// map's element, which fix its position layer drew and when (features/position/usePositionLayer.ts, after the
// layer's postrender): the latency is the difference, both clocks this machine's.
import { loadavg } from 'node:os';
import { chromium } from 'playwright-core';
import { MILLION_ACCOUNT, millionMirror } from './lib/million-mirror.ts';
import { startBrowserApp } from './lib/browser-app.ts';
import { CANVAS_CHROMIUM_ARGS } from './lib/map-probe.ts';
import { r1, summarize } from './lib/stats.ts';
import { cpuWindow } from './lib/machine.ts';
import { metric, startResult, writeResult } from './lib/result.ts';
import { NmeaPlayer } from '../test/helpers/nmea-sim.ts';
import { serveNmeaTcp } from '../test/helpers/nmea-sim-servers.ts';

const arg = (name: string, dflt: number) => { const i = process.argv.indexOf(`--${name}`); return i > 0 ? Number(process.argv[i + 1]) : dflt; };
const HZ = arg('hz', 10);
const SECONDS = arg('seconds', 30);
const PARCELS = 2_000;

async function main(): Promise<void> {
  const record = startResult('position-marker', `Position: the receiver's socket to the marker drawn, at ${HZ} Hz`, 'npm run bench -- position-marker');
  const load = r1(loadavg()[0]!);
  const player = new NmeaPlayer({ hz: HZ, loop: true });
  // When each cycle left for the socket, by the receiver's UTC time of the fix (what Fix.time carries).
  const sent = new Map<number, number>();
  player.onCycle((c) => { if (!c.silent) sent.set(c.time, Date.now()); });
  const server = await serveNmeaTcp(player.start());
  const mm = millionMirror(PARCELS);
  const app = await startBrowserApp(mm.file, MILLION_ACCOUNT);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CANVAS_CHROMIUM_ARGS });
  const drawn: [string, number][] = [];
  let window: ReturnType<ReturnType<typeof cpuWindow>['end']> | undefined;
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.exposeFunction('__drawn', (time: string, at: number) => { drawn.push([time, at]); });
    await page.goto(app.url);
    await page.locator('.map').waitFor();
    await page.evaluate(() => {
      const map = document.querySelector('.map')!;
      new MutationObserver(() => {
        const t = map.getAttribute('data-position-time');
        const at = map.getAttribute('data-position-drawn');
        if (t && at) void (window as unknown as { __drawn(t: string, at: number): Promise<void> }).__drawn(t, Number(at));
      }).observe(map, { attributes: true, attributeFilter: ['data-position-drawn'] });
    });
    await app.host.api.positionConnect({ source: { kind: 'tcp', host: '127.0.0.1', port: server.port } });
    // A few seconds to settle (the first fixes move the view to the position), then measured.
    await new Promise((r) => setTimeout(r, 3000));
    drawn.length = 0;
    const cpu = cpuWindow({ host: app.host.pid });
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    window = cpu.end();
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  } finally {
    await browser.close();
    await app.close();
    player.stop();
    await server.close();
  }
  const latencies = drawn.map(([time, at]) => { const s = sent.get(Date.parse(time)); return s === undefined ? NaN : at - s; }).filter(Number.isFinite);
  const s = summarize(latencies);
  const expected = SECONDS * HZ;
  const result = record.finish({
    method: [
      `The simulated receiver (test/helpers/nmea-sim.ts: GGA, GSA, GSV, RMC and GST each cycle) served over TCP on 127.0.0.1 at ${HZ} Hz, looping its walk round a hectare; the app as in browser mode (bench/lib/browser-app.ts, a ${PARCELS.toLocaleString('en-US')}-parcel mirror) connected to it through the host's API; the page in headless Chromium (canvas path), its position layer following.`,
      `Latency per fix: from the simulator's own listener stamping the cycle as it is written to the socket (Date.now()) to the page's position layer's postrender after it drew that fix (the map element's data-position-drawn, Date.now() in the page), matched by the fix's receiver time. Both clocks are this machine's. ${SECONDS} s measured after 3 s of settling.`,
    ],
    metrics: [
      metric(`Receiver's socket to marker drawn, p95 at ${HZ} Hz`, s.p95_ms, 'ms', { op: '<', value: 100 }),
      metric('Receiver\'s socket to marker drawn, p50', s.p50_ms, 'ms'),
      metric('Receiver\'s socket to marker drawn, max', s.max_ms, 'ms'),
      metric(`Fixes drawn of the ${expected} sent while measured`, latencies.length, 'fixes'),
      metric(`Host CPU at ${HZ} Hz with a page connected`, r1((window!.ours.host ?? 0) * 100), '% of a core'),
    ],
    tables: [],
    notes: [`Load average at the start ${load}. A fix not drawn is one whose frame came after the next fix (the page draws the latest): counted, not timed.`],
    details: { summary: s },
  });
  process.stderr.write(`  p95 ${s.p95_ms} ms, p50 ${s.p50_ms} ms over ${latencies.length} fixes; wrote ${writeResult(result)}\n`);
}

await main();
