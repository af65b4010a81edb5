// The service on PostgreSQL + PostGIS beside SQLite (issue 15): the bulk create and the farm listing on each store,
// and the bulk create with two service processes on one PostgreSQL database. Like with like: the same service
// build, the same generated batches, the same client and concurrency, and the same durability (SQLite
// synchronous=FULL syncs its WAL at every commit; the PostgreSQL cluster keeps its defaults, fsync and
// synchronous_commit on, which sync the WAL at every commit too). The three set-ups run in rounds, the order rotated
// each round, and every ratio is the median of the per-round ratios with its spread.
import { parseArgs } from 'node:util';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pool } from 'undici';
import { BATCH_SIZE, makeBatches } from './lib/parcels.ts';
import { pool, runLoad, type LoadResult, type RequestSpec } from './lib/load.ts';
import { createFarms, createTenant, removeDir, startService, tempDataDir, type Child, type Tenant } from './lib/service.ts';
import { procCpuSeconds, statFields } from './lib/machine.ts';
import { pairStats, type PairStats } from './lib/pairs.ts';
import { median, r1, summarize } from './lib/stats.ts';
import { metric, startResult, writeResult } from './lib/result.ts';
import {
  createDatabase, findBinaries, missingPrerequisite, newCluster, postmasterPid, prepareTemplate, startCluster, stopCluster,
  PG_PACKAGES, type Cluster,
} from '../platform/node/pg-server.ts';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    batches: { type: 'string', default: '400' },
    warmup: { type: 'string', default: '40' },
    concurrency: { type: 'string', default: '4' },
    farms: { type: 'string', default: '8' },
    'list-parcels': { type: 'string', default: '10000' },
    'list-requests': { type: 'string', default: '15' },
  },
});
const ROUNDS = Number(args.rounds);
const BATCHES = Number(args.batches);
const WARMUP = Number(args.warmup);
const CONCURRENCY = Number(args.concurrency);
const FARMS = Number(args.farms);
const LIST_PARCELS = Number(args['list-parcels']);
const LIST_REQUESTS = Number(args['list-requests']);
if (CONCURRENCY % 2 !== 0) throw new Error('--concurrency must be even: the two-process run gives each process half');

type Setup = 'sqlite' | 'pg' | 'pg2';
const SETUPS: readonly Setup[] = ['sqlite', 'pg', 'pg2'];
const LABEL: Record<Setup, string> = { sqlite: 'SQLite, one process', pg: 'PostgreSQL, one process', pg2: 'PostgreSQL, two processes' };

interface Run {
  setup: Setup;
  parcels_per_s: number;
  p50_ms: number;
  p95_ms: number;
  /** CPU of the service process(es) and, on PostgreSQL, of the server's processes, per batch of the measured phase. */
  cpu_ms_per_batch: number;
  /** On PostgreSQL, the server's share of that. */
  db_cpu_ms_per_batch: number;
  /** GET /api/farms/{id}/parcels/ of a LIST_PARCELS farm (one process set-ups only). */
  list_p50_ms?: number;
  list_p95_ms?: number;
}

/** CPU seconds so far of the PostgreSQL server's processes (the postmaster's children: one backend a connection). */
function serverCpu(c: Cluster): Map<number, number> {
  const pm = postmasterPid(c);
  const out = new Map<number, number>([[pm, procCpuSeconds(pm)]]);
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (Number(statFields(`/proc/${d}/stat`)[1]) === pm) out.set(Number(d), procCpuSeconds(Number(d))); // ppid
    } catch { /* gone meanwhile */ }
  }
  return out;
}
const cpuSince = (before: Map<number, number>, after: Map<number, number>): number =>
  [...after].reduce((s, [pid, t]) => s + t - (before.get(pid) ?? 0), 0);

let dbCount = 0;

/** The service process(es) of a set-up on a fresh data directory (and, on PostgreSQL, a fresh database). */
async function start(setup: Setup, c: Cluster | null): Promise<{ dir: string; services: Child[] }> {
  const dir = tempDataDir(`stores-${setup}`);
  if (setup === 'sqlite') return { dir, services: [await startService(dir, { synchronous: 'FULL' })] };
  const url = await createDatabase(c!, `furrow_bench_${process.pid}_${++dbCount}`);
  // The service CLI (createTenant's create-org) finds the database here, as the tests' helpers do.
  writeFileSync(join(dir, '.database-url'), url);
  const services = [await startService(dir, { env: { DATABASE_URL: url } })];
  if (setup === 'pg2') services.push(await startService(dir, { env: { DATABASE_URL: url } }));
  return { dir, services };
}

