// A tile from a 2 GB MBTiles file and from a 2 GB PMTiles archive, through the mirror host as the map reads them: the
// host's real loopback server over HTTP, a page session's bytes paths. MBTiles: a tile by name, read by the host from
// SQLite. PMTiles: the page's way, the pmtiles package's FetchSource reading the archive by range (its directories
// cached as the page's are). The host's memory is sampled throughout: it must stay flat, the files never read whole
// — nor when the host copies a 2 GB file in (addLayerFilePath, streamed).
import { parseArgs } from 'node:util';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { Agent, request } from 'node:http';
import Database from 'better-sqlite3';
import { WebSocket } from 'ws';
import { FetchSource, PMTiles, zxyToTileId } from 'pmtiles';
import { launchHost, type Host } from '../backend/launch.ts';
import { API, API_EVENTS, API_VERSION } from '../core/api.ts';
import { createClient } from '../core/rpc.ts';
import { tileOf } from '../core/layers/layer-files.ts';
import { PROTOCOL } from '../backend/browser-server.ts';
import { wsPort } from '../test/helpers/ws-port.ts';
import { writePmtiles } from '../test/helpers/pmtiles-writer.ts';
import { freePort } from '../test/helpers/process.ts';
import { ROOT } from './lib/paths.ts';
import { r1, summarize, type LatencySummary } from './lib/stats.ts';
import { cpuWindow, procMemoryKb } from './lib/machine.ts';
import { metric, startResult, writeResult } from './lib/result.ts';

const { values: args } = parseArgs({ options: { gb: { type: 'string', default: '2' }, tiles: { type: 'string', default: '6000' } } });
const BYTES = Number(args.gb) * 2 ** 30;
const REQUESTS = Number(args.tiles);
const TILE = 64 * 1024;
const COUNT = Math.ceil(BYTES / TILE);
/** The tiles at one zoom, in a square block (zoom 16 holds it whole). */
const Z = 16;
const SIDE = Math.ceil(Math.sqrt(COUNT));
const X0 = 32000;
const Y0 = 24000;
const HOST = join(ROOT, 'dist/host.mjs');
const TMP = join(ROOT, 'bench', 'tmp', 'layer-files');
const fmt = (n: number) => n.toLocaleString('en-US');
const mb = (kb: number) => r1(kb / 1024);

/** Random-ish tiles: 64 distinct random bodies of 64 KiB, each tile stamped with its number, behind a PNG signature. */
function* tiles(): Generator<{ z: number; x: number; y: number; data: Buffer }> {
  const bodies = Array.from({ length: 64 }, () => randomBytes(TILE));
  for (let i = 0; i < COUNT; i++) {
    const data = Buffer.from(bodies[i % bodies.length]!);
    Buffer.from('89504e470d0a1a0a', 'hex').copy(data, 0);
    data.writeUInt32BE(i, 8);
    yield { z: Z, x: X0 + (i % SIDE), y: Y0 + Math.floor(i / SIDE), data };
  }
}

function writeMbtiles(file: string): void {
  const db = new Database(file);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec(`CREATE TABLE metadata (name TEXT, value TEXT); CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
    CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);`);
  const meta = db.prepare('INSERT INTO metadata VALUES (?, ?)');
  for (const [k, v] of [['name', 'Bench 2 GB'], ['format', 'png'], ['minzoom', String(Z)], ['maxzoom', String(Z)], ['bounds', '-3.8,40.3,-3.6,40.5']]) meta.run(k, v);
  const put = db.prepare('INSERT INTO tiles VALUES (?, ?, ?, ?)');
  let batch: { z: number; x: number; y: number; data: Buffer }[] = [];
  const flush = db.transaction((b: typeof batch) => { for (const t of b) put.run(t.z, t.x, 2 ** t.z - 1 - t.y, t.data); });
  for (const t of tiles()) {
    batch.push(t);
    if (batch.length === 2000) { flush(batch); batch = []; }
  }
  flush(batch);
  db.close();
}

/** A random tile of the block's, in XYZ. */
const anyTile = () => {
  const i = Math.floor(Math.random() * COUNT);
  return { z: Z, x: X0 + (i % SIDE), y: Y0 + Math.floor(i / SIDE), i };
};

/** The host's resident memory (MiB), sampled every 100 ms while `fn` runs: its samples and fn's answer. */
async function sampled<T>(h: Host, fn: () => Promise<T>): Promise<{ value: T; rss: number[] }> {
  const rss: number[] = [mb(procMemoryKb(h.pid).rss)];
  const timer = setInterval(() => rss.push(mb(procMemoryKb(h.pid).rss)), 100);
  try {
    const value = await fn();
    rss.push(mb(procMemoryKb(h.pid).rss));
    return { value, rss };
  } finally {
    clearInterval(timer);
  }
}

