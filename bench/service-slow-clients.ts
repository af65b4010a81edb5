// 2,000 slow clients against the service (issue 28): each opens a connection from one of 20 loopback addresses, sends
// the headers of an authenticated 1 MiB bulk create and trickles its body a few bytes at a time. Measured: the
// service's memory while they hang on, a normal client's latency meanwhile against the same client on an idle
// service (interleaved pairs), and how the slow ones end (503 past the connection bounds, 408 at REQUEST_TIMEOUT_MS).
import { connect, type Socket } from 'node:net';
import { parseArgs } from 'node:util';
import { pool, runLoad } from './lib/load.ts';
import { createFarms, createTenant, removeDir, startService, tempDataDir } from './lib/service.ts';
import { procMemoryKb } from './lib/machine.ts';
import { r1, summarize } from './lib/stats.ts';
import { describePairs, interleaved } from './lib/pairs.ts';
import { metric, startResult, writeResult } from './lib/result.ts';

const { values: args } = parseArgs({
  options: {
    clients: { type: 'string', default: '2000' },
    addresses: { type: 'string', default: '20' },
    pairs: { type: 'string', default: '3' },
    requests: { type: 'string', default: '1000' },
    /** The service's REQUEST_TIMEOUT_MS for the run: short enough that each pair sees the slow clients cut. */
    'request-timeout': { type: 'string', default: '15000' },
  },
});
const CLIENTS = Number(args.clients);
const ADDRESSES = Number(args.addresses);
const PAIRS = Number(args.pairs);
const REQUESTS = Number(args.requests);
const REQUEST_TIMEOUT_MS = Number(args['request-timeout']);
const BODY_BYTES = 1024 * 1024;
const address = (i: number) => `127.0.${2 + Math.floor(i / 250)}.${1 + (i % 250)}`;

interface Slow { socket: Socket; first: () => string; closed: Promise<number> }
interface Ended { answered408: number; answered503: number; otherwise: number; lastClosedS: number }

