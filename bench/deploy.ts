// The reference deployment (deploy/, issue 34): bulk create through HAProxy with 1, 2 and 4 service processes
// behind it, with the CPU each part spends per batch (from which the scaling on a machine with free cores follows);
// the added latency of the balancer and of PgBouncer (p50/p99); the farm listing read from the standby beside the
// primary, as the service serves it (READ_DATABASE_URL) and as the bare query. One deployment with 4 processes, durable (PostgreSQL's defaults: the WAL flushed at every commit,
// asynchronous replication); the number of processes taking requests is set through HAProxy's stats socket, the
// others kept idle in maintenance, so that every set-up shares the same database, warmed the same way.
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { Pool } from 'undici';
import { balancerCommand, serverStats } from '../deploy/haproxy.ts';
import { defaults, down, up, type Deployment } from '../deploy/deployment.ts';
import { bouncerPid } from '../deploy/pgbouncer.ts';
import { adminQuery, DATABASE, nodePids, type PgNode, SERVICE_ROLE } from '../deploy/postgres.ts';
import { PARCEL_COLUMNS } from '../service/store/postgres/farm-scope.ts';
import { READ_AFTER_HEADER, READ_AFTER_PRIMARY, READ_FROM_HEADER } from '../core/read-after.ts';
import { BATCH_SIZE, makeBatches } from './lib/parcels.ts';
import { pool, runLoad, type LoadResult, type RequestSpec } from './lib/load.ts';
import { createFarms, type Tenant } from './lib/service.ts';
import { procCpuSeconds } from './lib/machine.ts';
import { pairStats } from './lib/pairs.ts';
import { median, r1, summarize } from './lib/stats.ts';
import { metric, startResult, writeResult } from './lib/result.ts';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    batches: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '8' },
    farms: { type: 'string', default: '8' },
    'list-parcels': { type: 'string', default: '10000' },
    samples: { type: 'string', default: '400' },
    'list-samples': { type: 'string', default: '40' },
  },
});
const ROUNDS = Number(args.rounds);
const BATCHES = Number(args.batches);
const WARMUP = Number(args.warmup);
const CONCURRENCY = Number(args.concurrency);
const FARMS = Number(args.farms);
const LIST_PARCELS = Number(args['list-parcels']);
const SAMPLES = Number(args.samples);
/** Reads of the whole listing per node: each is ~10,000 rows, so far fewer than the small calls. */
const LIST_SAMPLES = Number(args['list-samples']);
const COUNTS = [1, 2, 4] as const;
const READ_MAX_LAG_MS = 10_000;

/** CPU seconds so far of a PostgreSQL node's processes (the postmaster and its children: backends, WAL sender…). */
const nodeCpu = (node: PgNode): Map<number, number> => new Map(nodePids(node).map((pid) => [pid, procCpuSeconds(pid)]));
const cpuSince = (before: Map<number, number>, after: Map<number, number>) => [...after].reduce((s, [pid, t]) => s + t - (before.get(pid) ?? 0), 0);

