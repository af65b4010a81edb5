// Bulk create throughput: the real service in a child process, driven over HTTP from this (second) process.
// Also measures the ceiling (a trivial fastify app, same client and concurrency) and, in process, each CPU
// part of a bulk create on the same batches (bench/lib/bulk-cpu-parts.ts), so a miss can be traced to where
// the time goes.
import { parseArgs } from 'node:util';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { configFromEnv, dbFile } from '../service/config.ts';
import { BATCH_SIZE, makeBatches, type BatchSet } from './lib/parcels.ts';
import { cpuParts } from './lib/bulk-cpu-parts.ts';
import { pool, runLoad, type LoadResult, type RequestSpec } from './lib/load.ts';
import { createFarms, createTenant, removeDir, startHello, startService, tempDataDir } from './lib/service.ts';
import { cpuWindow, type CpuWindow } from './lib/machine.ts';
import { r1, r3, summarize, type LatencySummary } from './lib/stats.ts';
import { latestProfile, monotonicUs, summarizeProfile, threadProfiles, type Frame, type ProfileSummary, leafKind } from './lib/profile.ts';
import { metric, startResult, writeResult, type Metric, type Table, type Target } from './lib/result.ts';

const { values: args } = parseArgs({
  options: {
    batches: { type: 'string', default: '400' },
    warmup: { type: 'string', default: '40' },
    concurrency: { type: 'string', default: '4' },
    farms: { type: 'string', default: '8' },
    passes: { type: 'string', default: '3' },
    /** Skip the extra synchronous=FULL run with the service under node --cpu-prof (summarized into the result). */
    'no-profile': { type: 'boolean', default: false },
    /** Extra node flags for the service process, space-separated (an experiment; the result records them). */
    'node-flags': { type: 'string', default: '' },
    /** Extra environment for the service process, comma-separated KEY=VALUE (an experiment; the result records it). */
    'service-env': { type: 'string', default: '' },
  },
});
const BATCHES = Number(args.batches);
const WARMUP = Number(args.warmup);
const CONCURRENCY = Number(args.concurrency);
const FARMS = Number(args.farms);
const PASSES = Number(args.passes);
const TARGET: Target = { op: '>=', value: 10_000 };
const HELLO_REQUESTS = 20_000;
const NODE_FLAGS = args['node-flags'].split(' ').filter(Boolean);
const SERVICE_ENV: Record<string, string> = Object.fromEntries(args['service-env'].split(',').filter(Boolean).map((kv) => {
  const i = kv.indexOf('=');
  return [kv.slice(0, i), kv.slice(i + 1)];
}));
/** Validation worker threads the service will run with (VALIDATION_WORKERS; its default depends on the core count). */
function validationWorkers(): string {
  const config = configFromEnv({ ...process.env, ...SERVICE_ENV }) as unknown as Record<string, unknown>;
  return config.validationWorkers === undefined ? 'none (inline; this service build has no worker pool)' : String(config.validationWorkers);
}

interface HttpRun {
  synchronous: 'FULL' | 'NORMAL';
  parcels_per_s: number;
  batches_per_s: number;
  latency: LatencySummary;
  statuses: Record<string, number>;
  first_error: string | null;
  cpu: CpuWindow;
  /** CPU time the service process (all its threads) spent per batch during the measured phase. */
  service_cpu_ms_per_batch: number;
  /** CPU time of the service's main thread (HTTP, SQLite) per batch: the part that cannot run in parallel. */
  main_thread_cpu_ms_per_batch: number;
  stored_parcels: number;
  expected_parcels: number;
  mean_response_bytes: number;
  /** The WAL file's largest size during the measured run, and at its end, in MiB. */
  wal_peak_mb: number;
  wal_end_mb: number;
  profile?: ProfileSummary;
  /** Profiles of the service's other busy threads (validation workers), same window. */
  thread_profiles?: { file: string; busy_ms: number; summary: ProfileSummary }[];
}

const rate = (n: number, r: LoadResult) => n / (r.elapsed_ms / 1000);

function checkRun(what: string, r: LoadResult, expected: number): void {
  const bad = Object.entries(r.statuses).filter(([s]) => s !== String(expected));
  if (bad.length) throw new Error(`${what}: unexpected responses ${JSON.stringify(r.statuses)}; first: ${r.first_error}`);
}

