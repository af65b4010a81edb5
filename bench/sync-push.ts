// Sync push: the engine sending 10,000 new parcels to the real service (a child process), against a bare loop
// that posts the same prepared request bodies one after another and does nothing else. The ratio of the two wall
// times is the engine's overhead: outbox bookkeeping, local validation, response checks, writing the ids back.
import { parseArgs } from 'node:util';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import { Mirror } from '../db/mirror.ts';
import type { ParcelRow } from '../db/types.ts';
import { SyncEngine, type SyncReport } from '../sync/engine.ts';
import { clientFactory } from '../sync/client-factory.ts';
import { parcelInput, parcelStateOfRow } from '../sync/state.ts';
import { MAX_PARCELS_PER_REQUEST } from '../core/parcels/validate.ts';
import { BATCH_SIZE, makeParcels } from './lib/parcels.ts';
import { createFarms, createTenant, removeDir, startService, tempDataDir, type Child, type Tenant } from './lib/service.ts';
import { cpuWindow, type CpuWindow } from './lib/machine.ts';
import { BENCH_DIR, ROOT } from './lib/paths.ts';
import { r1, r3 } from './lib/stats.ts';
import { latestProfile, monotonicUs, summarizeProfile, type Frame, type ProfileSummary } from './lib/profile.ts';
import { metric, startResult, writeResult, type Table, type Target } from './lib/result.ts';

const { values: args } = parseArgs({
  options: {
    parcels: { type: 'string', default: '10000' },
    /** Engine runs and bare-loop runs, alternating (engine first); the best of each is reported. */
    runs: { type: 'string', default: '2' },
    /** After the measurement, one more engine run in a child process under node --cpu-prof, summarized. */
    profile: { type: 'boolean', default: false },
    /** Internal: run one engine run in this process and write its window to the given file (for --profile). */
    'child-engine': { type: 'string' },
  },
});
const PARCELS = Math.ceil(Number(args.parcels) / BATCH_SIZE) * BATCH_SIZE;
const BATCHES = PARCELS / BATCH_SIZE;
const RUNS = Number(args.runs);
const TARGET: Target = { op: '<=', value: 1.3 };

/** The same 10,000 parcels every run: seeded batches of 50 (polygons of 10–50 vertices, ~8 % points, 5 metadata keys). */
function parcelInputs(): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < BATCHES; i++) out.push(...makeParcels(1 + i));
  return out;
}

interface Service { svc: Child; dir: string; tenant: Tenant; pool: Pool }

async function freshService(tag: string): Promise<Service> {
  const dir = tempDataDir(tag);
  const svc = await startService(dir);
  const pool = new Pool(svc.url, { connections: 1, pipelining: 1 });
  try {
    const tenant = await createTenant(dir, pool);
    return { svc, dir, tenant, pool };
  } catch (err) {
    await svc.stop();
    throw err;
  }
}

async function stopService(s: Service): Promise<void> {
  await s.pool.close();
  await s.svc.stop();
  removeDir(s.dir);
}

/** How many parcels the service holds for a farm (untimed check after a run). */
async function serviceCount(s: Service, farmId: number): Promise<number> {
  const res = await s.pool.request({ method: 'GET', path: `/api/farms/${farmId}/parcels/`, headers: s.tenant.headers });
  const body = JSON.parse(await res.body.text()) as { features?: unknown[] };
  if (res.statusCode !== 200) throw new Error(`listing farm ${farmId}: ${res.statusCode}`);
  return body.features?.length ?? -1;
}

interface Run {
  /** engine: as shipped (2 batches in flight); engine-w1: pushWindow 1; bare: one request at a time; bare-w2: two at a time. */
  kind: 'engine' | 'engine-w1' | 'bare' | 'bare-w2';
  run: number;
  wall_ms: number;
  parcels_per_s: number;
  requests: number;
  cpu: CpuWindow;
  /** CPU ms per 50-parcel batch of this (client) process and of the service, from /proc. */
  client_cpu_ms_per_batch: number;
  service_cpu_ms_per_batch: number;
  window: { from_us: number; to_us: number };
}

interface EngineSetup { mirror: Mirror; mirrorDir: string; accountId: string; farmLocalId: string; farmServerId: number; rows: ParcelRow[] }

