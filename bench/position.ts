// Position from a receiver through the mirror host (issue 31): the built host (dist/host.mjs) connected over TCP on
// 127.0.0.1 to the simulated receiver (test/helpers/nmea-sim.ts). Three measures: the host's CPU while a receiver
// sends at 10 Hz; the time from a cycle written to the host's socket to its 'position' event reaching a client (the
// host's share of "receiver to marker drawn"); and how long the host takes to answer a ping (hello every 10 ms)
// while a receiver sends at 100 Hz mixed with line noise and 10 MB lines.
import { parseArgs } from 'node:util';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { launchHost, type Host } from '../backend/launch.ts';
import { API_VERSION } from '../core/api-codes.ts';
import { cycleSentences, NmeaPlayer, simCycles } from '../test/helpers/nmea-sim.ts';
import { serveNmeaTcp } from '../test/helpers/nmea-sim-servers.ts';
import { ROOT } from './lib/paths.ts';
import { summarize, type LatencySummary } from './lib/stats.ts';
import { cpuWindow } from './lib/machine.ts';
import { metric, startResult, writeResult } from './lib/result.ts';

const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '30' }, hostile: { type: 'string', default: '10' } } });
const SECONDS = Number(args.seconds);
const HOSTILE_SECONDS = Number(args.hostile);
const HOST = join(ROOT, 'dist/host.mjs');
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

function buildHost(): void {
  const r = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0 || !existsSync(HOST)) throw new Error(`npm run build failed: ${r.stderr}`);
}

/** Part 1: 10 Hz for SECONDS: the host's CPU, and each cycle's time from the socket to the client's event. */
async function tenHertz(h: Host) {
  const player = new NmeaPlayer({ hz: 10, loop: true });
  const sim = await serveNmeaTcp(player);
  const sent = new Map<string, number>();
  player.onCycle((c) => { if (c.text) sent.set(new Date(c.time).toISOString(), performance.now()); });
  const latency: number[] = [];
  let events = 0;
  const off = h.client.on('position', (s) => {
    events++;
    const at = s.fix ? sent.get(s.fix.time) : undefined;
    if (at !== undefined) { latency.push(performance.now() - at); sent.delete(s.fix!.time); }
  });
  try {
    await h.api.positionConnect({ source: { kind: 'tcp', host: '127.0.0.1', port: sim.port } });
    while (sim.clients() < 1) await new Promise((r) => setTimeout(r, 20));
    player.start();
    await new Promise((r) => setTimeout(r, 3000)); // warm-up
    latency.length = 0;
    events = 0;
    const cpu = cpuWindow({ host: h.pid, bench: process.pid });
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const window = cpu.end();
    return { window, latency: summarize(latency), events, cycles: SECONDS * 10 };
  } finally {
    off();
    player.stop();
    await h.api.positionDisconnect({});
    await sim.close();
  }
}

/** Pings the host every 10 ms until `ms` have passed; each ping's round trip. */
async function pings(h: Host, ms: number): Promise<number[]> {
  const out: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const t0 = performance.now();
    await h.api.hello({ apiVersion: API_VERSION });
    out.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 10));
  }
  return out;
}

