// Preparing an area offline (issue 30) as the app does it: the mirror host (the built dist/host.mjs, a whole process
// from spawn to exit) downloading 10,000 tiles of an XYZ layer from a tile server on 127.0.0.1 into its MBTiles file
// (offlineDownload: the journaled .part, the batched commits, the checks, the fsync and the rename, the layer set),
// against a bare loop — also a whole process — fetching the same tiles from the same server at the same concurrency
// with the same HTTP client (undici's request) and keeping them alike: in an MBTiles file, fsynced at the end (like
// with like: the same work done, the same durability). The ratio is what the host adds: its start-up, opening the
// mirror, reading the layer, the download's journal, checks, thread and progress, completing the file. A few pairs
// against the same loop keeping nothing are reported too (no target): what keeping the tiles costs at all.
//
// The tile server runs in a process of its own; with taskset, on CPU 0 and each client on CPU 1. The target is judged
// on pairs where it answers at once: there the host's own costs are the largest share of its time (a slower server
// hides them behind the wait). Then a few pairs where it answers each tile after DELAY ms (10 by default: a tile CDN's
// node nearby), reported without a target.
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Mirror } from '../db/mirror.ts';
import { API, API_EVENTS, API_VERSION } from '../core/api.ts';
import { createClient } from '../core/rpc.ts';
import { HOST_SECRETS, type HostSecrets } from '../core/host-protocol.ts';
import { childPort } from '../backend/node-ports.ts';
import { latToTileY, lonToTileX, MERCATOR_MAX_LAT, tilesOf } from '../core/tiles/tile-math.ts';
import { worldLayer } from '../core/layers/layer-rules.ts';
import { tileCount } from '../backend/offline-areas.test-helpers.ts';
import { COMMIT_MS } from '../backend/offline-job.ts';
import { canPin, onCpus, removeDir, startNode, tempDataDir, type Child } from './lib/service.ts';
import { ROOT } from './lib/paths.ts';
import { childrenCpuSeconds, procCpuSeconds } from './lib/machine.ts';
import { median, r1, r3 } from './lib/stats.ts';
import { describePairs, interleaved } from './lib/pairs.ts';
import { metric, startResult, writeResult, type Table } from './lib/result.ts';

const { values: args } = parseArgs({
  options: {
    /** Tiles on a side of the square area at zoom 16: 100 makes 10,000 tiles. */
    side: { type: 'string', default: '100' },
    /** Pairs against a server that answers at once: those with the target. */
    pairs: { type: 'string', default: '7' },
    /** Pairs against a server answering each tile after `delay` ms (no target). */
    'delayed-pairs': { type: 'string', default: '3' },
    /** Pairs against a bare loop that keeps nothing (no target). */
    'nothing-pairs': { type: 'string', default: '3' },
    delay: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '4' },
  },
});
const SIDE = Number(args.side);
const PAIRS = Number(args.pairs);
const DELAYED_PAIRS = Number(args['delayed-pairs']);
const NOTHING_PAIRS = Number(args['nothing-pairs']);
const DELAY_MS = Number(args.delay);
const CONCURRENCY = Number(args.concurrency);
const ZOOM = 16;
const PIN = canPin();
const SERVER_CPU = PIN ? '0' : undefined;
const CLIENT_CPU = PIN ? '1' : undefined;
const HOST = resolve(ROOT, 'dist/host.mjs');
const BARE = resolve(ROOT, 'bench/lib/bare-tiles.mjs');

// A square of SIDE × SIDE tiles at zoom 16 over farmland near Bernburg (Saxony-Anhalt), its edges just inside the
// tiles' own so that exactly those tiles cover it.
const x0 = Math.floor(lonToTileX(11.7, ZOOM));
const y0 = Math.floor(latToTileY(51.8, ZOOM));
const lonOf = (x: number) => (x / 2 ** ZOOM) * 360 - 180;
const latOf = (y: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / 2 ** ZOOM))) * 180) / Math.PI;
const eps = 1e-7;
const bbox: [number, number, number, number] = [lonOf(x0) + eps, latOf(y0 + SIDE) + eps, lonOf(x0 + SIDE) - eps, Math.min(MERCATOR_MAX_LAT, latOf(y0)) - eps];
const tiles = [...tilesOf([bbox], ZOOM, ZOOM)];
const TILES = tiles.length;
if (TILES !== SIDE * SIDE) throw new Error(`the area is ${TILES} tiles, not ${SIDE * SIDE}`);

interface Fixture { home: string; tilesFile: string; server: Child }
interface Run { value: number; cpu_s: number }