async function serviceRun(synchronous: 'FULL' | 'NORMAL', profileDir?: string): Promise<HttpRun> {
  const dir = tempDataDir(`bulk-${synchronous.toLowerCase()}`);
  const svc = await startService(dir, { synchronous, cpuProfDir: profileDir, nodeFlags: NODE_FLAGS, env: SERVICE_ENV });
  try {
    const p = pool(svc.url, CONCURRENCY);
    const tenant = await createTenant(dir, p);
    const farmIds = await createFarms(p, tenant, FARMS);
    const set = makeBatches(WARMUP + BATCHES, farmIds);
    const headers = { ...tenant.headers, 'content-type': 'application/json' };
    const spec = (offset: number) => (i: number): RequestSpec => ({ method: 'POST', path: '/api/parcels/', headers, body: set.bodies[offset + i]! });
    checkRun('warm-up', await runLoad(p, WARMUP, spec(0), CONCURRENCY, 201), 201);
    const from = monotonicUs();
    const cpu = cpuWindow({ service: svc.pid, bench: process.pid }, { service_main: { pid: svc.pid, tid: svc.pid } });
    // The WAL's size through the run: the checkpointer keeps it under its limit (platform/node/checkpointer.ts).
    let walPeak = 0;
    const walNow = () => { try { return statSync(`${dbFile(dir)}-wal`).size; } catch { return 0; } };
    const walSampler = setInterval(() => { walPeak = Math.max(walPeak, walNow()); }, 100);
    const run = await runLoad(p, BATCHES, spec(WARMUP), CONCURRENCY, 201);
    clearInterval(walSampler);
    walPeak = Math.max(walPeak, walNow());
    const walEnd = walNow();
    const window = cpu.end();
    const to = monotonicUs();
    checkRun(`bulk create (${synchronous})`, run, 201);
    await p.close();
    await svc.stop();
    const db = new Database(dbFile(dir), { readonly: true });
    const stored = (db.prepare('SELECT COUNT(*) AS n FROM parcels').get() as { n: number }).n;
    db.close();
    const result: HttpRun = {
      synchronous,
      parcels_per_s: Math.round(rate(BATCHES * BATCH_SIZE, run)),
      batches_per_s: r1(rate(BATCHES, run)),
      latency: summarize(run.latencies),
      statuses: run.statuses,
      first_error: run.first_error,
      cpu: window,
      service_cpu_ms_per_batch: r3(((window.ours.service ?? 0) * window.seconds * 1000) / BATCHES),
      main_thread_cpu_ms_per_batch: r3(((window.ours.service_main ?? 0) * window.seconds * 1000) / BATCHES),
      stored_parcels: stored,
      expected_parcels: (WARMUP + BATCHES) * BATCH_SIZE,
      mean_response_bytes: Math.round(run.response_bytes / BATCHES),
      wal_peak_mb: r1(walPeak / 1024 / 1024),
      wal_end_mb: r1(walEnd / 1024 / 1024),
    };
    if (stored !== result.expected_parcels) throw new Error(`stored ${stored} parcels, expected ${result.expected_parcels}`);
    if (profileDir) {
      const main = latestProfile(profileDir);
      result.profile = summarizeProfile(main, classify, { from_us: from, to_us: to });
      result.thread_profiles = threadProfiles(profileDir).filter((f) => f !== main).map((f) => {
        const summary = summarizeProfile(f, classify, { from_us: from, to_us: to });
        const idle = summary.categories.filter((c) => c.category.startsWith('idle')).reduce((a, c) => a + c.ms, 0);
        return { file: f.slice(f.lastIndexOf('/') + 1), busy_ms: summary.total_ms - idle, summary };
      }).filter((t) => t.busy_ms > 0.05 * (result.profile?.total_ms ?? 0));
    }
    return result;
  } finally {
    await svc.stop();
    removeDir(dir);
  }
}