/** `count` requests over several processes at once, CONCURRENCY connections in all, split evenly. */
async function spread(pools: Pool[], count: number, spec: (i: number) => RequestSpec, expected: number): Promise<LoadResult> {
  const share = Math.ceil(count / pools.length);
  const parts = await Promise.all(pools.map((p, k) => {
    const from = k * share;
    const n = Math.max(0, Math.min(share, count - from));
    return runLoad(p, n, (i) => spec(from + i), CONCURRENCY / pools.length, expected);
  }));
  const statuses: Record<string, number> = {};
  for (const r of parts) for (const [s, n] of Object.entries(r.statuses)) statuses[s] = (statuses[s] ?? 0) + n;
  return {
    requests: count, elapsed_ms: Math.max(...parts.map((r) => r.elapsed_ms)), latencies: parts.flatMap((r) => r.latencies), statuses,
    response_bytes: parts.reduce((s, r) => s + r.response_bytes, 0), first_error: parts.find((r) => r.first_error)?.first_error ?? null,
  };
}

function expectAll(what: string, r: LoadResult, status: number, count: number): void {
  if (r.statuses[String(status)] !== count) throw new Error(`${what}: ${JSON.stringify(r.statuses)}; first: ${r.first_error}`);
}

async function listed(p: Pool, tenant: Tenant, farmId: number): Promise<number> {
  const res = await p.request({ method: 'GET', path: `/api/farms/${farmId}/parcels/`, headers: tenant.headers });
  const body = await res.body.json() as { count: number };
  if (res.statusCode !== 200) throw new Error(`listing farm ${farmId}: ${res.statusCode}`);
  return body.count;
}

async function measure(setup: Setup, c: Cluster | null, round: number): Promise<Run> {
  const { dir, services } = await start(setup, c);
  const pools = services.map((s) => pool(s.url, CONCURRENCY / services.length));
  try {
    const tenant = await createTenant(dir, pools[0]!);
    const farmIds = await createFarms(pools[0]!, tenant, FARMS);
    // Each round its own parcels (seeds), the same for the three set-ups of a round.
    const set = makeBatches(WARMUP + BATCHES, farmIds, 1 + round * 10_000);
    const headers = { ...tenant.headers, 'content-type': 'application/json' };
    const post = (offset: number) => (i: number): RequestSpec => ({ method: 'POST', path: '/api/parcels/', headers, body: set.bodies[offset + i]! });
    expectAll('warm-up', await spread(pools, WARMUP, post(0), 201), 201, WARMUP);
    const serviceCpu = () => services.reduce((s, x) => s + procCpuSeconds(x.pid), 0);
    const cpu0 = serviceCpu();
    const db0 = c && setup !== 'sqlite' ? serverCpu(c) : null;
    const run = await spread(pools, BATCHES, post(WARMUP), 201);
    const dbCpu = db0 ? cpuSince(db0, serverCpu(c!)) : 0;
    const cpu = serviceCpu() - cpu0 + dbCpu;
    expectAll(`bulk create (${LABEL[setup]})`, run, 201, BATCHES);
    // Every batch stored once, whichever process took it.
    let stored = 0;
    for (const id of farmIds) stored += await listed(pools[0]!, tenant, id);
    if (stored !== (WARMUP + BATCHES) * BATCH_SIZE) throw new Error(`${LABEL[setup]}: ${stored} parcels stored, ${(WARMUP + BATCHES) * BATCH_SIZE} sent`);
    const latency = summarize(run.latencies);
    const result: Run = {
      setup, parcels_per_s: Math.round((BATCHES * BATCH_SIZE) / (run.elapsed_ms / 1000)), p50_ms: latency.p50_ms, p95_ms: latency.p95_ms,
      cpu_ms_per_batch: r1((cpu * 1000) / BATCHES), db_cpu_ms_per_batch: r1((dbCpu * 1000) / BATCHES),
    };
    if (setup !== 'pg2') Object.assign(result, await listing(pools[0]!, tenant));
    return result;
  } finally {
    for (const p of pools) await p.close();
    for (const s of services) await s.stop();
    removeDir(dir);
  }
}