/** A fresh mirror: the account, a farm created and synced (so it has a server id), then the parcels (not timed). */
async function setupEngine(s: Service, inputs: readonly unknown[]): Promise<EngineSetup> {
  const mirrorDir = tempDataDir('sync-push-mirror');
  const mirror = Mirror.open(join(mirrorDir, 'mirror.db'));
  const accountId = s.tenant.accountId;
  mirror.write.addAccount({ id: accountId, service_url: s.svc.url, mode: 'api_key', label: 'bench' });
  const farm = mirror.write.createFarm(accountId, 'Bench push farm');
  const first = await new SyncEngine(mirror, engineClients(s)).sync({ push: true, pull: false });
  const farmServerId = mirror.read.farm(farm.local_id)?.server_id;
  if (!first.accounts[0]?.synced || farmServerId == null) throw new Error(`syncing the farm: ${JSON.stringify(first)}`);
  const { created, problems } = mirror.write.createParcels(farm.local_id, inputs, { label: 'bench parcels' });
  if (created.length !== inputs.length || problems.length) throw new Error(`createParcels: ${created.length} created, ${problems.length} problems`);
  const rows = mirror.syncDb.prepare('SELECT * FROM parcels WHERE farm_local_id = ? ORDER BY rowid').all(farm.local_id) as ParcelRow[];
  return { mirror, mirrorDir, accountId, farmLocalId: farm.local_id, farmServerId, rows };
}

const engineClients = (s: Service) => clientFactory({ [s.tenant.accountId]: { method: 'api_key', apiKey: s.tenant.apiKey } });

/** The measured engine run: from `new SyncEngine(…)` to sync() returning, then checks that every parcel is committed. */
async function engineRun(run: number, inputs: readonly unknown[], window?: number): Promise<{ run: Run; rows: ParcelRow[]; report: SyncReport }> {
  const s = await freshService('sync-push-engine');
  let setup: EngineSetup | undefined;
  try {
    setup = await setupEngine(s, inputs);
    const { mirror } = setup;
    const cpu = cpuWindow({ service: s.svc.pid, client: process.pid });
    const from = monotonicUs();
    const t0 = performance.now();
    const report = await new SyncEngine(mirror, engineClients(s), window ? { pushWindow: window } : {}).sync({ push: true, pull: false });
    const wall = performance.now() - t0;
    const to = monotonicUs();
    const cpuUsed = cpu.end();
    const acc = report.accounts[0]!;
    const committed = (mirror.syncDb.prepare('SELECT COUNT(*) AS n FROM parcels WHERE farm_local_id = ? AND server_id IS NOT NULL').get(setup.farmLocalId) as { n: number }).n;
    const open = mirror.read.outbox(setup.accountId).length;
    if (!acc.synced || acc.committed !== PARCELS || committed !== PARCELS || open !== 0) {
      throw new Error(`engine run: committed ${acc.committed} (report), ${committed} rows with server ids, ${open} open ops: ${JSON.stringify(acc)}`);
    }
    const held = await serviceCount(s, setup.farmServerId);
    if (held !== PARCELS) throw new Error(`engine run: the service holds ${held} parcels, expected ${PARCELS}`);
    return { run: toRun(window === 1 ? 'engine-w1' : 'engine', run, wall, acc.sent, cpuUsed, { from_us: from, to_us: to }), rows: setup.rows, report };
  } finally {
    setup?.mirror.close();
    if (setup) removeDir(setup.mirrorDir);
    await stopService(s);
  }
}

/** The request bodies the engine sends, built the same way (parcelInput of each row, with furrow_ref), in the same batches. */
function prepareBodies(rows: readonly ParcelRow[], farmId: number): string[] {
  const bodies: string[] = [];
  for (let i = 0; i < rows.length; i += MAX_PARCELS_PER_REQUEST) {
    const parcels = rows.slice(i, i + MAX_PARCELS_PER_REQUEST).map((r) => parcelInput(r.local_id, parcelStateOfRow(r)));
    bodies.push(JSON.stringify({ farm: { id: farmId }, parcels }));
  }
  return bodies;
}

/**
 * The bare loop: on its own fresh service, the prepared bodies posted one after another, each 201 awaited; with
 * `inFlight` 2, two at a time over two connections (what the engine's window does, with none of its work).
 */
