// GET /api/farms/{id}/parcels/ for a 10,000-parcel farm: the listing a client reads after an uncertain bulk create.
import { parseArgs } from 'node:util';
import { dbFile } from '../service/config.ts';
import { openDb, type Db } from '../service/store/sqlite/db.ts';
import type { Scope } from '../service/store/scope.ts';
import { openFarmParcelListing } from '../service/store/sqlite/farm-listing.ts';
import { farmParcelsBody, type FarmListingPage } from '../service/store/farm-listing.ts';
import { BATCH_SIZE, makeBatches } from './lib/parcels.ts';
import { pool, runLoad, type RequestSpec } from './lib/load.ts';
import { createFarms, createTenant, dirBytes, removeDir, startService, tempDataDir } from './lib/service.ts';
import { cpuWindow } from './lib/machine.ts';
import { median, r1, r3, summarize } from './lib/stats.ts';
import { pairStats } from './lib/pairs.ts';
import { latestProfile, monotonicUs, summarizeProfile, type Frame, type ProfileSummary, leafKind } from './lib/profile.ts';
import { metric, startResult, writeResult, type Target } from './lib/result.ts';

/** The listing's body as GET /api/farms/{id}/parcels/ streams it, from the SQLite store's snapshot of this database. */
const farmParcelsStream = (db: Db, scope: Scope, farmId: number, page: FarmListingPage, nextUrl: (after: number) => string) =>
  farmParcelsBody(openFarmParcelListing(db, scope, farmId, page), page, nextUrl);

const { values: args } = parseArgs({
  options: {
    parcels: { type: 'string', default: '10000' },
    requests: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '5' },
    /** After the measurement, restart the service under node --cpu-prof for 20 more requests and summarize the profile. */
    profile: { type: 'boolean', default: false },
    /** Extra node flags for the service process, space-separated (an experiment; the result records them). */
    'node-flags': { type: 'string', default: '' },
  },
});
const PARCELS = Number(args.parcels);
const REQUESTS = Number(args.requests);
const WARMUP = Number(args.warmup);
const TARGET: Target = { op: '<', value: 150 };
const NODE_FLAGS = args['node-flags'].split(' ').filter(Boolean);
const PAIRS = 10;
// The listing as the service built it before it streamed: the whole FeatureCollection as one SQLite string.
const OLD_LISTING = `SELECT count(*) AS n, coalesce(group_concat(f, ','), '') AS features FROM (SELECT '{"type":"Feature","id":' || p.id
  || ',"bbox":[' || CAST(p.minx AS TEXT) || ',' || CAST(p.miny AS TEXT) || ',' || CAST(p.maxx AS TEXT) || ',' || CAST(p.maxy AS TEXT)
  || '],"geometry":' || p.geometry || ',"properties":{"key":"' || p.key || '","name":' || json_quote(p.name) || ',"farm":' || p.farm_id
  || ',"hectares":' || CAST(p.hectares AS TEXT) || ',"metadata":' || p.metadata || ',"source_type":"' || p.source_type || '","point":'
  || coalesce(p.point, 'null') || ',"center":[' || CAST((p.minx + p.maxx) / 2 AS TEXT) || ',' || CAST((p.miny + p.maxy) / 2 AS TEXT)
  || '],"created":"' || p.created || '","modified":"' || p.modified || '"}}' AS f FROM parcels p WHERE p.farm_id = ? ORDER BY p.id)`;

async function bestOf(n: number, fn: () => void | Promise<void>): Promise<{ best_ms: number; passes_ms: number[] }> {
  const passes: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    passes.push(performance.now() - t0);
  }
  return { best_ms: r3(Math.min(...passes)), passes_ms: passes.map(r3) };
}