/** Which part of a bulk create a profile sample belongs to; the stack comes leaf first. */
function classify(stack: Frame[]): string {
  const leaf = stack[0]!;
  const kind = leafKind(stack, 'waiting on the network or the client');
  if (kind) return kind;
  const inFile = (s: string) => stack.some((f) => f.url.includes(s));
  const inFn = (s: string) => stack.some((f) => f.fn === s);
  // Native better-sqlite3 calls have no frame of their own: their time is the self time of the JS caller.
  if (leaf.fn === 'sqliteTransaction') return 'SQLite BEGIN/COMMIT (native; the WAL write and, at FULL, its fsync)';
  if (leaf.fn === 'prepare' && leaf.url.includes('better-sqlite3')) return 'SQLite statement preparation (uncached db.prepare)';
  if (inFile('geographiclib') || inFile('core/geo/area')) return 'core: geodesic area (GeographicLib; polygons and point squares)';
  if (inFile('core/geo/intersect')) return 'core: self-intersection sweep';
  if (inFile('core/')) return 'core: other validation (structure, positions, metadata, names)';
  if (inFn('insertParcels')) return 'insertParcels: SQLite INSERTs (native, parcels + R*Tree) with row building, uuid, JSON.stringify';
  if (inFn('prepareParcels')) return 'JSON.stringify of the validated geometry and metadata (prepareParcels)';
  if (inFile('service/validation-pool') || inFile('service/validation-worker') || inFile('platform/node/worker-pool') || leaf.fn === 'postMessage') return 'validation hand-off between threads (postMessage, structured clone)';
  if (inFile('service/store/parcel-json')) return 'response JSON building (featureArrayJson)';
  if (inFn('bulkCreate')) return 'bulkCreate: farm and account lookups, other JS';
  if (inFile('secure-json-parse') || inFile('contentTypeParser') || (leaf.fn === 'parse' && leaf.url === '')) return 'request body read + JSON.parse (secure-json-parse)';
  if (inFn('authenticate')) return 'authentication (API key hash, account lookup)';
  if (inFile('fastify') || inFile('avvio') || inFile('find-my-way')) return 'fastify (routing, hooks, reply)';
  return 'Node HTTP / net / other';
}

async function ceilingRun(set: BatchSet): Promise<{ hello: { req_per_s: number; latency: LatencySummary; cpu: CpuWindow }; sink: { batches_per_s: number; parcels_per_s: number; latency: LatencySummary; cpu: CpuWindow } }> {
  const hello = await startHello();
  try {
    const p = pool(hello.url, CONCURRENCY);
    const get: RequestSpec = { method: 'GET', path: '/hello', headers: {} };
    checkRun('hello warm-up', await runLoad(p, 2000, () => get, CONCURRENCY, 200), 200);
    let cpu = cpuWindow({ service: hello.pid, bench: process.pid });
    const h = await runLoad(p, HELLO_REQUESTS, () => get, CONCURRENCY, 200);
    const helloCpu = cpu.end();
    checkRun('hello', h, 200);
    const headers = { 'content-type': 'application/json' };
    const spec = (offset: number) => (i: number): RequestSpec => ({ method: 'POST', path: '/sink', headers, body: set.bodies[offset + i]! });
    checkRun('sink warm-up', await runLoad(p, WARMUP, spec(0), CONCURRENCY, 201), 201);
    cpu = cpuWindow({ service: hello.pid, bench: process.pid });
    const s = await runLoad(p, BATCHES, spec(WARMUP), CONCURRENCY, 201);
    const sinkCpu = cpu.end();
    checkRun('sink', s, 201);
    await p.close();
    return {
      hello: { req_per_s: Math.round(rate(HELLO_REQUESTS, h)), latency: summarize(h.latencies), cpu: helloCpu },
      sink: { batches_per_s: r1(rate(BATCHES, s)), parcels_per_s: Math.round(rate(BATCHES * BATCH_SIZE, s)), latency: summarize(s.latencies), cpu: sinkCpu },
    };
  } finally {
    await hello.stop();
  }
}