/** Not timed: a home whose mirror keeps the layer (as the Layers panel saves it), and the bare loop's tile list. */
function prepare(server: Child): Promise<Fixture> {
  const home = tempDataDir('offline-area');
  const m = Mirror.open(join(home, 'mirror.db'));
  try {
    m.write.setMapLayers(JSON.stringify([worldLayer(), { id: 'bench', name: 'Bench tiles', visible: true, opacity: 1, source: { kind: 'xyz', url: `${server.url}/xyz/{z}/{x}/{y}.png` } }]));
  } finally {
    m.close();
  }
  const tilesFile = join(home, 'tiles.txt');
  writeFileSync(tilesFile, `${tiles.map((t) => `${t.z}/${t.x}/${t.y}`).join('\n')}\n`);
  return Promise.resolve({ home, tilesFile, server });
}

/** Starts a whole process timed from spawn to exit, with its CPU time once reaped. */
async function timed(body: () => Promise<void>): Promise<Run> {
  // What the fixture wrote is on disk before the clock starts: the kernel's flusher does not write it mid-run.
  spawnSync('sync');
  const cpu0 = childrenCpuSeconds();
  const t0 = performance.now();
  await body();
  return { value: r1(performance.now() - t0), cpu_s: r3(childrenCpuSeconds() - cpu0) };
}

/** Where each host run's time went: spawn to hello, the tiles fetched and written, the file completed, the exit. */
const phases: { delay: number; start: number; fetch: number; finish: number; exit: number }[] = [];
let delayNow = 0;