async function main(): Promise<void> {
  const record = startResult('service-farm-list', 'Farm listing: GET /api/farms/{id}/parcels/ of a 10,000-parcel farm', `npm run bench -- service-farm-list${args.profile ? ' --profile' : ''}${NODE_FLAGS.length ? ` --node-flags '${NODE_FLAGS.join(' ')}'` : ''}`);
  const dir = tempDataDir('farm-list');
  const profDir = args.profile ? tempDataDir('farm-list-prof') : undefined;
  const svc = await startService(dir, { nodeFlags: NODE_FLAGS });
  try {
    const fill = pool(svc.url, 4);
    const tenant = await createTenant(dir, fill);
    const [farmId] = await createFarms(fill, tenant, 1) as [number];
    const batches = Math.ceil(PARCELS / BATCH_SIZE);
    const set = makeBatches(batches, [farmId]);
    const headers = { ...tenant.headers, 'content-type': 'application/json' };
    const filled = await runLoad(fill, batches, (i) => ({ method: 'POST', path: '/api/parcels/', headers, body: set.bodies[i]! }), 4, 201);
    if (filled.statuses['201'] !== batches) throw new Error(`filling the farm: ${JSON.stringify(filled.statuses)} ${filled.first_error}`);
    await fill.close();

    // One connection, one request at a time: the latency of the listing itself, not of a queue.
    const p = pool(svc.url, 1);
    const get: RequestSpec = { method: 'GET', path: `/api/farms/${farmId}/parcels/`, headers: tenant.headers };
    const first = await p.request(get);
    const text = await first.body.text();
    const body = JSON.parse(text) as { type: string; features: unknown[]; count: number };
    if (first.statusCode !== 200 || body.features.length !== batches * BATCH_SIZE || body.count !== batches * BATCH_SIZE) {
      throw new Error(`listing returned ${first.statusCode} with ${body.features?.length} features`);
    }
    const warm = await runLoad(p, WARMUP, () => get, 1, 200);
    if (warm.statuses['200'] !== WARMUP) throw new Error(`warm-up: ${warm.first_error}`);
    const cpu = cpuWindow({ service: svc.pid, bench: process.pid });
    const run = await runLoad(p, REQUESTS, () => get, 1, 200);
    const window = cpu.end();
    if (run.statuses['200'] !== REQUESTS) throw new Error(`listing: ${JSON.stringify(run.statuses)} ${run.first_error}`);
    await p.close();
    const latency = summarize(run.latencies);
    const bytes = Math.round(run.response_bytes / REQUESTS);
    const dbBytes = dirBytes(dir);
    await svc.stop();
    let profile: ProfileSummary | null = null;
    if (profDir) {
      const profiled = await startService(dir, { cpuProfDir: profDir, nodeFlags: NODE_FLAGS });
      try {
        const pp = pool(profiled.url, 1);
        await runLoad(pp, 3, () => get, 1, 200);
        const from = monotonicUs();
        await runLoad(pp, 20, () => get, 1, 200);
        const to = monotonicUs();
        await pp.close();
        await profiled.stop();
        profile = summarizeProfile(latestProfile(profDir), classify, { from_us: from, to_us: to });
      } finally {
        await profiled.stop();
      }
    }

    // Where the time goes, in process on the same database file: the query and the string assembly.
    const db = openDb(dbFile(dir));
    const scope: Scope = { organizationId: tenant.organizationId, accountId: tenant.accountId, via: 'api_key' };
    let streamed = 0;
    const query = await bestOf(10, async () => {
      streamed = 0;
      for await (const chunk of farmParcelsStream(db, scope, farmId, {}, () => '')) streamed += (chunk as Buffer).length;
    });
    if (streamed !== bytes) throw new Error(`the in-process stream gave ${streamed} bytes, the HTTP response ${bytes}`);
    const parse = await bestOf(5, () => { JSON.parse(text); });
    // Like with like: the service-side work of the listing as it was (one SQLite string, encoded for the socket)
    // and as it is (the stream read to the end), in interleaved pairs, in CPU time (robust to other load).
    const oldQuery = db.prepare(OLD_LISTING);
    const cpuMs = async (fn: () => unknown) => { const c = process.cpuUsage(); await fn(); const d = process.cpuUsage(c); return (d.user + d.system) / 1000; };
    const oldSide = () => {
      const r = oldQuery.get(farmId) as { n: number; features: string };
      return Buffer.from(`{"type":"FeatureCollection","features":[${r.features}],"count":${r.n},"next":null}`).length;
    };
    const newSide = async () => {
      let n = 0;
      for await (const chunk of farmParcelsStream(db, scope, farmId, {}, () => '')) n += (chunk as Buffer).length;
      return n;
    };
    if (oldSide() !== bytes) throw new Error('the one-string listing differs in size from the streamed one');
    const pairs: [number, number][] = [];
    for (let i = 0; i < PAIRS; i++) {
      if (i % 2 === 0) {
        const o = await cpuMs(oldSide);
        pairs.push([o, await cpuMs(newSide)]);
      } else {
        const n = await cpuMs(newSide);
        pairs.push([await cpuMs(oldSide), n]);
      }
    }
    const pairRatios = pairStats(pairs.map((p) => p[1]), pairs.map((p) => p[0]));
    db.close();
    const serviceMsPerRequest = r1(((window.ours.service ?? 0) * window.seconds * 1000) / REQUESTS);

    const result = record.finish({
      method: [
        `The service runs as a child process on 127.0.0.1 (synchronous=FULL, fresh DATA_DIR). One farm is filled with ${(batches * BATCH_SIZE).toLocaleString('en-US')} parcels through POST /api/parcels/ (the same generated batches as service-bulk: polygons of 10–50 vertices, a few points, 5 metadata keys).`,
        `This process then sends GET /api/farms/${'{id}'}/parcels/ with the API key and Service-Account header over one undici keep-alive connection, one request at a time: ${WARMUP} warm-up requests, then ${REQUESTS} measured. A request's latency runs until the whole body has been read. The first response is parsed and must hold every parcel.`,
        'Afterwards, in process on the same database file, best of 10: the listing as the service builds it (farmParcelsStream: SQLite assembles each Feature, the stream reads them in keyset chunks of 64 KiB, one turn of the event loop each), read to the end (bytes counted, not decoded).',
        `Then ${PAIRS} interleaved pairs (alternating which goes first), in CPU time of this process: the previous implementation (the whole FeatureCollection as one SQLite string, then encoded to a Buffer as the socket needs it) and the stream read to the end; both give the same number of bytes.`,
      ],
      metrics: [
        metric('Latency p50, 10,000-parcel farm', latency.p50_ms, 'ms', TARGET),
        metric('Latency p95', latency.p95_ms, 'ms'),
        metric('Latency p99', latency.p99_ms, 'ms'),
        metric('Response size', Math.round((bytes / 2 ** 20) * 100) / 100, 'MiB'),
        metric('Service CPU per request (from /proc)', serviceMsPerRequest, 'ms'),
        metric('In process: the listing stream read to the end (farmParcelsStream)', query.best_ms, 'ms'),
        metric('In process, CPU time: stream ÷ the previous one-string listing, median pair ratio', pairRatios.median, '×'),
      ],
      tables: [{
        title: 'Latency over the measured requests',
        columns: ['requests', 'min ms', 'mean ms', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'response bytes', 'service CPU (cores)', 'other processes (cores)'],
        rows: [[latency.count, latency.min_ms, latency.mean_ms, latency.p50_ms, latency.p95_ms, latency.p99_ms, latency.max_ms, bytes, window.ours.service ?? 0, window.others]],
      }, ...(profile ? [{
        title: 'CPU profile of the service over 20 more requests (a separate run under node --cpu-prof, after the measurement)',
        columns: ['Category', 'ms', 'share'],
        rows: profile.categories.map((c) => [c.category, c.ms, `${c.share} %`]),
      }, {
        title: 'Top functions by self time in that profile',
        columns: ['Function', 'ms', 'share'],
        rows: profile.top_self.slice(0, 12).map((c) => [c.function, c.ms, `${c.share} %`]),
      }] : [])],
      notes: [
        `Stream ÷ one-string CPU time over ${PAIRS} interleaved pairs: median ${pairRatios.median}, min ${pairRatios.min}, max ${pairRatios.max} (one string: median ${r1(median(pairs.map((p) => p[0])))} ms; stream: ${r1(median(pairs.map((p) => p[1])))} ms).`,
        `Parsing the ${Math.round(bytes / 2 ** 20)} MiB response with JSON.parse takes ${r1(parse.best_ms)} ms on the client side; it is not part of the measured latency.`,
        `Other processes used ${window.others} cores on average while the listing was measured.`,
      ],
      details: { profile, farm_parcels: batches * BATCH_SIZE, latency, response_bytes: bytes, db_bytes: dbBytes, cpu: window, in_process: { query, client_parse: parse, cpu_pairs_ms_old_new: pairs.map(([o, n]) => [r1(o), r1(n)]) } },
    });
    process.stderr.write(`  p50 ${latency.p50_ms} ms, p99 ${latency.p99_ms} ms, ${bytes} bytes\n  wrote ${writeResult(result)}\n`);
  } finally {
    await svc.stop();
    removeDir(dir);
    if (profDir) removeDir(profDir);
  }
}

function classify(stack: Frame[]): string {
  const kind = leafKind(stack, 'waiting on the network or the client');
  if (kind) return kind;
  if (stack.some((f) => f.url.includes('service/store/sqlite/farm-listing'))) return 'SQLite assembling the listing (farm-listing.ts)';
  if (stack.some((f) => f.url.includes('service/store/parcel-json'))) return 'string assembly (featureCollectionJson)';
  if (stack.some((f) => f.url.includes('fastify'))) return 'fastify reply (content-length, hooks, write)';
  return 'Node HTTP / net / other';
}

await main();