async function bareRun(run: number, rows: readonly ParcelRow[], inFlight = 1): Promise<Run> {
  const s = await freshService('sync-push-bare');
  const pool = inFlight > 1 ? new Pool(s.svc.url, { connections: inFlight, pipelining: 1 }) : s.pool;
  try {
    const [farmId] = await createFarms(s.pool, s.tenant, 1) as [number];
    const bodies = prepareBodies(rows, farmId);
    const headers = { ...s.tenant.headers, 'content-type': 'application/json' };
    const cpu = cpuWindow({ service: s.svc.pid, client: process.pid });
    const from = monotonicUs();
    const t0 = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        const res = await pool.request({ method: 'POST', path: '/api/parcels/', headers, body });
        const text = await res.body.text();
        if (res.statusCode !== 201) throw new Error(`bare loop: ${res.statusCode} ${text.slice(0, 300)}`);
      }
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
    const wall = performance.now() - t0;
    const to = monotonicUs();
    const window = cpu.end();
    const held = await serviceCount(s, farmId);
    if (held !== PARCELS) throw new Error(`bare run: the service holds ${held} parcels, expected ${PARCELS}`);
    return toRun(inFlight > 1 ? 'bare-w2' : 'bare', run, wall, rows.length, window, { from_us: from, to_us: to }, bodies.length);
  } finally {
    if (pool !== s.pool) await pool.close();
    await stopService(s);
  }
}

function toRun(kind: Run['kind'], run: number, wall: number, parcels: number, cpu: CpuWindow, window: Run['window'], requests = Math.ceil(parcels / BATCH_SIZE)): Run {
  const perBatch = (cores: number | undefined) => r3(((cores ?? 0) * cpu.seconds * 1000) / BATCHES);
  return {
    kind, run, wall_ms: r1(wall), parcels_per_s: Math.round(PARCELS / (wall / 1000)), requests, cpu,
    client_cpu_ms_per_batch: perBatch(cpu.ours.client), service_cpu_ms_per_batch: perBatch(cpu.ours.service), window,
  };
}

/** Which part of the engine a profile sample belongs to; the stack comes leaf first. */
function classify(stack: Frame[]): string {
  const leaf = stack[0];
  if (!leaf) return 'other';
  if (leaf.fn === '(idle)') return 'idle (waiting for the service)';
  if (leaf.fn === '(garbage collector)') return 'garbage collection';
  if (leaf.fn === '(program)') return 'V8 / native, unattributed';
  const has = (fn: string) => stack.some((f) => f.fn === fn);
  if (has('markInFlight')) return 'markInFlight: outbox rows to in_flight before each request (SQLite)';
  if (has('commitCreated')) return 'commitCreated: server ids + base into the rows, ops committed (SQLite, JSON)';
  if (has('validItems')) return 'preparing the next batch: stamp check, request JSON (validItems; validateParcel for unstamped rows)';
  if (has('expectShape')) return 'response schema check (expectShape)';
  if (has('sendBatch') && (has('parcelInput') || has('parcelStateOfRow'))) return 'building the request body (parcelStateOfRow, parcelInput)';
  if (has('call')) return 'HTTP client (JSON.stringify of the body, undici, JSON.parse of the answer)';
  if (has('pushParcelCreates')) return 'pushParcelCreates: reading and grouping the rows (getRow per op), the batch loop';
  if (stack.some((f) => f.url.includes('undici'))) return 'undici (socket I/O, response parsing)';
  if (has('sync') || has('pushRound') || has('readyOps')) return 'engine bookkeeping (lock, readyOps, counts)';
  return 'Node / other';
}

/** --child-engine: one engine run in this process (started under --cpu-prof by the parent). */
async function childEngine(out: string): Promise<void> {
  const { run } = await engineRun(1, parcelInputs());
  const { writeFileSync } = await import('node:fs');
  writeFileSync(out, JSON.stringify(run));
}

async function profileEngine(): Promise<{ run: Run; profile: ProfileSummary }> {
  const dir = tempDataDir('sync-push-prof');
  try {
    const out = join(dir, 'run.json');
    const r = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, '--import', 'tsx', join(BENCH_DIR, 'sync-push.ts'), '--parcels', String(PARCELS), '--child-engine', out],
      { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) throw new Error(`profiled engine run exited with ${r.status ?? r.signal}`);
    const run = JSON.parse(readFileSync(out, 'utf8')) as Run;
    return { run, profile: summarizeProfile(latestProfile(dir), classify, run.window, 30) };
  } finally {
    removeDir(dir);
  }
}