async function main(): Promise<void> {
  const record = startResult('service-bulk', 'Bulk create: POST /api/parcels/ throughput', `npm run bench -- service-bulk${args['no-profile'] ? ' --no-profile' : ''}${NODE_FLAGS.length ? ` --node-flags '${NODE_FLAGS.join(' ')}'` : ''}${args['service-env'] ? ` --service-env ${args['service-env']}` : ''}`);
  const full = await serviceRun('FULL');
  process.stderr.write(`  FULL: ${full.parcels_per_s} parcels/s, p50 ${full.latency.p50_ms} ms\n`);
  const normal = await serviceRun('NORMAL');
  process.stderr.write(`  NORMAL: ${normal.parcels_per_s} parcels/s, p50 ${normal.latency.p50_ms} ms\n`);
  const ceilingSet = makeBatches(WARMUP + BATCHES, [1]);
  const ceiling = await ceilingRun(ceilingSet);
  process.stderr.write(`  ceiling: hello ${ceiling.hello.req_per_s} req/s, sink ${ceiling.sink.parcels_per_s} parcels/s\n`);
  const stages = cpuParts(ceilingSet, { warmup: WARMUP, passes: PASSES, concurrency: CONCURRENCY });
  let profiled: HttpRun | undefined;
  if (!args['no-profile']) {
    const profDir = mkdtempSync(join(tmpdir(), 'furrow-bench-prof-'));
    try {
      profiled = await serviceRun('FULL', profDir);
    } finally {
      removeDir(profDir);
    }
  }

  const run = (r: HttpRun, target?: Target): Metric[] => [
    metric(`Bulk create, synchronous=${r.synchronous}: parcels per second`, r.parcels_per_s, 'parcels/s', target),
    metric(`Bulk create, synchronous=${r.synchronous}: 50-parcel batches per second`, r.batches_per_s, 'batches/s'),
    metric(`Bulk create, synchronous=${r.synchronous}: batch latency p50`, r.latency.p50_ms, 'ms'),
    metric(`Bulk create, synchronous=${r.synchronous}: batch latency p99`, r.latency.p99_ms, 'ms'),
    metric(`Bulk create, synchronous=${r.synchronous}: the WAL's largest size during the run (limit 64 MiB)`, r.wal_peak_mb, 'MiB', { op: '<=', value: 64 + 16 }),
  ];
  const metrics: Metric[] = [
    ...run(full, TARGET),
    ...run(normal),
    metric('Ceiling: fastify GET /hello, same client and concurrency', ceiling.hello.req_per_s, 'req/s'),
    metric('Ceiling: fastify POST /sink of the same bodies (HTTP + JSON.parse only)', ceiling.sink.parcels_per_s, 'parcels/s'),
    metric('Ceiling: POST /sink latency p50', ceiling.sink.latency.p50_ms, 'ms'),
    metric('Service CPU per batch, all threads (synchronous=FULL, from /proc)', full.service_cpu_ms_per_batch, 'ms'),
    metric('Service CPU per batch, main thread only (HTTP + SQLite; from /proc/<pid>/task/<pid>)', full.main_thread_cpu_ms_per_batch, 'ms'),
    metric('Service capacity with free cores: 50 parcels ÷ the busiest thread\'s CPU per batch (FULL; robust to other load, ignores fsync waits)',
      Math.round(BATCH_SIZE / (Math.max(full.main_thread_cpu_ms_per_batch, full.service_cpu_ms_per_batch - full.main_thread_cpu_ms_per_batch) / 1000)), 'parcels/s'),
    ...stages.filter((s) => !s.stage.startsWith(' ')).map((s) => metric(`In process: ${s.stage}`, s.per_s, s.unit)),
  ];
  const perBatch = full.service_cpu_ms_per_batch * 1000;
  const tables: Table[] = [
    {
      title: 'Where the time goes: in-process cost of each part, per 50-parcel batch (best of passes)',
      columns: ['Part', 'Throughput (wall clock)', 'wall µs per batch', 'CPU µs per batch', 'CPU as a share of the service\'s CPU per batch (FULL, HTTP)'],
      rows: stages.map((s) => [s.stage.trim(), `${s.per_s.toLocaleString('en-US')} ${s.unit}`, s.us_per_batch, s.cpu_us_per_batch, `${r1((s.cpu_us_per_batch / perBatch) * 100)} %`]),
    },
    {
      title: 'HTTP runs',
      columns: ['Run', 'parcels/s', 'batches/s', 'p50 ms', 'p99 ms', 'max ms', 'server CPU (cores)', 'of which main thread', 'bench client CPU (cores)', 'other processes (cores)'],
      rows: [
        ...[full, normal].map((r) => [`service, synchronous=${r.synchronous}`, r.parcels_per_s, r.batches_per_s, r.latency.p50_ms, r.latency.p99_ms, r.latency.max_ms, r.cpu.ours.service ?? 0, r.cpu.ours.service_main ?? 0, r.cpu.ours.bench ?? 0, r.cpu.others]),
        ['fastify POST /sink (ceiling)', ceiling.sink.parcels_per_s, ceiling.sink.batches_per_s, ceiling.sink.latency.p50_ms, ceiling.sink.latency.p99_ms, ceiling.sink.latency.max_ms, ceiling.sink.cpu.ours.service ?? 0, '—', ceiling.sink.cpu.ours.bench ?? 0, ceiling.sink.cpu.others],
        ['fastify GET /hello (ceiling, req/s)', '—', ceiling.hello.req_per_s, ceiling.hello.latency.p50_ms, ceiling.hello.latency.p99_ms, ceiling.hello.latency.max_ms, ceiling.hello.cpu.ours.service ?? 0, '—', ceiling.hello.cpu.ours.bench ?? 0, ceiling.hello.cpu.others],
      ],
    },
  ];
  if (profiled?.profile) {
    tables.push({
      title: `CPU profile of the service during the measured phase (node --cpu-prof, synchronous=FULL, ${profiled.parcels_per_s} parcels/s under the profiler)`,
      columns: ['Category', 'ms', 'share'],
      rows: profiled.profile.categories.map((c) => [c.category, c.ms, `${c.share} %`]),
    });
    tables.push({
      title: 'Top functions by self time in that profile',
      columns: ['Function', 'ms', 'share'],
      rows: profiled.profile.top_self.slice(0, 15).map((c) => [c.function, c.ms, `${c.share} %`]),
    });
    for (const t of profiled.thread_profiles ?? []) {
      tables.push({
        title: `Another busy thread of the service in the same window (${t.file}, ${t.busy_ms} ms busy): a validation worker`,
        columns: ['Category', 'ms', 'share'],
        rows: t.summary.categories.map((c) => [c.category, c.ms, `${c.share} %`]),
      });
    }
  }
  const result = record.finish({
    method: [
      `The service runs as a child process (\`node --import tsx service/cli.ts serve\`) on 127.0.0.1 with a fresh DATA_DIR per run; the organization comes from the CLI (\`create-org\`), the account and ${FARMS} farms from the HTTP API.`,
      `${BATCHES} batches of ${BATCH_SIZE} parcels (${(BATCHES * BATCH_SIZE).toLocaleString('en-US')} parcels) are posted to POST /api/parcels/ with the API key and Service-Account header, after ${WARMUP} warm-up batches, by this benchmark process over undici 7 (Pool, ${CONCURRENCY} keep-alive connections, ${CONCURRENCY} requests in flight); a request's latency runs until its whole response body is read.`,
      `Batches are generated with a seeded PRNG: ${ceilingSet.polygons} polygons of 10–50 vertices (mean ${r1(ceilingSet.vertices / ceilingSet.polygons)}) and ${ceilingSet.points} Point parcels with hectares over all ${WARMUP + BATCHES} batches, 5 metadata keys each, mean body ${Math.round(ceilingSet.mean_body_bytes / 1024)} KiB; the same bodies go to every run.`,
      `Run twice: the default synchronous=FULL (each acknowledged batch survives power loss) and SQLITE_SYNCHRONOUS=NORMAL. Every batch must answer 201 and the database must hold every parcel afterwards. Validation worker threads in the service: ${validationWorkers()}${Object.keys(SERVICE_ENV).length ? `; service environment overrides: ${Object.entries(SERVICE_ENV).map(([k, v]) => `${k}=${v}`).join(', ')}` : ''}${NODE_FLAGS.length ? `; node flags: ${NODE_FLAGS.join(' ')}` : ''}.`,
      `Ceiling: a separate child process with a bare fastify 5 app, GET /hello (${HELLO_REQUESTS.toLocaleString('en-US')} requests) and POST /sink of the same bodies (parses them, answers a small object), same client and concurrency.`,
      `In process (after the HTTP runs, nothing else of ours running): each part of a bulk create over the same measured batches, best of ${PASSES} passes after one untimed pass.`,
    ],
    metrics,
    tables,
    notes: [
      'The service is one Node.js thread: its throughput is bounded by its CPU per batch. The bench client and other processes share the second core.',
      `Other processes used ${full.cpu.others} cores on average during the FULL run and ${normal.cpu.others} during the NORMAL run (other engineers run unit tests on this machine).`,
    ],
    details: { args: { batches: BATCHES, warmup: WARMUP, concurrency: CONCURRENCY, farms: FARMS, passes: PASSES }, full, normal, ceiling, stages, profiled: profiled ?? null, batches: { ...ceilingSet, bodies: undefined } },
  });
  const file = writeResult(result);
  process.stderr.write(`  wrote ${file}\n`);
}

await main();