/** Part 2: a hostile receiver (100 Hz, noise, 10 MB lines) while the host is pinged. */
async function hostile(h: Host) {
  let give!: (s: Socket) => void;
  const got = new Promise<Socket>((r) => { give = r; });
  const server = createServer((s) => { s.on('error', () => {}); give(s); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  const idle = summarize(await pings(h, 2000));
  await h.api.positionConnect({ source: { kind: 'tcp', host: '127.0.0.1', port } });
  const s = await got;
  const rss0 = rssMb(h.pid);
  let peak = rss0;
  const walk = simCycles({ hz: 100 });
  let stop = false;
  let bytes = 0;
  const write = (d: string | Buffer) => new Promise<void>((r) => { bytes += d.length; if (s.write(d)) r(); else s.once('drain', () => r()); });
  const feed = (async () => {
    const t0 = performance.now();
    const big = Buffer.alloc(10 * 1024 * 1024, 'A');
    for (let i = 0; !stop; i++) {
      const c = walk[i % walk.length]!;
      await write(cycleSentences(c.point, c.time, 4).map((x) => `${x}\r\n`).join(''));
      if (i % 10 === 5) await write(randomBytes(64 * 1024));
      if (i % 200 === 100) await write(big);
      if (i % 20 === 0) peak = Math.max(peak, rssMb(h.pid));
      const due = t0 + (i + 1) * 10;
      await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
    }
  })();
  const cpu = cpuWindow({ host: h.pid, bench: process.pid });
  const busy = await pings(h, HOSTILE_SECONDS * 1000);
  const window = cpu.end();
  stop = true;
  await feed;
  const state = await h.api.positionState({});
  s.destroy();
  await new Promise((r) => server.close(r));
  await h.api.positionDisconnect({});
  return { idle, busy: summarize(busy), window, rss0, peak, mb: bytes / 2 ** 20, parsing: state.fix?.quality ?? 'none' };
}

async function main(): Promise<void> {
  const record = startResult('position', 'Position from a receiver through the mirror host: CPU at 10 Hz, socket to event, and answering a hostile receiver', 'npm run bench -- position');
  buildHost();
  const home = mkdtempSync(join(tmpdir(), 'furrow-bench-position-'));
  const h = await launchHost({ home, entry: HOST });
  try {
    await pings(h, 500);
    const t = await tenHertz(h);
    const x = await hostile(h);
    const lat = (label: string, l: LatencySummary): (string | number)[] => [label, l.count, l.p50_ms, l.p95_ms, l.p99_ms, l.max_ms];
    const result = record.finish({
      method: [
        'The host is the built `dist/host.mjs` (built by the run), started by backend/launch.ts as browser mode and the tests start it, with a fresh FURROW_HOME; this process is its client over the child-process channel and also the receiver, on 127.0.0.1.',
        `10 Hz: the simulated receiver (test/helpers/nmea-sim.ts: GGA, GSA, 3 × GSV, RMC, GST a cycle, RTK fixed, walking round a hectare) serves NMEA over TCP; the host connects to it (positionConnect). After 3 s of warm-up, ${SECONDS} s measured: the host's CPU from /proc/<pid>/stat (user + system, all its threads) over the window; and for each cycle, the time from its write to the socket to the client receiving the host's 'position' event carrying that cycle's fix (events are thinned to 20 a second: at 10 Hz every cycle is one).`,
        `Hostile receiver: a TCP server of this process the host connects to, sending ${HOSTILE_SECONDS} s of one cycle every 10 ms (100 Hz), 64 KiB of random bytes every 100 ms and a 10 MiB line with no end every 2 s (${Math.round(x.mb)} MiB in all), while a \`hello\` is sent every 10 ms and timed. Host RSS from /proc, sampled every 200 ms.`,
      ],
      metrics: [
        metric("Host CPU with a receiver at 10 Hz (a core's fraction)", Math.round(t.window.ours.host! * 10000) / 100, '% of a core', { op: '<', value: 2 }),
        metric("A cycle from the host's socket to the client's 'position' event, p95", t.latency.p95_ms, 'ms'),
        metric('Ping p99 while a receiver sends 100 Hz, noise and 10 MB lines', x.busy.p99_ms, 'ms', { op: '<', value: 50 }),
        metric('Ping p50 then', x.busy.p50_ms, 'ms'),
        metric('Host RSS growth over the hostile stream (peak above start)', Math.round((x.peak - x.rss0) * 10) / 10, 'MiB'),
      ],
      tables: [{
        title: 'Latencies',
        columns: ['What', 'samples', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
        rows: [lat("10 Hz: a cycle's write to its 'position' event at the client", t.latency), lat('ping (hello), idle', x.idle), lat('ping (hello), hostile receiver', x.busy)],
      }],
      notes: [
        `10 Hz: ${t.latency.count} of ${t.cycles} cycles matched to their event (${t.events} events). CPU over the window: the host ${t.window.ours.host}, this process ${t.window.ours.bench}, other processes ${t.window.others} cores.`,
        `Hostile: the host's CPU ${x.window.ours.host} cores; RSS ${Math.round(x.rss0)} MiB at the start, ${Math.round(x.peak)} MiB at its peak; the last fix afterwards: ${x.parsing}.`,
        "The marker drawn on the page is the page's share of the issue's \"receiver to marker\" target (renderer/features/position/).",
      ],
      details: { tenHertz: t, hostile: x },
    });
    process.stderr.write(`  host CPU at 10 Hz ${t.window.ours.host} cores, socket→event p95 ${t.latency.p95_ms} ms, hostile ping p99 ${x.busy.p99_ms} ms\n  wrote ${writeResult(result)}\n`);
  } finally {
    await h.close();
    rmSync(home, { recursive: true, force: true });
  }
}

await main();