/** A farm filled with LIST_PARCELS parcels, then its listing read whole, one request at a time on one connection. */
async function listing(p: Pool, tenant: Tenant): Promise<{ list_p50_ms: number; list_p95_ms: number }> {
  const [farmId] = await createFarms(p, tenant, 1) as [number];
  const batches = Math.ceil(LIST_PARCELS / BATCH_SIZE);
  const set = makeBatches(batches, [farmId], 500_000);
  const headers = { ...tenant.headers, 'content-type': 'application/json' };
  expectAll('filling the listed farm', await runLoad(p, batches, (i) => ({ method: 'POST', path: '/api/parcels/', headers, body: set.bodies[i]! }), CONCURRENCY / 2, 201), 201, batches);
  if (await listed(p, tenant, farmId) !== batches * BATCH_SIZE) throw new Error('the listed farm does not hold every parcel');
  const get: RequestSpec = { method: 'GET', path: `/api/farms/${farmId}/parcels/`, headers: tenant.headers };
  await runLoad(p, 3, () => get, 1, 200);
  const run = await runLoad(p, LIST_REQUESTS, () => get, 1, 200);
  expectAll('listing', run, 200, LIST_REQUESTS);
  const s = summarize(run.latencies);
  return { list_p50_ms: s.p50_ms, list_p95_ms: s.p95_ms };
}