/** Only the first `n` processes take requests: the others in maintenance (HAProxy sends them nothing). */
async function activate(d: Deployment, n: number): Promise<void> {
  for (let i = 0; i < d.services.length; i++) await balancerCommand(d.balancer, `set server services/s${i + 1} state ${i < n ? 'ready' : 'maint'}`);
  for (const deadline = Date.now() + 10_000; ;) {
    const st = await serverStats(d.balancer);
    if (st.every((s, i) => (i < n ? s.status === 'UP' : s.status.startsWith('MAINT')))) return;
    if (Date.now() > deadline) throw new Error(`HAProxy servers not as asked: ${st.map((s) => s.status).join(', ')}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

interface Run { processes: number; parcels_per_s: number; p50_ms: number; p99_ms: number; service_ms: number[]; db_ms: number; standby_ms: number; bouncer_ms: number; balancer_ms: number }

async function bulk(d: Deployment, p: Pool, tenant: Tenant, farms: number[], n: number, round: number): Promise<Run> {
  await activate(d, n);
  const set = makeBatches(WARMUP + BATCHES, farms, 1 + round * 10_000 + n * 1_000);
  const headers = { ...tenant.headers, 'content-type': 'application/json' };
  const post = (offset: number) => (i: number): RequestSpec => ({ method: 'POST', path: '/api/parcels/', headers, body: set.bodies[offset + i]! });
  expectAll('warm-up', await runLoad(p, WARMUP, post(0), CONCURRENCY, 201), WARMUP);
  const pids = d.services.map((s) => s.pid!);
  const svc0 = pids.map((pid) => procCpuSeconds(pid));
  const [db0, sb0] = [nodeCpu(d.primary), nodeCpu(d.standby)];
  const bp = bouncerPid(d.bouncer)!;
  const hp = Number(readFileSync(join(d.balancer.dir, 'haproxy.pid'), 'utf8').trim().split('\n')[0]);
  const [b0, h0] = [procCpuSeconds(bp), procCpuSeconds(hp)];
  const run = await runLoad(p, BATCHES, post(WARMUP), CONCURRENCY, 201);
  const perBatch = (s: number) => r1((s * 1000) / BATCHES);
  const result: Run = {
    processes: n, parcels_per_s: Math.round((BATCHES * BATCH_SIZE) / (run.elapsed_ms / 1000)),
    p50_ms: summarize(run.latencies).p50_ms, p99_ms: summarize(run.latencies).p99_ms,
    service_ms: pids.slice(0, n).map((pid, i) => perBatch(procCpuSeconds(pid) - svc0[i]!)),
    db_ms: perBatch(cpuSince(db0, nodeCpu(d.primary))), standby_ms: perBatch(cpuSince(sb0, nodeCpu(d.standby))),
    bouncer_ms: perBatch(procCpuSeconds(bp) - b0), balancer_ms: perBatch(procCpuSeconds(hp) - h0),
  };
  expectAll(`bulk create, ${n} processes`, run, BATCHES);
  return result;
}

function expectAll(what: string, r: LoadResult, count: number): void {
  if (r.statuses['201'] !== count) throw new Error(`${what}: ${JSON.stringify(r.statuses)}; first: ${r.first_error}`);
}

/**
 * Paired blocks, alternating which goes first: `a` and `b` each time samples/10 sequential calls. Latencies of all
 * blocks pooled per side, and the ratio of each pair of blocks' medians.
 */
async function paired(a: () => Promise<void>, b: () => Promise<void>, samples = SAMPLES): Promise<{ a: number[]; b: number[]; ratios: ReturnType<typeof pairStats> }> {
  const la: number[] = [];
  const lb: number[] = [];
  const ma: number[] = [];
  const mb: number[] = [];
  const block = async (f: () => Promise<void>, into: number[], meds: number[]) => {
    const part: number[] = [];
    for (let i = 0; i < samples / 10; i++) {
      const t = performance.now();
      await f();
      part.push(performance.now() - t);
    }
    into.push(...part);
    meds.push(median(part));
  };
  for (let k = 0; k < 10; k++) {
    if (k % 2 === 0) { await block(a, la, ma); await block(b, lb, mb); } else { await block(b, lb, mb); await block(a, la, ma); }
  }
  return { a: la, b: lb, ratios: pairStats(ma, mb) };
}

async function main(): Promise<void> {
  const record = startResult('deploy', 'The reference deployment: processes behind HAProxy, PgBouncer, a standby', 'npm run bench -- deploy');
  const parent = mkdtempSync('/tmp/furrow-bench-deploy-');
  chmodSync(parent, 0o711);
  const dir = join(parent, 'deployment');
  const clients: pg.Client[] = [];
  try {
    // A lag bound far above what a loaded machine can delay the standby's poll by: the listing from the standby measures
    // what a read there costs, and must not turn into a read on the primary halfway (each answer is checked).
    const d = await up({ ...defaults(dir), services: 4, demo: true, readMaxLagMs: READ_MAX_LAG_MS });
    process.env.PGPASSFILE = d.passfile; // this process's own clients read the password from the file too
    const tenant: Tenant = { organizationId: d.demo!.organization_id!, apiKey: d.demo!.api_key!, accountId: d.demo!.account_id!,
      headers: { 'x-api-key': d.demo!.api_key!, 'service-account': d.demo!.account_id! } };
    const lb = pool(d.url, CONCURRENCY);
    const farms = await createFarms(lb, tenant, FARMS);
    const runs: Run[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < COUNTS.length; k++) {
        const r = await bulk(d, lb, tenant, farms, COUNTS[(round + k) % COUNTS.length]!, round);
        runs.push(r);
        process.stderr.write(`  round ${round + 1}, ${r.processes} process(es): ${r.parcels_per_s} parcels/s\n`);
      }
    }
    // Latency of the balancer: the same small GET to process 1 directly and through HAProxy (only process 1 active).
    await activate(d, 1);
    const direct = pool(`http://127.0.0.1:${d.services[0]!.port}`, 1);
    const get = (p: Pool) => async () => {
      const res = await p.request({ method: 'GET', path: '/api/farms/', headers: tenant.headers });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`GET /api/farms/: ${res.statusCode}`);
    };
    const one = pool(d.url, 1);
    const bal = await paired(get(one), get(direct));
    // Latency of PgBouncer: SELECT 1 over TCP as the service's role, to the primary directly and through PgBouncer.
    const client = async (port: number) => {
      const c = new pg.Client({ host: '127.0.0.1', port, user: SERVICE_ROLE, database: DATABASE });
      clients.push(c);
      await c.connect();
      return c;
    };
    const [viaBouncer, toPrimary, toStandby] = [await client(d.bouncer.port), await client(d.primary.port), await client(d.standby.port)];
    const bouncer = await paired(async () => { await viaBouncer.query('SELECT 1'); }, async () => { await toPrimary.query('SELECT 1'); });
    // The listing's rows of a LIST_PARCELS farm, read whole on the standby and on the primary.
    const [listFarm] = await createFarms(lb, tenant, 1) as [number];
    const fill = makeBatches(Math.ceil(LIST_PARCELS / BATCH_SIZE), [listFarm], 900_000);
    const headers = { ...tenant.headers, 'content-type': 'application/json' };
    expectAll('filling the listed farm', await runLoad(lb, fill.bodies.length, (i) => ({ method: 'POST', path: '/api/parcels/', headers, body: fill.bodies[i]! }), CONCURRENCY, 201), fill.bodies.length);
    const [{ lsn }] = await adminQuery<{ lsn: string }>(d.primary, 'SELECT pg_current_wal_lsn()::text AS lsn') as [{ lsn: string }];
    while ((await adminQuery<{ ok: boolean }>(d.standby, 'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [lsn]))[0]!.ok !== true) await new Promise((ok) => setTimeout(ok, 50));
    const listSql = `SELECT ${PARCEL_COLUMNS} FROM parcels p WHERE p.organization_id = $1 AND p.farm_id = $2 ORDER BY p.id`;
    const list = (c: pg.Client) => async () => {
      const r = await c.query(listSql, [tenant.organizationId, listFarm]);
      if (r.rows.length !== fill.bodies.length * BATCH_SIZE) throw new Error(`listing read ${r.rows.length} rows`);
    };
    const listing = await paired(list(toStandby), list(toPrimary), LIST_SAMPLES);
    // The same listing through HAProxy and one service process, read from the standby (a client that has not written)
    // and from the primary (the header a client sends after a write it got no answer to): the whole request, body
    // included, the same process and connection on both sides; each answer says which database served it.
    const served = (from: 'standby' | 'primary') => async () => {
      const res = await one.request({ method: 'GET', path: `/api/farms/${listFarm}/parcels/`,
        headers: { ...tenant.headers, ...(from === 'primary' ? { [READ_AFTER_HEADER]: READ_AFTER_PRIMARY } : {}) } });
      const body = await res.body.text();
      if (res.statusCode !== 200 || res.headers[READ_FROM_HEADER] !== from) throw new Error(`listing: ${res.statusCode}, read from ${String(res.headers[READ_FROM_HEADER])}, not the ${from}`);
      if (!body.includes(`"count":${fill.bodies.length * BATCH_SIZE}`)) throw new Error('listing: not every parcel');
    };
    const httpListing = await paired(served('standby'), served('primary'), LIST_SAMPLES);
    for (const p of [lb, direct, one]) await p.close();

    const s = (xs: number[]) => summarize(xs);
    const byN = (n: number) => runs.filter((r) => r.processes === n);
    const med = (n: number, f: (r: Run) => number) => r1(median(byN(n).map(f)));
    const scaling = (n: number) => pairStats(byN(n).map((r) => r.parcels_per_s), byN(1).map((r) => r.parcels_per_s));
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const cpuPerBatch = (r: Run) => sum(r.service_ms) + r.db_ms + r.standby_ms + r.bouncer_ms + r.balancer_ms;
    const result = record.finish({
      method: [
        `deploy/deployment.ts starts the deployment as npm run deploy:up does: a PostgreSQL 15 primary with its defaults (fsync, synchronous_commit on) and an asynchronous streaming standby, PgBouncer 1.18 in transaction mode (20 server connections), 4 service processes (PG_POOL_MAX 10) behind HAProxy 2.6, all on this machine's ${cpus().length} cores with the load generator.`,
        `Bulk create: ${WARMUP} warm-up then ${BATCHES} measured POST /api/parcels/ of ${BATCH_SIZE} parcels (the batches of service-bulk) over ${FARMS} farms, through HAProxy on ${CONCURRENCY} keep-alive connections, closed loop, with 1, 2 or 4 processes taking requests (the others in HAProxy maintenance, idle), the order rotated each of ${ROUNDS} rounds.`,
        'CPU per batch from /proc over the measured phase: each service process, the primary (postmaster and its children: backends, WAL writer, WAL sender), the standby (WAL receiver and replay), PgBouncer, HAProxy.',
        `Balancer latency: GET /api/farms/ of the demo account (one farm list) on one connection, ${SAMPLES} calls through HAProxy and ${SAMPLES} straight to the process, in 10 alternating blocks each. PgBouncer latency: SELECT 1 as the service's role over TCP, through PgBouncer and straight to the primary, likewise.`,
        `Listing: the rows of GET /api/farms/{id}/parcels/ for a farm of ${LIST_PARCELS.toLocaleString('en-US')} parcels (the store's columns, one query), read whole ${LIST_SAMPLES} times on the standby and on the primary, in 10 alternating blocks, once the standby had replayed the fill.`,
        `Listing as served: GET /api/farms/{id}/parcels/ of that farm through HAProxy to one service process (READ_DATABASE_URL = the standby, READ_MAX_LAG_MS ${READ_MAX_LAG_MS}: on this loaded machine the default 1,000 let a late poll send a read to the primary), ${LIST_SAMPLES} times without ${READ_AFTER_HEADER} (served by the standby) and ${LIST_SAMPLES} times with \`${READ_AFTER_HEADER}: ${READ_AFTER_PRIMARY}\` (served by the primary), in 10 alternating blocks on one keep-alive connection; every answer's ${READ_FROM_HEADER} checked.`,
      ],
      metrics: [
        ...COUNTS.map((n) => metric(`Bulk create through HAProxy, ${n} process${n > 1 ? 'es' : ''} (median of rounds)`, med(n, (r) => r.parcels_per_s), 'parcels/s')),
        metric('4 processes ÷ 1, median round ratio', scaling(4).median, '×'),
        metric('CPU per batch, 1 process: service', med(1, (r) => sum(r.service_ms)), 'ms'),
        metric('CPU per batch, 1 process: primary database', med(1, (r) => r.db_ms), 'ms'),
        metric('HAProxy added latency, p50', r1(s(bal.a).p50_ms - s(bal.b).p50_ms), 'ms'),
        metric('HAProxy added latency, p99', r1(s(bal.a).p99_ms - s(bal.b).p99_ms), 'ms'),
        metric('PgBouncer added latency, p50', r1(s(bouncer.a).p50_ms - s(bouncer.b).p50_ms), 'ms'),
        metric('PgBouncer added latency, p99', r1(s(bouncer.a).p99_ms - s(bouncer.b).p99_ms), 'ms'),
        metric(`Listing rows of ${LIST_PARCELS.toLocaleString('en-US')} parcels, standby ÷ primary (median block ratio)`, listing.ratios.median, '×'),
        metric(`GET /api/farms/{id}/parcels/ of ${LIST_PARCELS.toLocaleString('en-US')} parcels from the standby, p50`, s(httpListing.a).p50_ms, 'ms'),
        metric(`GET /api/farms/{id}/parcels/ of ${LIST_PARCELS.toLocaleString('en-US')} parcels from the primary, p50`, s(httpListing.b).p50_ms, 'ms'),
        metric('GET /api/farms/{id}/parcels/, standby ÷ primary (median block ratio)', httpListing.ratios.median, '×'),
      ],
      tables: [{
        title: 'Bulk create, every run: CPU milliseconds per batch of each part',
        columns: ['round', 'processes', 'parcels/s', 'batch p50 ms', 'batch p99 ms', 'each service process', 'primary', 'standby', 'PgBouncer', 'HAProxy', 'all'],
        rows: runs.map((r, i) => [Math.floor(i / COUNTS.length) + 1, r.processes, r.parcels_per_s, r.p50_ms, r.p99_ms, r.service_ms.join(' / '), r.db_ms, r.standby_ms, r.bouncer_ms, r.balancer_ms, r1(cpuPerBatch(r))]),
      }, {
        title: 'Latencies (ms)',
        columns: ['what', 'p50', 'p99', 'block-median ratio (min–max)'],
        rows: [
          ['GET /api/farms/ through HAProxy', s(bal.a).p50_ms, s(bal.a).p99_ms, `${bal.ratios.median}× (${bal.ratios.min}–${bal.ratios.max})`],
          ['GET /api/farms/ straight to the process', s(bal.b).p50_ms, s(bal.b).p99_ms, ''],
          ['SELECT 1 through PgBouncer', s(bouncer.a).p50_ms, s(bouncer.a).p99_ms, `${bouncer.ratios.median}× (${bouncer.ratios.min}–${bouncer.ratios.max})`],
          ['SELECT 1 straight to the primary', s(bouncer.b).p50_ms, s(bouncer.b).p99_ms, ''],
          ['listing rows on the standby', s(listing.a).p50_ms, s(listing.a).p99_ms, `${listing.ratios.median}× (${listing.ratios.min}–${listing.ratios.max})`],
          ['listing rows on the primary', s(listing.b).p50_ms, s(listing.b).p99_ms, ''],
          ['GET /api/farms/{id}/parcels/ served by the standby', s(httpListing.a).p50_ms, s(httpListing.a).p99_ms, `${httpListing.ratios.median}× (${httpListing.ratios.min}–${httpListing.ratios.max})`],
          ['GET /api/farms/{id}/parcels/ served by the primary', s(httpListing.b).p50_ms, s(httpListing.b).p99_ms, ''],
        ],
      }],
      notes: [
        `This machine has ${cpus().length} cores, shared by the service processes, PostgreSQL (primary and standby), PgBouncer, HAProxy and the load generator (and, while measured, by other users' work: see the load average): more processes cannot add a core, so the throughput across 1, 2 and 4 processes shows only that it holds. The scaling on a machine with free cores follows from the CPU per batch: each process spends the "each service process" figure per batch and the database the "primary" figure, so with a core per process the processes scale until the database's cores are busy, at about (database cores × 1000 ÷ primary ms) batches per second.`,
        'Each "each service process" figure is that process\'s CPU over the run divided by all the run\'s batches: their sum is the service\'s CPU per batch. When the machine is loaded by other work, more processes can raise the throughput even on 2 cores: they are more runnable threads in the scheduler\'s share, not more cores; the CPU per batch is the figure that carries to other machines.',
        'The listing from the standby costs the primary nothing: on this one machine both nodes share the same cores, so the ratio shows what a read on the standby costs itself (its snapshot on a hot standby, the same plan); on separate hosts the standby takes that work off the primary. The service adds a few queries per second per process to measure the standby\'s lag (store/postgres/standby.ts) and one query per write for its WAL position.',
      ],
      details: { runs, balancer: { through: s(bal.a), direct: s(bal.b), ratios: bal.ratios }, bouncer: { through: s(bouncer.a), direct: s(bouncer.b), ratios: bouncer.ratios },
        listing: { standby: s(listing.a), primary: s(listing.b), ratios: listing.ratios },
        servedListing: { standby: s(httpListing.a), primary: s(httpListing.b), ratios: httpListing.ratios }, scaling: { two: scaling(2), four: scaling(4) }, rounds: ROUNDS, batches: BATCHES, concurrency: CONCURRENCY },
    });
    process.stderr.write(`  wrote ${writeResult(result)}\n`);
  } finally {
    for (const c of clients) await c.end().catch(() => undefined);
    await down(dir, { purge: true });
    rmSync(parent, { recursive: true, force: true });
  }
}

await main();