/** The host: spawned, its secrets handed over, the area downloaded, the channel closed, the process gone. */
function hostSide(f: Fixture): Promise<Run> {
  return timed(async () => {
    const [command, argv] = onCpus(CLIENT_CPU, [HOST]);
    const child = spawn(command, argv, {
      cwd: ROOT, env: { ...process.env, FURROW_HOME: f.home, FURROW_OFFLINE_CONCURRENCY: String(CONCURRENCY) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced',
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.send({ type: HOST_SECRETS } satisfies HostSecrets);
    const client = createClient(API, childPort(child), API_EVENTS);
    const t0 = performance.now();
    await client.api.hello({ apiVersion: API_VERSION });
    const t1 = performance.now();
    let fetched = t1;
    const r = await client.api.offlineDownload({ layer: 'bench', area: { kind: 'box', bbox }, minZoom: ZOOM, maxZoom: ZOOM }, {
      onProgress: (p) => { if (p.done === p.total) fetched = performance.now(); },
    });
    const t2 = performance.now();
    client.close();
    child.disconnect();
    await exited;
    phases.push({ delay: delayNow, start: r1(t1 - t0), fetch: r1(fetched - t1), finish: r1(t2 - fetched), exit: r1(performance.now() - t2) });
    const file = join(f.home, 'layers', `${r.offline?.file}.mbtiles`);
    if (!r.offline || r.done !== TILES || tileCount(file) !== TILES) throw new Error(`the host kept ${r.offline ? tileCount(file) : 0} of ${TILES} tiles`);
  });
}

/** The bare loop; when `keep`, its tiles in an MBTiles file that must hold them all. */
const bareSide = (keep: boolean) => (f: Fixture): Promise<Run> => {
  const out = join(f.home, 'bare.mbtiles');
  return timed(async () => {
    const [command, argv] = onCpus(CLIENT_CPU, [BARE, `${f.server.url}/xyz/{z}/{x}/{y}.png`, f.tilesFile, String(CONCURRENCY), ...(keep ? [out] : [])]);
    const child = spawn(command, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let said = '';
    child.stdout!.on('data', (d: Buffer) => { said += d.toString(); });
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    if (code !== 0 || !said.startsWith(`${TILES} tiles`)) throw new Error(`bare loop exited ${code}: ${said}`);
  }).then((r) => {
    if (keep && tileCount(out) !== TILES) throw new Error(`the bare loop kept ${tileCount(out)} of ${TILES} tiles`);
    return r;
  });
};

const record = startResult('offline-area', `Preparing an area offline: ${TILES.toLocaleString('en-US')} tiles from a loopback tile server, the host against a bare download loop, whole processes`, 'npm run bench -- offline-area');
const { ensureBuilt } = await import('../scripts/build.mjs');
await ensureBuilt();

/** `pairs` pairs against a tile server answering after `delay` ms, the server's CPU over them, and its tiles' sizes. */
async function pairsAt(delay: number, pairs: number, keep = true) {
  delayNow = delay;
  const server = await startNode('bench/lib/tile-server-main.ts', [], { DELAY_MS: String(delay) }, [], SERVER_CPU);
  try {
    const sizes = (/tiles of ([\d, ]+) bytes/.exec(server.log())?.[1] ?? '').split(', ').map(Number).filter((n) => n > 0);
    const cpu0 = procCpuSeconds(server.pid);
    const result = await interleaved(pairs, () => prepare(server), hostSide, bareSide(keep),
      (side, pair, r) => process.stderr.write(`  ${delay} ms pair ${pair + 1} ${side === 'a' ? 'host' : 'bare loop'}: ${r.value} ms, ${r.cpu_s} s CPU\n`),
      (f) => removeDir(f.home));
    return { ...result, serverCpu: r3(procCpuSeconds(server.pid) - cpu0), tileBytes: sizes.length ? Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length) : null };
  } finally {
    await server.stop();
  }
}

const zero = await pairsAt(0, PAIRS);
const nothing = NOTHING_PAIRS > 0 ? await pairsAt(0, NOTHING_PAIRS, false) : null;
const delayed = DELAYED_PAIRS > 0 ? await pairsAt(DELAY_MS, DELAYED_PAIRS) : null;
type Pairs = typeof zero;
const s = zero.stats;
const med = (r: Pairs, side: 'a' | 'b', k: 'value' | 'cpu_s') => median(r[side].map((x) => x[k]));
const table = (title: string, r: Pairs): Table => ({
  title, columns: ['pair', 'first', 'host ms', 'bare loop ms', 'ratio', 'host CPU s', 'bare CPU s'],
  rows: r.a.map((a, i) => [i + 1, i % 2 === 0 ? 'host' : 'bare', a.value, r.b[i]!.value, r.stats.ratios[i]!, a.cpu_s, r.b[i]!.cpu_s]),
});
const kb = zero.tileBytes ? (zero.tileBytes / 1000).toFixed(1) : '?';
const out = record.finish({
  method: [
    `The area: ${SIDE} × ${SIDE} tiles at zoom ${ZOOM} (${TILES.toLocaleString('en-US')} tiles), served by test/helpers/tile-server.ts in a process of its own (bench/lib/tile-server-main.ts) as 16 real PNGs of noise of ${kb} KB on average (${zero.tileBytes ? ((TILES * zero.tileBytes) / 1e6).toFixed(0) : '?'} MB in all, as the server reports them), chosen by the tile's place.`,
    `The tile server answers each tile at once in the ${PAIRS} pairs with the target (the host's own costs are then the largest share of its time), and after ${DELAY_MS} ms in ${DELAYED_PAIRS} further pairs reported without a target (a tile CDN's node nearby; OpenStreetMap's and national services' tiles take tens of milliseconds).`,
    `Host side: the built mirror host (dist/host.mjs, as the app runs it) spawned with FURROW_HOME holding the layer (saved untimed), its secrets handed over its IPC channel, \`hello\`, \`offlineDownload\` of the area at zoom ${ZOOM} with FURROW_OFFLINE_CONCURRENCY=${CONCURRENCY}, the channel closed and the process waited for; then the MBTiles file must hold every tile. Timed from spawn to exit. Inside: the layer read from the mirror, a .part MBTiles file created with its journal; each tile fetched with undici's request (backend/tile-fetcher.ts: its address checked against the layers' rules, the status read, the body read whole and checked to be an image), the tiles that arrived within ${COMMIT_MS} ms committed in one SQLite transaction on a thread of their own (backend/offline-writer.ts; one batch at a time, the next gathering meanwhile; rollback journal, synchronous=OFF: a killed process loses at most that batch and the requests in flight, a resume fetches only those), the file fdatasync'ed every 16 MB, progress sent to the caller at most every 200 ms; at the end the count checked, the metadata written, the journal removed, the file fsynced, the layer saved in the mirror (its own transaction), the file renamed and its folder fsynced.`,
    `Bare side: \`node bench/lib/bare-tiles.mjs\`, the same tiles (their list written untimed) fetched ${CONCURRENCY} at a time with undici's request on an Agent of its own (the host's client for tiles), each body read whole and its status checked, and kept as plainly as tiles can be kept alike: inserted into an MBTiles file (the MBTiles schema, page size 8192 as the host's, 256 tiles a transaction, synchronous=OFF) on its one thread, the file fsynced at the end; it must hold every tile. Timed from spawn to exit. In ${NOTHING_PAIRS} further pairs (no target) the same loop keeps nothing: what keeping the tiles costs at all.`,
    `Where they run: ${PIN ? 'the tile server on CPU 0 and each side on CPU 1 (taskset -c), so the server\'s work is not taken from the side measured' : 'everything sharing every core (taskset is not available here)'}. Before every timed run, \`sync\` writes out what the fixtures left in the page cache. The machine is shared: its load average at the start and the end is recorded with the result.`,
    `Pairs interleaved (the host first in odd pairs, the bare loop first in even ones), a fresh home each pair; the ratio is host ÷ bare wall time per pair, the median reported with its lowest and highest.`,
  ],
  metrics: [
    metric(`Host ÷ bare loop keeping the tiles in an MBTiles file, wall time, whole processes, ${CONCURRENCY} at a time, tiles answered at once (median of ${PAIRS} pairs)`, s.median, '×', { op: '<=', value: 1.2 }),
    metric('Pair ratio, lowest', s.min, '×'),
    metric('Pair ratio, highest', s.max, '×'),
    metric(`Host, wall time for ${TILES.toLocaleString('en-US')} tiles (median run)`, r1(med(zero, 'a', 'value')), 'ms'),
    metric('Bare loop, wall time (median run)', r1(med(zero, 'b', 'value')), 'ms'),
    metric('Host, CPU time of the process (median run)', r3(med(zero, 'a', 'cpu_s')), 's'),
    metric('Bare loop, CPU time of the process (median run)', r3(med(zero, 'b', 'cpu_s')), 's'),
    metric('Host throughput (median run)', Math.round(TILES / (med(zero, 'a', 'value') / 1000)), 'tiles/s'),
    metric('Bare loop throughput (median run)', Math.round(TILES / (med(zero, 'b', 'value') / 1000)), 'tiles/s'),
    ...(nothing ? [
      metric(`Host ÷ bare loop keeping nothing, tiles answered at once (median of ${NOTHING_PAIRS} pairs)`, nothing.stats.median, '×'),
      metric('Bare loop keeping nothing, wall time (median run)', r1(med(nothing, 'b', 'value')), 'ms'),
      metric('Bare loop keeping nothing, CPU time (median run)', r3(med(nothing, 'b', 'cpu_s')), 's'),
    ] : []),
    ...(delayed ? [
      metric(`Host ÷ bare loop, tiles answered in ${DELAY_MS} ms (median of ${DELAYED_PAIRS} pairs)`, delayed.stats.median, '×'),
      metric(`In ${DELAY_MS} ms: host, wall time (median run)`, r1(med(delayed, 'a', 'value')), 'ms'),
      metric(`In ${DELAY_MS} ms: bare loop, wall time (median run)`, r1(med(delayed, 'b', 'value')), 'ms'),
    ] : []),
  ],
  tables: [
    table('Every pair, tiles answered at once', zero), ...(nothing ? [table('Every pair, tiles answered at once, the bare loop keeping nothing', nothing)] : []), ...(delayed ? [table(`Every pair, tiles answered in ${DELAY_MS} ms`, delayed)] : []),
    {
      title: "Where each host run's time went (ms): spawned to answering, the tiles fetched and written (to the last progress), the file completed and published and the layer set (to the answer), the exit",
      columns: ['server delay ms', 'spawn → hello', 'fetch and write', 'complete', 'exit'],
      rows: phases.map((p) => [p.delay, p.start, p.fetch, p.finish, p.exit]),
    },
  ],
  notes: [
    `Pair ratios, tiles answered at once: ${describePairs(s)}.${nothing ? ` Against the loop keeping nothing: ${describePairs(nothing.stats)}.` : ''}${delayed ? ` Answered in ${DELAY_MS} ms: ${describePairs(delayed.stats)}.` : ''}`,
    'Where a host run\'s time went (profiled with --cpu-prof and perf on this machine, a run against a server answering at once): its main thread busy about a quarter of the download (1.3 s of CPU against the bare loop\'s 0.9 s), the rest waiting for answers; undici\'s request and response handling the most of that busy time on both sides; the SQLite commits about 0.1 s of it (a host with its writes turned off took as long); V8\'s optimising compiler on its background threads about 0.4 s of CPU, the bare loop\'s next to none (more of the host\'s code runs per tile); the start-up to `hello` about 0.25 s of CPU. On a loaded machine (see the load average) both sides wait for a CPU, so the ratio follows their CPU times.',
  ],
  details: { tiles: TILES, zoom: ZOOM, bbox, concurrency: CONCURRENCY, delay_ms: DELAY_MS, pinned: PIN, tile_bytes: zero.tileBytes, server_cpu_s: { zero: zero.serverCpu, delayed: delayed?.serverCpu ?? null } },
});
process.stdout.write(`${describePairs(s)} → ${writeResult(out)}\n`);