/** Opens the slow clients, round robin over the addresses; each trickles 16 bytes every 2 s until the service closes it. */
async function openSlow(port: number, headers: Record<string, string>): Promise<{ slow: Slow[]; stop: () => void }> {
  const head = `POST /api/parcels/ HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${BODY_BYTES}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;
  const slow: Slow[] = [];
  for (let i = 0; i < CLIENTS; i++) {
    const socket = connect({ port, host: '127.0.0.1', localAddress: address(i % ADDRESSES) });
    let first = '';
    socket.on('data', (d: Buffer) => { if (first.length < 200) first += d.toString('latin1'); });
    socket.on('error', () => undefined);
    const closed = new Promise<number>((r) => socket.once('close', () => r(performance.now())));
    socket.once('connect', () => socket.write(`${head}{"farm":{"id":1},"parcels":[`));
    slow.push({ socket, first: () => first, closed });
    // A few at a time, as clients arrive: the kernel's accept queue is not the thing measured.
    if (i % 100 === 99) await new Promise((r) => setTimeout(r, 20));
  }
  const timer = setInterval(() => {
    for (const s of slow) if (!s.socket.destroyed && s.socket.writable) s.socket.write(' '.repeat(16));
  }, 2000);
  return { slow, stop: () => clearInterval(timer) };
}

async function ended(slow: Slow[], since: number): Promise<Ended> {
  const times = await Promise.all(slow.map((s) => s.closed));
  const status = (s: Slow) => /^HTTP\/1\.1 (\d{3})/.exec(s.first())?.[1];
  return {
    answered408: slow.filter((s) => status(s) === '408').length,
    answered503: slow.filter((s) => status(s) === '503').length,
    otherwise: slow.filter((s) => status(s) !== '408' && status(s) !== '503').length,
    lastClosedS: r1((Math.max(...times) - since) / 1000),
  };
}

async function main(): Promise<void> {
  const record = startResult('service-slow-clients', `Slow clients: ${CLIENTS.toLocaleString('en-US')} connections trickling bodies in, against a normal client`, 'npm run bench -- service-slow-clients');
  const dir = tempDataDir('slow');
  const svc = await startService(dir, { env: { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) } });
  const port = Number(new URL(svc.url).port);
  const client = pool(svc.url, 1);
  try {
    const tenant = await createTenant(dir, client);
    await createFarms(client, tenant, 5);
    const get = { method: 'GET' as const, path: '/api/farms/', headers: tenant.headers };
    await runLoad(client, 500, () => get, 1, 200);
    const idleRssMb = procMemoryKb(svc.pid).rss / 1024;
    const memory: { before_mb: number; peak_mb: number; after_mb: number }[] = [];
    const endings: Ended[] = [];
    const measure = async () => {
      const run = await runLoad(client, REQUESTS, () => get, 1, 200);
      if (run.first_error) throw new Error(`the normal client failed: ${run.first_error}`);
      return { value: summarize(run.latencies).p99_ms, summary: summarize(run.latencies) };
    };
    const result = await interleaved(PAIRS, async () => undefined,
      async () => {
        const before = procMemoryKb(svc.pid).rss / 1024;
        let peak = before;
        const sampler = setInterval(() => { peak = Math.max(peak, procMemoryKb(svc.pid).rss / 1024); }, 100);
        const t0 = performance.now();
        const { slow, stop } = await openSlow(port, tenant.headers);
        await new Promise((r) => setTimeout(r, 2000));
        const m = await measure();
        const end = await ended(slow, t0);
        stop();
        clearInterval(sampler);
        peak = Math.max(peak, procMemoryKb(svc.pid).rss / 1024);
        await new Promise((r) => setTimeout(r, 2000));
        memory.push({ before_mb: r1(before), peak_mb: r1(peak), after_mb: r1(procMemoryKb(svc.pid).rss / 1024) });
        endings.push(end);
        console.log(`  slow: p99 ${m.value} ms; RSS ${r1(before)} → peak ${r1(peak)} MB; ${end.answered503} turned away (503), ${end.answered408} cut (408), ${end.otherwise} otherwise, last closed at ${end.lastClosedS} s`);
        return m;
      },
      async () => {
        const m = await measure();
        console.log(`  idle: p99 ${m.value} ms`);
        return m;
      });
    const peakGrowth = Math.max(...memory.map((m) => m.peak_mb - m.before_mb));
    const lastClosed = Math.max(...endings.map((e) => e.lastClosedS));
    const out = record.finish({
      method: [
        `The service as a child process (defaults, but REQUEST_TIMEOUT_MS=${REQUEST_TIMEOUT_MS} so that each pair sees the cut) with one organization, one account and 5 farms.`,
        `Slow side: ${CLIENTS.toLocaleString('en-US')} raw connections, round robin from ${ADDRESSES} loopback addresses (127.0.2.x), each sending the headers of an authenticated POST /api/parcels/ with Content-Length ${BODY_BYTES} and then 16 bytes of body every 2 s; 2 s after they opened, the normal client sends ${REQUESTS} GET /api/farms/ one after another on its keep-alive connection from 127.0.0.1, opened before the slow clients. The service's RSS is sampled every 100 ms from /proc.`,
        `Idle side: the same ${REQUESTS} requests with no slow client. Pairs interleaved (slow first in odd pairs); the ratio is the slow side's p99 ÷ the idle side's, median of ${PAIRS} pairs with its spread.`,
      ],
      metrics: [
        metric(`Normal client's p99 with ${CLIENTS.toLocaleString('en-US')} slow clients ÷ idle (median of ${PAIRS} pairs)`, result.stats.median, '×', { op: '<=', value: 2 }),
        metric('Service RSS growth while the slow clients hang on (worst pair)', r1(peakGrowth), 'MB', { op: '<=', value: 150 }),
        metric('Service RSS idle, before the first pair', r1(idleRssMb), 'MB'),
        metric(`Last slow client closed by the service, after the first opened (REQUEST_TIMEOUT_MS ${REQUEST_TIMEOUT_MS / 1000} s)`, lastClosed, 's', { op: '<=', value: REQUEST_TIMEOUT_MS / 1000 + 5 }),
      ],
      tables: [
        { title: 'Pairs', columns: ['pair', 'p99 slow (ms)', 'p99 idle (ms)', 'ratio', 'RSS before (MB)', 'RSS peak (MB)', 'RSS after (MB)', 'turned away 503', 'cut 408', 'otherwise'],
          rows: result.a.map((a, i) => [i + 1, a.value, result.b[i]!.value, result.stats.ratios[i]!, memory[i]!.before_mb, memory[i]!.peak_mb, memory[i]!.after_mb, endings[i]!.answered503, endings[i]!.answered408, endings[i]!.otherwise]) },
      ],
      notes: [
        `The ratio: ${describePairs(result.stats)}.`,
        'Of the slow clients, those past MAX_CONNECTIONS (1,000) or MAX_CONNECTIONS_PER_ADDRESS (100) are answered 503 with Retry-After at once; the rest are cut with 408 at REQUEST_TIMEOUT_MS. A connection opened meanwhile by a new client finds the bound full too (503 until the slow ones are cut): what an established client keeps is its keep-alive connection. Behind a load balancer, the balancer bounds clients per address instead (docs/deploy.md).',
      ],
      details: { slow: result.a.map((r) => r.summary), idle: result.b.map((r) => r.summary), memory, endings },
    });
    console.log(`  p99 ratio ${describePairs(result.stats)}; RSS growth ${r1(peakGrowth)} MB`);
    console.log(`  wrote ${writeResult(out)}`);
  } finally {
    await client.close();
    await svc.stop();
    removeDir(dir);
  }
}

await main();