async function main(): Promise<void> {
  if (args['child-engine']) {
    await childEngine(args['child-engine']);
    return;
  }
  const record = startResult('sync-push', 'Sync push: 10,000 parcels in 200 batches, engine vs a bare loop of the same requests',
    `npm run bench -- sync-push${args.profile ? ' --profile' : ''}`);
  const inputs = parcelInputs();
  const runs: Run[] = [];
  let bodyBytes = 0;
  let report: SyncReport | undefined;
  for (let i = 1; i <= RUNS; i++) {
    const e = await engineRun(i, inputs);
    runs.push(e.run);
    report ??= e.report;
    process.stderr.write(`  engine run ${i}: ${e.run.wall_ms} ms (${e.run.parcels_per_s} parcels/s), client CPU ${e.run.client_cpu_ms_per_batch} ms/batch\n`);
    // The bare loop posts the bodies built from this engine run's rows (same parcels, same local ids as furrow_ref).
    if (i === 1) bodyBytes = prepareBodies(e.rows, 1).reduce((s, b) => s + Buffer.byteLength(b), 0);
    const b = await bareRun(i, e.rows);
    runs.push(b);
    process.stderr.write(`  bare run ${i}: ${b.wall_ms} ms (${b.parcels_per_s} parcels/s), client CPU ${b.client_cpu_ms_per_batch} ms/batch\n`);
    // For context, not the target: the engine with one batch in flight, and the bare loop with two.
    const e1 = await engineRun(i, inputs, 1);
    runs.push(e1.run);
    process.stderr.write(`  engine (one batch in flight) run ${i}: ${e1.run.wall_ms} ms\n`);
    const b2 = await bareRun(i, e.rows, 2);
    runs.push(b2);
    process.stderr.write(`  bare (two in flight) run ${i}: ${b2.wall_ms} ms\n`);
  }
  const engine = runs.filter((r) => r.kind === 'engine');
  const bare = runs.filter((r) => r.kind === 'bare');
  const engineW1 = runs.filter((r) => r.kind === 'engine-w1');
  const bareW2 = runs.filter((r) => r.kind === 'bare-w2');
  const best = (rs: Run[]) => rs.reduce((a, b) => (b.wall_ms < a.wall_ms ? b : a));
  const bestEngine = best(engine);
  const bestBare = best(bare);
  const ratio = Math.round((bestEngine.wall_ms / bestBare.wall_ms) * 1000) / 1000;
  const pairRatios = engine.map((e, i) => Math.round((e.wall_ms / bare[i]!.wall_ms) * 1000) / 1000);
  const ratioOf = (a: Run[], b: Run[]) => Math.round((best(a).wall_ms / best(b).wall_ms) * 1000) / 1000;

  let profiled: { run: Run; profile: ProfileSummary } | null = null;
  if (args.profile) {
    profiled = await profileEngine();
    process.stderr.write(`  profiled engine run: ${profiled.run.wall_ms} ms\n`);
  }
  const extraMs = r1(bestEngine.wall_ms - bestBare.wall_ms);
  const tables: Table[] = [{
    title: 'Every run, in the order run (each on a fresh service)',
    columns: ['run', 'wall ms', 'parcels/s', 'requests', 'client CPU ms per batch', 'service CPU ms per batch', 'other processes (cores)'],
    rows: runs.map((r) => [`${r.kind} ${r.run}`, r.wall_ms, r.parcels_per_s, r.requests, r.client_cpu_ms_per_batch, r.service_cpu_ms_per_batch, r.cpu.others]),
  }];
  if (profiled) {
    tables.push({
      title: `Where the engine process spends its time: CPU profile of one more engine run (node --cpu-prof, ${profiled.run.wall_ms} ms under the profiler), sync() call only`,
      columns: ['Category', 'ms', 'ms per 50-parcel batch', 'share'],
      rows: profiled.profile.categories.map((c) => [c.category, c.ms, r3(c.ms / BATCHES), `${c.share} %`]),
    }, {
      title: 'Top functions by self time in that profile',
      columns: ['Function', 'ms', 'share'],
      rows: profiled.profile.top_self.slice(0, 15).map((c) => [c.function, c.ms, `${c.share} %`]),
    });
  }
  const result = record.finish({
    method: [
      `Each run starts the real service as a child process (\`node --import tsx service/cli.ts serve\`, synchronous=FULL) on a fresh DATA_DIR; the organization comes from the CLI, the account (and, for the bare loop, the farm) from the HTTP API.`,
      `Engine run: a fresh mirror file with the account, a farm created and synced (so it has a server id), then ${PARCELS.toLocaleString('en-US')} parcels created with MirrorWriter.createParcels (${BATCHES} seeded batches of bench/lib/parcels.ts: polygons of 10–50 vertices, ~8 % Point parcels with hectares, 5 metadata keys) — none of that timed. Timed: \`new SyncEngine(mirror, clientFactory(…), {}).sync({ push: true, pull: false })\` until it returns, in this process. Afterwards the report must say synced with ${PARCELS.toLocaleString('en-US')} committed, every row must have a server id, no op may be open, and the service's listing of the farm must hold ${PARCELS.toLocaleString('en-US')} parcels.`,
      `Bare loop: a second fresh service (a new DATA_DIR, so both sides start from the same empty state) and a farm created over HTTP. The ${BATCHES} request bodies are prepared before timing from the engine run's own rows with sync/state.ts parcelInput (furrow_ref included), in the engine's batches of ${MAX_PARCELS_PER_REQUEST}, with only the farm id changed; the loop posts them one after another over one undici keep-alive connection, reading each response and checking its 201, nothing else. Mean body ${Math.round(bodyBytes / BATCHES / 1024)} KiB.`,
      `The engine as shipped keeps two batches in flight (SyncOptions.pushWindow 2, over two keep-alive connections): the next batch is at the service while the engine books the last answer. Each batch is still marked in flight durably before it leaves and settles on its own.`,
      `${RUNS} rounds of: engine, bare loop, then for context the engine with pushWindow 1 and a bare loop with two requests in flight (two workers over a two-connection pool). Each kind reports its best (fastest) run; the target ratio is best engine ÷ best bare (one request at a time, as the issue defines it). The per-pair ratios are in the notes.`,
      'CPU per batch of this process (the client) and of the service comes from /proc over the timed phase.',
    ],
    metrics: [
      metric('Engine wall time ÷ bare loop wall time (best of each)', ratio, '×', TARGET),
      metric('Engine: wall time for 10,000 parcels (best)', bestEngine.wall_ms, 'ms'),
      metric('Engine: parcels per second', bestEngine.parcels_per_s, 'parcels/s'),
      metric('Bare loop: wall time for the same 200 requests (best)', bestBare.wall_ms, 'ms'),
      metric('Bare loop: parcels per second', bestBare.parcels_per_s, 'parcels/s'),
      metric('Engine: client CPU per 50-parcel batch', bestEngine.client_cpu_ms_per_batch, 'ms'),
      metric('Bare loop: client CPU per 50-parcel batch', bestBare.client_cpu_ms_per_batch, 'ms'),
      metric('Context: engine with one batch in flight (pushWindow 1) ÷ bare loop', ratioOf(engineW1, bare), '×'),
      metric('Context: engine ÷ a bare loop with two requests in flight', ratioOf(engine, bareW2), '×'),
      metric('Context: bare loop with two requests in flight, wall time (best)', best(bareW2).wall_ms, 'ms'),
    ],
    tables,
    notes: [
      `The engine took ${extraMs} ms more than the bare loop over ${BATCHES} requests (${r3(extraMs / BATCHES)} ms per batch).`,
      `Ratio of each pair (engine run i ÷ bare run i): ${pairRatios.join(', ')}.`,
      `Other processes used ${Math.max(...runs.map((r) => r.cpu.others))} cores at most during a timed phase (per run in the table).`,
      ...(report ? [`Engine report of run 1: sent ${report.accounts[0]?.sent}, committed ${report.accounts[0]?.committed}, rejected ${report.accounts[0]?.rejected}, left ${report.accounts[0]?.left}.`] : []),
    ],
    details: { parcels: PARCELS, batches: BATCHES, runs, ratio, pair_ratios: pairRatios, mean_body_bytes: Math.round(bodyBytes / BATCHES), profiled },
  });
  process.stderr.write(`  ratio ${ratio} (engine ${bestEngine.wall_ms} ms, bare ${bestBare.wall_ms} ms)\n  wrote ${writeResult(result)}\n`);
}

await main();