async function main(): Promise<void> {
  const record = startResult('layer-files', 'Layer files: a tile from a 2 GB MBTiles and a 2 GB PMTiles through the host', 'npm run bench -- layer-files');
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0 || !existsSync(HOST)) throw new Error(`npm run build failed: ${build.stderr}`);
  rmSync(TMP, { recursive: true, force: true });
  mkdirSync(TMP, { recursive: true });
  const home = join(TMP, 'home');
  let h: Host | undefined;
  try {
    let t0 = performance.now();
    const mbtiles = join(TMP, 'bench.mbtiles');
    writeMbtiles(mbtiles);
    const mbtilesMs = performance.now() - t0;
    t0 = performance.now();
    const pmtiles = join(TMP, 'bench.pmtiles');
    const written = writePmtiles(pmtiles, { tileType: 2, minZoom: Z, maxZoom: Z, bounds: [-3.8, 40.3, -3.6, 40.5], metadata: { name: 'Bench 2 GB' } }, tiles());
    const pmtilesMs = performance.now() - t0;
    const sizes = { mbtiles: statSync(mbtiles).size, pmtiles: statSync(pmtiles).size };

    const port = await freePort();
    const token = randomBytes(32).toString('base64url');
    mkdirSync(join(TMP, 'renderer'));
    writeFileSync(join(TMP, 'renderer', 'index.html'), '<!doctype html>');
    h = await launchHost({ home, entry: HOST, env: { FURROW_BROWSER_PORT: String(port), FURROW_RENDERER_DIR: join(TMP, 'renderer') }, secrets: { browserToken: token } });
    const host = h;
    const idleRss = mb(procMemoryKb(host.pid).rss);
    // The command line's way in: a streamed copy into FURROW_HOME/layers/, the host's memory sampled meanwhile.
    t0 = performance.now();
    const copyM = await sampled(host, () => host.api.addLayerFilePath({ path: mbtiles }));
    const copyMbMs = performance.now() - t0;
    t0 = performance.now();
    const copyP = await sampled(host, () => host.api.addLayerFilePath({ path: pmtiles }));
    const copyPmMs = performance.now() - t0;
    // The originals are no longer needed: the host reads its own copies.
    rmSync(mbtiles);
    rmSync(pmtiles);

    // A page: a WebSocket session, as the browser's.
    const ws = await new Promise<WebSocket>((resolve, reject) => {
      const s = new WebSocket(`ws://127.0.0.1:${port}/`, [PROTOCOL, `furrow-token.${token}`], { origin: `http://127.0.0.1:${port}` });
      s.once('open', () => resolve(s));
      s.once('error', reject);
    });
    const page = createClient(API, wsPort(ws), API_EVENTS);
    await page.api.hello({ apiVersion: API_VERSION });
    const m = await page.api.layerFileSource({ file: copyM.value.file });
    const p = await page.api.layerFileSource({ file: copyP.value.file });
    const base = `http://127.0.0.1:${port}`;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string, range?: string) => new Promise<number>((resolve, reject) => {
      const req = request(`${base}${path}`, { agent, headers: range ? { range } : {} }, (res) => {
        let n = 0;
        res.on('data', (d: Buffer) => { n += d.length; });
        res.on('end', () => (res.statusCode === (range ? 206 : 200) ? resolve(n) : reject(new Error(`${path}: ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end();
    });

    const timed = async (n: number, fn: () => Promise<unknown>): Promise<number[]> => {
      const ms: number[] = [];
      for (let i = 0; i < n; i++) {
        const s = performance.now();
        await fn();
        ms.push(performance.now() - s);
      }
      return ms;
    };
    // MBTiles: a random tile of the 2 GB file by its name, each whole (64 KiB).
    await timed(200, async () => { const t = anyTile(); await get(tileOf(m.tiles!, t.z, t.x, t.y)); });
    const cpuM = cpuWindow({ bench: process.pid, host: host.pid });
    const mbRun = await sampled(host, () => timed(REQUESTS, async () => {
      const t = anyTile();
      if (await get(tileOf(m.tiles!, t.z, t.x, t.y)) !== TILE) throw new Error('a tile came short');
    }));
    const cpuMEnd = cpuM.end();
    // PMTiles: a random tile's bytes by one range request (the page's read of a tile, its directories in its cache),
    // over the same connection as the MBTiles tiles.
    const range = () => {
      const t = anyTile();
      const at = written.at.get(zxyToTileId(t.z, t.x, t.y))!;
      return `bytes=${at.offset}-${at.offset + at.length - 1}`;
    };
    await timed(200, () => get(p.path!, range()));
    const cpuR = cpuWindow({ bench: process.pid, host: host.pid });
    const rangeRun = await sampled(host, () => timed(REQUESTS, async () => {
      if (await get(p.path!, range()) !== TILE) throw new Error('a range came short');
    }));
    const cpuREnd = cpuR.end();
    // And as the page reads it, the pmtiles package's FetchSource over the host's HTTP ranges (its cache keeps the
    // directories): Node's fetch adds its own time.
    const archive = new PMTiles(new FetchSource(`${base}${p.path!}`));
    await timed(200, async () => { const t = anyTile(); await archive.getZxy(t.z, t.x, t.y); });
    const cpuP = cpuWindow({ bench: process.pid, host: host.pid });
    const pmRun = await sampled(host, () => timed(REQUESTS, async () => {
      const t = anyTile();
      const r = await archive.getZxy(t.z, t.x, t.y);
      if (r?.data.byteLength !== TILE || new DataView(r.data).getUint32(8) !== t.i) throw new Error('the wrong tile came');
    }));
    const cpuPEnd = cpuP.end();
    page.close();
    ws.close();
    agent.destroy();

    const mbLat = summarize(mbRun.value);
    const rangeLat = summarize(rangeRun.value);
    const pmLat = summarize(pmRun.value);
    const growth = (r: number[]) => r1(Math.max(...r) - r[0]!);
    // Flat: what the second half of a run adds to the highest of its first half (garbage collected in between, a
    // run's 64 KiB buffers raise the resident set at first, then no more).
    const late = (r: number[]) => r1(Math.max(0, Math.max(...r.slice(r.length >> 1)) - Math.max(...r.slice(0, r.length >> 1))));
    const row = (label: string, l: LatencySummary): (string | number)[] => [label, l.count, l.p50_ms, l.p95_ms, l.p99_ms, l.max_ms];
    const result = record.finish({
      method: [
        `Files made by the run (bench/tmp/, removed after): an MBTiles of ${fmt(COUNT)} tiles of 64 KiB (${r1(sizes.mbtiles / 2 ** 30)} GiB; SQLite, a unique index on zoom, column and row as GDAL and tippecanoe write it), written in ${fmt(Math.round(mbtilesMs))} ms, and a PMTiles v3 archive of the same tiles (${r1(sizes.pmtiles / 2 ** 30)} GiB, leaf directories; test/helpers/pmtiles-writer.ts), written in ${fmt(Math.round(pmtilesMs))} ms. Tiles are random-ish bytes (64 random bodies, each tile stamped with its number) behind a PNG signature, all at zoom ${Z} in a ${SIDE}×${SIDE} block.`,
        `The host is the built dist/host.mjs with browser mode's loopback server, started by backend/launch.ts. Each file went in as the command line adds one (addLayerFilePath: a streamed copy into FURROW_HOME/layers/): MBTiles ${fmt(Math.round(copyMbMs))} ms, PMTiles ${fmt(Math.round(copyPmMs))} ms, the host's memory sampled every 100 ms meanwhile.`,
        `A page session (a WebSocket with the launch's token) asked for each file's bytes paths (layerFileSource). MBTiles: ${fmt(REQUESTS)} random tiles, one at a time, each a GET of its name over one kept-alive HTTP connection (node:http; the host reads it from SQLite and answers it whole). PMTiles: ${fmt(REQUESTS)} random tiles, each one GET of the tile's byte range of the archive over the same kind of connection — what the page's pmtiles reader asks for a tile once its directories are cached (the target) — and ${fmt(REQUESTS)} more read whole as the page reads them, pmtiles' FetchSource getZxy (Node's fetch; a leaf directory read when first needed, then cached). 200 tiles of warm-up before each. The files were in the OS page cache (they were just written and copied; the machine has more memory than the two files).`,
      ],
      metrics: [
        metric('A tile from a 2 GB MBTiles through the host, p95', mbLat.p95_ms, 'ms', { op: '<', value: 5 }),
        metric('A tile from a 2 GB PMTiles through the host (its byte range), p95', rangeLat.p95_ms, 'ms', { op: '<', value: 5 }),
        metric('A tile from the 2 GB PMTiles read by pmtiles\' FetchSource (Node fetch, directories cached), p95', pmLat.p95_ms, 'ms'),
        metric(`Host memory over ${fmt(REQUESTS)} MBTiles tiles (${fmt(Math.round((REQUESTS * TILE) / 2 ** 20))} MiB served): its peak above its idle resident set`, r1(Math.max(...mbRun.rss) - idleRss), 'MiB', { op: '<=', value: 64 }),
        metric(`Host memory over ${fmt(2 * REQUESTS)} PMTiles tiles: its peak above its idle resident set`, r1(Math.max(...rangeRun.rss, ...pmRun.rss) - idleRss), 'MiB', { op: '<=', value: 64 }),
        metric(`What the second half of the ${fmt(REQUESTS)} MBTiles tiles adds to the first half's peak`, late(mbRun.rss), 'MiB'),
        metric(`What the second half of the ${fmt(REQUESTS)} PMTiles ranges adds to the first half's peak`, late(rangeRun.rss), 'MiB'),
        metric('Host memory growth while copying a 2 GB file in (largest of the two)', Math.max(growth(copyM.rss), growth(copyP.rss)), 'MiB', { op: '<=', value: 64 }),
        metric('Copy of a 2 GB file into the app\'s folder (MBTiles)', r1(sizes.mbtiles / 2 ** 20 / (copyMbMs / 1000)), 'MiB/s'),
      ],
      tables: [{
        title: 'Tiles through the host (one at a time)',
        columns: ['Read', 'tiles', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
        rows: [row('MBTiles tile by name (64 KiB, HTTP)', mbLat), row('PMTiles tile by its byte range (64 KiB, HTTP)', rangeLat), row('PMTiles tile by pmtiles FetchSource getZxy', pmLat)],
      }, {
        title: "The host's resident memory (MiB)",
        columns: ['When', 'first', 'max', 'last'],
        rows: [
          ['idle, after start', idleRss, idleRss, idleRss],
          ['copying the 2 GB MBTiles in', copyM.rss[0]!, Math.max(...copyM.rss), copyM.rss.at(-1)!],
          ['copying the 2 GB PMTiles in', copyP.rss[0]!, Math.max(...copyP.rss), copyP.rss.at(-1)!],
          [`${fmt(REQUESTS)} MBTiles tiles`, mbRun.rss[0]!, Math.max(...mbRun.rss), mbRun.rss.at(-1)!],
          [`${fmt(REQUESTS)} PMTiles ranges`, rangeRun.rss[0]!, Math.max(...rangeRun.rss), rangeRun.rss.at(-1)!],
          [`${fmt(REQUESTS)} PMTiles tiles by FetchSource`, pmRun.rss[0]!, Math.max(...pmRun.rss), pmRun.rss.at(-1)!],
        ],
      }],
      notes: [
        `CPU while the MBTiles tiles were read: this process ${cpuMEnd.ours.bench}, the host ${cpuMEnd.ours.host}, other processes ${cpuMEnd.others} cores; PMTiles ranges: this process ${cpuREnd.ours.bench}, the host ${cpuREnd.ours.host}, other processes ${cpuREnd.others} cores; PMTiles by FetchSource: this process ${cpuPEnd.ours.bench}, the host ${cpuPEnd.ours.host}, other processes ${cpuPEnd.others} cores (2 cores in all).`,
        `Flat: the host's resident set is bounded by what it holds at once (a tile, its buffers, V8's heap), whatever the file's size and however many tiles it serves; garbage collection lets it rise by some MiB in a run and fall back (a run of 30,000 tiles drifted about 10 MiB over its first half's peak, then no further).`,
        'Not measured here: Electron\'s path (app://furrow/bytes/ through main, a chunk of 256 KiB per message: electron/bytes.ts), whose answers are the same bytes; and a cold page cache (a disk read per tile, which the disk decides).',
      ],
      details: { mbtiles: mbLat, pmtilesRange: rangeLat, pmtiles: pmLat, sizes, rss: { idle: idleRss, copyM: copyM.rss, copyP: copyP.rss, mb: mbRun.rss, range: rangeRun.rss, pm: pmRun.rss } },
    });
    writeResult(result);
    for (const x of result.metrics) process.stderr.write(`  ${x.label}: ${x.value} ${x.unit}${x.target ? (x.pass ? ' (pass)' : ' (FAIL)') : ''}\n`);
  } finally {
    await h?.close();
    rmSync(TMP, { recursive: true, force: true });
  }
}

await main();