async function main(): Promise<void> {
  const bin = findBinaries();
  const missing = missingPrerequisite(bin);
  if (!bin || missing) throw new Error(`${missing}: apt-get install ${PG_PACKAGES}`);
  const record = startResult('service-postgres', 'The service on PostgreSQL beside SQLite: bulk create, listing, two processes', `npm run bench -- service-postgres${ROUNDS !== 5 ? ` --rounds ${ROUNDS}` : ''}`);
  const c = newCluster('furrow-bench-pg-', bin);
  try {
    startCluster(c, { durable: true, maxConnections: 100 });
    await prepareTemplate(c);
    const runs: Record<Setup, Run[]> = { sqlite: [], pg: [], pg2: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // Rotated: each set-up goes first, second and third in turn, so none always meets a fresher machine.
      for (let k = 0; k < SETUPS.length; k++) {
        const setup = SETUPS[(round + k) % SETUPS.length]!;
        const r = await measure(setup, c, round);
        runs[setup].push(r);
        process.stderr.write(`  round ${round + 1} ${LABEL[setup]}: ${r.parcels_per_s} parcels/s${r.list_p50_ms !== undefined ? `, listing p50 ${r.list_p50_ms} ms` : ''}\n`);
      }
    }
    const col = (s: Setup, f: (r: Run) => number) => runs[s].map(f);
    const ratio = (a: number[], b: number[]): PairStats => pairStats(a, b);
    const pgVsSqlite = ratio(col('pg', (r) => r.parcels_per_s), col('sqlite', (r) => r.parcels_per_s));
    const twoVsOne = ratio(col('pg2', (r) => r.parcels_per_s), col('pg', (r) => r.parcels_per_s));
    const listPgVsSqlite = ratio(col('pg', (r) => r.list_p50_ms!), col('sqlite', (r) => r.list_p50_ms!));
    const cpuPgVsSqlite = ratio(col('pg', (r) => r.cpu_ms_per_batch), col('sqlite', (r) => r.cpu_ms_per_batch));
    const med = (s: Setup, f: (r: Run) => number) => r1(median(col(s, f)));
    const spreadOf = (p: PairStats) => `${p.median}× (${p.min}–${p.max})`;
    const result = record.finish({
      method: [
        `Each set-up runs the service as child processes on 127.0.0.1 with a fresh data directory and, on PostgreSQL, a fresh database (DATABASE_URL; PG_POOL_MAX 10, the default). The organization comes from the service CLI, the account and ${FARMS} farms from the HTTP API.`,
        `Bulk create: ${WARMUP} warm-up then ${BATCHES} measured POST /api/parcels/ of ${BATCH_SIZE} parcels (the batches of service-bulk: polygons of 10–50 vertices, a few points, 5 metadata keys) spread round-robin over the farms, from this process over ${CONCURRENCY} undici keep-alive connections, closed loop. Two processes: the same ${CONCURRENCY} connections split ${CONCURRENCY / 2} and ${CONCURRENCY / 2}, each process taking half the batches; throughput counts until the last batch of both. After each run every farm is listed and must hold every parcel sent, exactly once.`,
        `Listing (one-process set-ups): another farm is filled with ${LIST_PARCELS.toLocaleString('en-US')} parcels, then GET /api/farms/{id}/parcels/ is read whole ${LIST_REQUESTS} times (after 3 warm-up reads) on one connection, one request at a time.`,
        'Durability alike: SQLite with synchronous=FULL (the WAL synced at every commit); a PostgreSQL 15 cluster made for the run (initdb in a temporary directory, Unix socket), its defaults kept: fsync and synchronous_commit on (the WAL flushed at every commit), shared_buffers 128 MB. The cluster, the service processes and this load generator share the machine\'s cores.',
        `${ROUNDS} rounds of the three set-ups, the order rotated each round; each round sends its own generated parcels, the same to the three. Ratios are the median of the per-round ratios, with min and max.`,
        'CPU per batch: the service process(es) from /proc and, on PostgreSQL, the server\'s processes (the postmaster and its backends), over the measured phase.',
      ],
      metrics: [
        metric('Bulk create, SQLite (median of rounds)', med('sqlite', (r) => r.parcels_per_s), 'parcels/s'),
        metric('Bulk create, PostgreSQL, one process', med('pg', (r) => r.parcels_per_s), 'parcels/s'),
        metric('Bulk create, PostgreSQL, two processes on one database', med('pg2', (r) => r.parcels_per_s), 'parcels/s'),
        metric('PostgreSQL ÷ SQLite bulk-create throughput, median round ratio', pgVsSqlite.median, '×'),
        metric('Two processes ÷ one on PostgreSQL, median round ratio', twoVsOne.median, '×'),
        metric(`Listing of a ${LIST_PARCELS.toLocaleString('en-US')}-parcel farm, p50, SQLite`, med('sqlite', (r) => r.list_p50_ms!), 'ms'),
        metric(`Listing of a ${LIST_PARCELS.toLocaleString('en-US')}-parcel farm, p50, PostgreSQL`, med('pg', (r) => r.list_p50_ms!), 'ms'),
        metric('PostgreSQL ÷ SQLite listing p50, median round ratio', listPgVsSqlite.median, '×'),
      ],
      tables: [{
        title: 'Every run (median of the rounds in the last rows)',
        columns: ['round', 'set-up', 'parcels/s', 'batch p50 ms', 'batch p95 ms', 'CPU ms per batch (service + database)', 'of which database', 'listing p50 ms', 'listing p95 ms'],
        rows: [
          ...Array.from({ length: ROUNDS }, (_, i) => SETUPS.map((s) => {
            const r = runs[s][i]!;
            return [i + 1, LABEL[s], r.parcels_per_s, r.p50_ms, r.p95_ms, r.cpu_ms_per_batch, s === 'sqlite' ? '—' : r.db_cpu_ms_per_batch, r.list_p50_ms ?? '—', r.list_p95_ms ?? '—'];
          })).flat(),
          ...SETUPS.map((s) => ['median', LABEL[s], med(s, (r) => r.parcels_per_s), med(s, (r) => r.p50_ms), med(s, (r) => r.p95_ms), med(s, (r) => r.cpu_ms_per_batch),
            s === 'sqlite' ? '—' : med(s, (r) => r.db_cpu_ms_per_batch), s === 'pg2' ? '—' : med(s, (r) => r.list_p50_ms!), s === 'pg2' ? '—' : med(s, (r) => r.list_p95_ms!)]),
        ],
      }, {
        title: 'Ratios over the rounds',
        columns: ['ratio', 'median (min–max)', 'per round'],
        rows: [
          ['PostgreSQL ÷ SQLite, bulk-create throughput', spreadOf(pgVsSqlite), pgVsSqlite.ratios.join(', ')],
          ['Two processes ÷ one, on PostgreSQL, bulk-create throughput', spreadOf(twoVsOne), twoVsOne.ratios.join(', ')],
          ['PostgreSQL ÷ SQLite, CPU per batch (service + database)', spreadOf(cpuPgVsSqlite), cpuPgVsSqlite.ratios.join(', ')],
          ['PostgreSQL ÷ SQLite, listing p50', spreadOf(listPgVsSqlite), listPgVsSqlite.ratios.join(', ')],
        ],
      }],
      notes: [
        'On this 2-core machine a second service process cannot add a core: the service processes, the PostgreSQL backends and the load generator already share both. What two processes show here is that batches from both stay atomic and the throughput holds; the gain of more processes needs a machine (or machines) with cores to spare, as docs/deploy.md says.',
        'On PostgreSQL a batch is one transaction that locks its account and farm rows (the per-account parcel limit and the farm totals stay exact across processes): batches to the same farm queue on its row; spread over farms, as here, they overlap.',
      ],
      details: { runs, ratios: { pg_vs_sqlite: pgVsSqlite, two_vs_one: twoVsOne, list_pg_vs_sqlite: listPgVsSqlite, cpu_pg_vs_sqlite: cpuPgVsSqlite }, rounds: ROUNDS, batches: BATCHES, warmup: WARMUP, concurrency: CONCURRENCY, farms: FARMS, list_parcels: LIST_PARCELS },
    });
    process.stderr.write(`  PostgreSQL ÷ SQLite ${spreadOf(pgVsSqlite)}; two ÷ one ${spreadOf(twoVsOne)}; listing ${spreadOf(listPgVsSqlite)}\n  wrote ${writeResult(result)}\n`);
  } finally {
    stopCluster(c);
  }
}

await main();
