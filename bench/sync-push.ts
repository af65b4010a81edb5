// Sync push as a user runs it: `npm run -s cli -- push` of 20,000 new parcels, a whole process from spawn to exit,
// against a bare loop — also a whole process — posting the same 50-parcel request bodies with as many in flight as
// the engine keeps (two), over the same HTTP client. The ratio is everything the engine adds: start-up, opening the
// mirror, reading the outbox, building bodies, marking batches in flight durably, booking the answers.
//
// The service runs on this machine, and on 2 cores a client's CPU is taken from the service. So two set-ups, both
// sides alike in each: pairs with the service on one core and the client (the CLI, or the bare loop) on the other —
// the client alone on its core as with a remote service, but the service confined to one core — which say whether the
// CLI keeps up with the service (the target); and pairs with everything sharing both cores, as a user runs the CLI
// against the local service, which say what the client's CPU costs the service there (reported, with what a process
// that only burns CPU at the lowest priority costs the bare loop on this machine, for scale).
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { Pool } from 'undici';
import { Mirror } from '../db/mirror.ts';
import type { ParcelRow } from '../db/types.ts';
import { SyncEngine } from '../sync/engine.ts';
import { clientFactory } from '../sync/client-factory.ts';
import { saveCredentials } from '../sync/credentials.ts';
import { parcelInput, parcelStateOfRow } from '../sync/state.ts';
import { defaultSyncOptions } from '../sync/context.ts';
import { MAX_PARCELS_PER_REQUEST } from '../core/parcels/validate.ts';
import { BATCH_SIZE, makeParcels, type ParcelShape } from './lib/parcels.ts';
import { canPin, createFarms, createTenant, removeDir, startService, tempDataDir, type Child, type Tenant } from './lib/service.ts';
import { ROOT } from './lib/paths.ts';
import { timedProcess } from './lib/timed-process.ts';
import { procCpuSeconds } from './lib/machine.ts';
import { median, r1, r3 } from './lib/stats.ts';
import { describePairs, interleaved } from './lib/pairs.ts';
import { latestProfile, summarizeProfile, type Frame, leafKind } from './lib/profile.ts';
import { metric, startResult, writeResult, type Table } from './lib/result.ts';

const { values: args } = parseArgs({
  options: {
    parcels: { type: 'string', default: '20000' },
    /**
     * Pairs with the service on CPU 0 and the client on CPU 1 (the headline); unpinned when taskset is missing. 15: on
     * one machine and one commit, medians of 7 pairs ranged 1.02–1.14 from run to run.
     */
    pairs: { type: 'string', default: '15' },
    /** Further pairs with the service and the client sharing every core. */
    'shared-pairs': { type: 'string', default: '5' },
    /** Sharing every core: pairs of the bare loop beside a busy loop at nice 19 and alone, for scale. */
    'interference-pairs': { type: 'string', default: '3' },
    /** After the pairs: one more CLI push under node --cpu-prof, summarized by where its time went. */
    profile: { type: 'boolean', default: false },
    /** The polygons pushed: `irregular` (10–50 vertices) or `squares` (5 positions, the least the service validates). */
    shape: { type: 'string', default: 'irregular' },
    /** With --profile: also copy the .cpuprofile here (for DevTools or a closer look). */
    'profile-out': { type: 'string' },
  },
});
const PARCELS = Math.ceil(Number(args.parcels) / BATCH_SIZE) * BATCH_SIZE;
const BATCHES = PARCELS / BATCH_SIZE;
const PAIRS = Number(args.pairs);
const SHARED_PAIRS = Number(args['shared-pairs']);
const INTERFERENCE_PAIRS = Number(args['interference-pairs']);
/** Service on CPU 0, client on CPU 1; undefined: everything everywhere (shared pairs, or no taskset here). */
interface Cpus { service?: string; client?: string }
const PIN = canPin();
const PINNED: Cpus = PIN ? { service: '0', client: '1' } : {};
const SHARED: Cpus = {};
const IN_FLIGHT = defaultSyncOptions().pushWindow;
const CLI = resolve(ROOT, 'scripts/cli.mjs');
const BARE = resolve(ROOT, 'bench/lib/bare-push.mjs');

/** The same parcels every pair: seeded batches of 50 (polygons of 10–50 vertices, ~8 % points, 5 metadata keys). */
const inputs: unknown[] = [];
const SHAPE = args.shape as ParcelShape;
if (SHAPE !== 'irregular' && SHAPE !== 'squares') throw new Error('--shape is irregular or squares');
for (let i = 0; i < BATCHES; i++) inputs.push(...makeParcels(1 + i, BATCH_SIZE, SHAPE));

interface Side { svc: Child; dir: string; tenant: Tenant; pool: Pool }

async function freshService(tag: string, cpus: Cpus): Promise<Side> {
  const dir = tempDataDir(tag);
  const svc = await startService(dir, { cpus: cpus.service });
  const pool = new Pool(svc.url, { connections: 1 });
  try {
    return { svc, dir, tenant: await createTenant(dir, pool), pool };
  } catch (err) {
    await svc.stop();
    throw err;
  }
}

async function stop(s: Side): Promise<void> {
  await s.pool.close();
  await s.svc.stop();
  removeDir(s.dir);
}

async function serviceCount(s: Side, farmId: number): Promise<number> {
  const res = await s.pool.request({ method: 'GET', path: `/api/farms/${farmId}/parcels/`, headers: s.tenant.headers });
  const body = JSON.parse(await res.body.text()) as { features?: unknown[] };
  return body.features?.length ?? -1;
}

interface Fixture { engine: Side & { home: string; farmLocalId: string; farmId: number }; bare: Side & { bodies: string; farmId: number }; cpus: Cpus }

/** Not timed: both services, the CLI's home with the account, its farm synced and the parcels queued; the bare loop's bodies. */
async function prepare(cpus: Cpus): Promise<Fixture> {
  const e = await freshService('sync-push-engine', cpus);
  const home = tempDataDir('sync-push-home');
  const mirror = Mirror.open(join(home, 'mirror.db'));
  let farmLocalId: string;
  let farmId: number;
  let rows: ParcelRow[];
  try {
    const accountId = e.tenant.accountId;
    saveCredentials(home, accountId, { method: 'api_key', apiKey: e.tenant.apiKey });
    mirror.write.addAccount({ id: accountId, service_url: e.svc.url, mode: 'api_key', label: 'bench' });
    farmLocalId = mirror.write.createFarm(accountId, 'Bench push farm').local_id;
    await new SyncEngine(mirror, clientFactory({ [accountId]: { method: 'api_key', apiKey: e.tenant.apiKey } })).sync({ push: true, pull: false });
    farmId = mirror.read.farm(farmLocalId)!.server_id!;
    const { created } = mirror.write.createParcels(farmLocalId, inputs, { label: 'bench parcels' });
    if (created.length !== PARCELS) throw new Error(`createParcels created ${created.length}`);
    rows = mirror.syncDb.prepare('SELECT * FROM parcels WHERE farm_local_id = ? ORDER BY rowid').all(farmLocalId) as ParcelRow[];
  } finally {
    mirror.close();
  }
  lastRows = rows;
  return { engine: { ...e, home, farmLocalId, farmId }, bare: await bareFixture(cpus, rows), cpus };
}

/** The rows of the last CLI fixture: the interference pairs post the same bodies. */
let lastRows: ParcelRow[] = [];

/** A fresh service with one empty farm, and the request bodies of these rows for it. */
async function bareFixture(cpus: Cpus, rows: readonly ParcelRow[]): Promise<Fixture['bare']> {
  const b = await freshService('sync-push-bare', cpus);
  try {
    const [bareFarm] = await createFarms(b.pool, b.tenant, 1) as [number];
    // The engine's bodies: parcelInput of each row (furrow_ref included), in its batches, only the farm id differs.
    const lines: string[] = [];
    for (let i = 0; i < rows.length; i += MAX_PARCELS_PER_REQUEST) {
      lines.push(JSON.stringify({ farm: { id: bareFarm }, parcels: rows.slice(i, i + MAX_PARCELS_PER_REQUEST).map((r) => parcelInput(r.local_id, parcelStateOfRow(r))) }));
    }
    const bodies = join(b.dir, 'bodies.jsonl');
    writeFileSync(bodies, `${lines.join('\n')}\n`);
    return { ...b, bodies, farmId: bareFarm };
  } catch (err) {
    await stop(b);
    throw err;
  }
}

interface Run { value: number; cpu_s: number; out: string; service_cpu_s?: number }

/** A process from spawn to exit (bench/lib/timed-process.ts); a failure tells its error, not the progress lines. */
const timed = (argv: string[], env: NodeJS.ProcessEnv = {}, cpus?: string): Promise<Run> =>
  timedProcess(argv, env, cpus, (o) => o.split('\n').filter((l) => !/ parcels \d+\//.test(l)).join('\n'));

async function engineSide(f: Fixture): Promise<Run> {
  const svc0 = procCpuSeconds(f.engine.svc.pid);
  const r = await timed([CLI, 'push'], { FURROW_HOME: f.engine.home }, f.cpus.client);
  r.service_cpu_s = r3(procCpuSeconds(f.engine.svc.pid) - svc0);
  const db = new Database(join(f.engine.home, 'mirror.db'), { readonly: true });
  const withIds = db.prepare('SELECT count(*) FROM parcels WHERE farm_local_id = ? AND server_id IS NOT NULL').pluck().get(f.engine.farmLocalId) as number;
  const open = db.prepare("SELECT count(*) FROM outbox WHERE state <> 'committed'").pluck().get() as number;
  db.close();
  const held = await serviceCount(f.engine, f.engine.farmId);
  if (withIds !== PARCELS || open !== 0 || held !== PARCELS) throw new Error(`push: ${withIds} rows with server ids, ${open} open ops, ${held} on the service\n${r.out}`);
  return r;
}

async function bareSide(f: Pick<Fixture, 'bare' | 'cpus'>): Promise<Run> {
  const svc0 = procCpuSeconds(f.bare.svc.pid);
  const r = await timed([BARE, f.bare.svc.url, f.bare.bodies, JSON.stringify(f.bare.tenant.headers), String(IN_FLIGHT)], {}, f.cpus.client);
  r.service_cpu_s = r3(procCpuSeconds(f.bare.svc.pid) - svc0);
  const held = await serviceCount(f.bare, f.bare.farmId);
  if (held !== PARCELS) throw new Error(`bare loop: the service holds ${held} parcels`);
  return r;
}

/**
 * The bare loop with a process beside it that only burns CPU, at the lowest priority (nice 19): what any CPU spent
 * beside the service costs it on this machine, whatever the scheduler's priorities say. Its CPU is not counted.
 */
async function bareBesideBusyLoop(f: Pick<Fixture, 'bare' | 'cpus'>): Promise<Run> {
  const busy: ChildProcess = spawn('nice', ['-n', '19', process.execPath, '-e', 'for(;;){}'], { stdio: 'ignore' });
  const gone = new Promise((r) => busy.once('exit', r));
  try {
    await new Promise((r) => setTimeout(r, 100)); // running before the bare loop starts
    return await bareSide(f);
  } finally {
    busy.kill('SIGKILL');
    await gone; // reaped before the next run reads its children's CPU time
  }
}

/** Which part of the CLI a profile sample belongs to; the stack comes leaf first. */
function classify(stack: Frame[]): string {
  const kind = leafKind(stack, 'waiting for the service');
  if (kind) return kind;
  const has = (fn: string) => stack.some((f) => f.fn === fn);
  if (has('markBatch')) return 'markBatch: each batch marked in flight by one row before its request (SQLite)';
  if (has('commitCreated')) return 'commitCreated: server ids into the rows, ops committed with their batch\'s mark (SQLite)';
  if (has('validItems')) return 'preparing the next batch (validItems)';
  if (has('parcelsToSend')) return 'parcelsToSend: reading the rows of the next group (SQLite)';
  if (has('take')) return 'PushPlan.take: reading the outbox a page at a time (SQLite)';
  if (has('scanCreated')) return 'scanCreated: each 201 scanned for the ids';
  if (has('commitWithoutFsync') || has('sqliteTransaction')) return 'commits (SQLite: WAL frames, checkpoints)';
  if (has('expectShape')) return 'response schema check (expectShape)';
  if (has('call') || has('send')) return 'HTTP client (undici, JSON of the answer)';
  if (has('pushParcelCreates')) return 'pushParcelCreates: reading and grouping the rows, the batch loop';
  if (stack.some((f) => f.url.includes('undici'))) return 'undici (socket I/O, response parsing)';
  if (stack.some((f) => f.url.startsWith('node:internal/modules') || f.fn === 'compileSourceTextModule')) return 'start-up: loading modules';
  if (has('open') && stack.some((f) => f.url.includes('mirror'))) return 'opening the mirror';
  return 'Node / other';
}

// Each shape has a result of its own (sync-push, sync-push-squares), so that both stand in docs/benchmarks.md.
const record = startResult(SHAPE === 'squares' ? 'sync-push-squares' : 'sync-push', `Sync push: ${PARCELS.toLocaleString('en-US')} parcels${SHAPE === 'squares' ? ' drawn as 5-vertex squares' : ''}, \`npm run -s cli -- push\` against a bare loop of the same requests, whole processes`,
  `npm run bench -- sync-push${SHAPE === 'squares' ? ' --shape squares' : ''}${args.profile ? ' --profile' : ''}`);
const { ensureBuilt } = await import('../scripts/build.mjs');
await ensureBuilt(); // a user's first start builds dist/; every later one (and every timed run here) does not

/** A pair's fixtures, gone: both services stopped, their data and the CLI's home removed. */
async function release(f: Fixture): Promise<void> {
  await stop(f.engine);
  await stop(f.bare);
  removeDir(f.engine.home);
}

/** `pairs` interleaved pairs on `cpus`, each with fixtures of its own, stopped and removed once measured. */
function runPairs(pairs: number, cpus: Cpus, tag: string) {
  return interleaved(pairs, () => prepare(cpus), engineSide, bareSide,
    (side, pair, r) => process.stderr.write(`  ${tag} pair ${pair + 1} ${side === 'a' ? 'cli push' : 'bare loop'}: ${r.value} ms, ${r.cpu_s} s CPU\n`), release);
}

const result = await runPairs(PAIRS, PINNED, PIN ? 'pinned' : 'shared');
const shared = PIN && SHARED_PAIRS > 0 ? await runPairs(SHARED_PAIRS, SHARED, 'shared') : null;
/** Two fresh services with the same bodies, sharing the cores: one for the bare loop beside a busy loop, one alone. */
async function interferenceFixture(): Promise<{ beside: Fixture['bare']; alone: Fixture['bare'] }> {
  const beside = await bareFixture(SHARED, lastRows);
  try {
    return { beside, alone: await bareFixture(SHARED, lastRows) };
  } catch (err) {
    await stop(beside);
    throw err;
  }
}
/** The bare loop beside a busy loop at nice 19 (a) against the bare loop alone (b). */
const interference = INTERFERENCE_PAIRS > 0
  ? await interleaved(INTERFERENCE_PAIRS, interferenceFixture,
    (f) => bareBesideBusyLoop({ bare: f.beside, cpus: SHARED }), (f) => bareSide({ bare: f.alone, cpus: SHARED }),
    (side, pair, r) => process.stderr.write(`  interference pair ${pair + 1} bare loop ${side === 'a' ? 'beside a busy loop at nice 19' : 'alone'}: ${r.value} ms\n`),
    async (f) => { await stop(f.beside); await stop(f.alone); })
  : null;

let profile: Table[] = [];
if (args.profile) {
  const f = await prepare(PINNED);
  const dir = tempDataDir('sync-push-prof');
  try {
    const r = await timed(['--cpu-prof', '--cpu-prof-dir', dir, CLI, 'push'], { FURROW_HOME: f.engine.home }, f.cpus.client);
    const p = summarizeProfile(latestProfile(dir), classify, undefined, 30);
    if (args['profile-out']) copyFileSync(latestProfile(dir), args['profile-out']);
    profile = [{
      title: `Where the CLI's time goes: CPU profile of one more push (node --cpu-prof, ${r.value} ms under the profiler), whole process`,
      columns: ['Category', 'ms', 'ms per 50-parcel batch', 'share'],
      rows: p.categories.map((c) => [c.category, c.ms, r3(c.ms / BATCHES), `${c.share} %`]),
    }, { title: 'Top functions by self time in that profile', columns: ['Function', 'ms', 'share'], rows: p.top_self.slice(0, 15).map((c) => [c.function, c.ms, `${c.share} %`]) }];
  } finally {
    await release(f);
    removeDir(dir);
  }
}

const s = result.stats;
type Pairs = typeof result;
const pairsTable = (title: string, r: Pairs): Table => ({
  title,
  columns: ['pair', 'first', 'CLI push ms', 'bare loop ms', 'ratio', 'CLI CPU s', 'bare CPU s', 'service CPU s (CLI side)', 'service CPU s (bare side)'],
  rows: r.a.map((a, i) => [i + 1, i % 2 === 0 ? 'CLI' : 'bare', a.value, r.b[i]!.value, r.stats.ratios[i]!, a.cpu_s, r.b[i]!.cpu_s, a.service_cpu_s ?? 0, r.b[i]!.service_cpu_s ?? 0]),
});
const where = PIN ? 'the service on CPU 0, the client on CPU 1' : 'service and client sharing every core (taskset is not available here)';
const out = record.finish({
  method: [
    `Both sides are whole processes, timed from spawn to exit, each against its own fresh service (a child process, synchronous=FULL, a new DATA_DIR) holding one empty farm of a new account; pairs interleaved (push first in odd pairs, the bare loop first in even ones), a fresh pair of services and fixtures for each pair.`,
    `Where they run: first ${PAIRS} pairs with ${where}${PIN ? ' (taskset -c; every thread of the service — its request thread, validation workers, checkpoint thread, garbage collector — on its one core): the client has a core of its own, as with a remote service, but the service has one core instead of two, so it is slower than on this machine unconfined (compare the bare loop\'s throughput in both set-ups); these pairs say whether the CLI keeps up with a service of that speed' : ''}. Both sides of a pair run alike.${shared ? ` Then ${SHARED_PAIRS} pairs with service and client sharing both cores, as a user runs the CLI against the embedded local service: there each CPU second the client spends is taken from the service, so these pairs measure what the client's CPU costs the service rather than whether the client keeps up with it; they are reported without a target (see the notes).` : ''}${interference ? ` Last, for scale, ${INTERFERENCE_PAIRS} pairs sharing both cores of the bare loop beside a process that only burns CPU at the lowest priority (\`nice -n 19 node -e 'for(;;){}'\`) against the bare loop alone, a fresh service for each run.` : ''}`,
    `CLI side: \`node scripts/cli.mjs push\` (what \`npm run -s cli -- push\` runs, without npm's own start-up) with FURROW_HOME holding the connected account, its farm synced and ${PARCELS.toLocaleString('en-US')} parcels created with MirrorWriter.createParcels (${BATCHES} seeded batches of bench/lib/parcels.ts: ${SHAPE === 'squares' ? '5-vertex squares' : 'polygons of 10–50 vertices'}, ~8 % points, 5 metadata keys), all untimed. The CLI runs from the built JavaScript in dist/ (built before the first pair; scripts/cli.mjs rebuilds only after a source changed). Afterwards every parcel must have its server id, no outbox op may be open, and the service must hold ${PARCELS.toLocaleString('en-US')} parcels.`,
    `Bare side: \`node bench/lib/bare-push.mjs\`: reads the same ${BATCHES} request bodies (built untimed from the CLI side's rows with sync/state.ts parcelInput, furrow_ref included; only the farm id differs) from a file and posts them ${IN_FLIGHT} at a time over ${IN_FLIGHT} keep-alive connections with undici (the engine's client and the engine's window, SyncOptions.pushWindow ${IN_FLIGHT}; the engine's undici Agent, unlimited per origin, opened a third connection in a push traced with strace, with never more than ${IN_FLIGHT} requests in flight), checking each 201; the service must then hold them all.`,
    'Before every timed run, `sync` writes out what the fixtures left dirty in the page cache (a 20,000-parcel mirror, two services\' databases, the bodies file), so that the kernel\'s flusher does not write it during either side\'s run (without it, pair ratios of one run on 2026-11-26 spread over 0.97–1.53).',
    'Durability differs, and in the bare loop\'s favour: the CLI marks each batch in flight in its mirror (one row per batch, db/batch-marks.ts; fsynced) before sending it and books each answer (the ids into each row, each op committed); the bare loop keeps nothing.',
    'The ratio is CLI wall time ÷ bare loop wall time of each pair; the median of the pairs is reported with its minimum and maximum.',
  ],
  metrics: [
    metric(`CLI push ÷ bare loop, wall time, whole processes, ${IN_FLIGHT} in flight, ${PIN ? 'client and service on a core each' : 'shared cores'} (median of ${PAIRS} pairs)`, s.median, '×', { op: '<=', value: 1.1 }),
    metric('Pair ratio, lowest', s.min, '×'),
    metric('Pair ratio, highest', s.max, '×'),
    ...(shared ? [
      metric(`CLI push ÷ bare loop, wall time, whole processes, ${IN_FLIGHT} in flight, client and service sharing both cores (median of ${SHARED_PAIRS} pairs)`, shared.stats.median, '×'),
      metric('Shared cores: pair ratio, lowest', shared.stats.min, '×'),
      metric('Shared cores: pair ratio, highest', shared.stats.max, '×'),
    ] : []),
    ...(interference ? [
      metric(`Bare loop beside a busy loop at nice 19 ÷ bare loop alone, sharing both cores (median of ${INTERFERENCE_PAIRS} pairs)`, interference.stats.median, '×'),
    ] : []),
    metric(`CLI push of ${PARCELS.toLocaleString('en-US')} parcels, wall time (median run${PIN ? ', pinned' : ''})`, r1(median(result.a.map((r) => r.value))), 'ms'),
    metric(`Bare loop, wall time (median run${PIN ? ', pinned' : ''})`, r1(median(result.b.map((r) => r.value))), 'ms'),
    metric(`Bare loop throughput${PIN ? ', the service on one core' : ''} (median run)`, Math.round(PARCELS / (median(result.b.map((r) => r.value)) / 1000)), 'parcels/s'),
    ...(shared ? [metric('Bare loop throughput, the service sharing both cores (median run)', Math.round(PARCELS / (median(shared.b.map((r) => r.value)) / 1000)), 'parcels/s')] : []),
    metric(`CLI push, CPU time of the process (median run${PIN ? ', pinned' : ''})`, r3(median(result.a.map((r) => r.cpu_s))), 's'),
    metric(`Bare loop, CPU time of the process (median run${PIN ? ', pinned' : ''})`, r3(median(result.b.map((r) => r.cpu_s))), 's'),
    metric(`Service, CPU time while the CLI pushes (median run${PIN ? ', pinned' : ''})`, r3(median(result.a.map((r) => r.service_cpu_s ?? 0))), 's'),
  ],
  tables: [
    pairsTable(`Every pair, ${where}`, result),
    ...(shared ? [pairsTable('Every pair, service and client sharing both cores', shared)] : []),
    ...(interference ? [{
      title: 'Every pair of the bare loop beside a busy loop at nice 19 and alone, sharing both cores',
      columns: ['pair', 'first', 'beside the busy loop ms', 'alone ms', 'ratio', 'service CPU s (beside)', 'service CPU s (alone)'],
      rows: interference.a.map((a, i) => [i + 1, i % 2 === 0 ? 'beside' : 'alone', a.value, interference.b[i]!.value, interference.stats.ratios[i]!, a.service_cpu_s ?? 0, interference.b[i]!.service_cpu_s ?? 0]),
    }] : []),
    ...profile,
  ],
  notes: [
    `Ratio ${describePairs(s)}${shared ? `; sharing both cores ${describePairs(shared.stats)}` : ''}${interference ? `; the bare loop beside a busy loop at nice 19 ${describePairs(interference.stats)} its time alone` : ''}.`,
    'Why the target is the pinned pairs\' and the shared-core ratio is reported without one (the issue asks for the push "within 1.1× of a bare loop … at the same concurrency", that the push reach the wire): with a core of its own the client is measured on whether it keeps the service busy, which is what a remote service sees. Sharing 2 cores with a local service, the ratio is set by how much CPU the client spends, and on this machine any CPU spent beside the service slows it, whatever its priority (the busy-loop pairs above). An investigation on 2026-11-27 (not this run) bounded what a client could reach there: the CLI patched to write nothing to its mirror per batch — no in-flight marks, no ids booked, every op settled by one statement at the end, which no crash-safe client can do — still measured 1.09× sharing the cores (4 pairs, 1.03–1.25; its CPU 1.1 s against the bare loop\'s 0.6: it still reads each row, builds each body and reads each answer for its ids, which the bare loop, posting bodies prepared in a file and checking only the status, does not). Any client that records what it sent stays above that, so on this machine 1.1× sharing 2 cores is out of reach for a push that cannot lose or duplicate work; the gap is reported so that it is watched, with the CPU columns that explain it.',
    'What the CLI adds beyond the requests is CPU: reading each row, marking each batch in flight and booking each answer in SQLite, scanning each 201 for the ids (compare the CPU columns; a profile: `--profile`). What follows comes from an investigation with strace and CPU profiles on 2026-11-26, not from this run. With a core of its own, the client costs wall time where its one thread is busy when an answer arrives, for longer than the service takes over the one request it has waiting (about 10 ms): reading and marking a group (a few ms a step), booking answers, formerly the WAL checkpoints inside its commits (now on a thread of their own) and, found on 2026-11-27 by tracing the requests through undici\'s diagnostics channels, requests already handed to the HTTP client: undici writes a request on a kept-alive socket a turn or two of the event loop later, and a step begun in between held it (3 ms at the 90th percentile); the steps now wait for those writes (ServiceClient.written), and the time with a single request at the service fell from ~0.7 s of the push to ~0.3 s (the bare loop\'s: ~0.12 s); and serially, before the first request (start-up, the plan, the first mark and its fsync; 50–80 ms more than the bare loop, which reads its bodies from a file) and after the last answer (the last bookings and their fsync, the mirror\'s closing checkpoint and the removal of its WAL: 55–80 ms against the bare loop\'s 2–4). Not the client\'s disk (with its mirror on tmpfs the ratio stayed), nor the client\'s core slowing the service\'s: a busy loop on the client\'s core left the service\'s CPU time for the bare loop\'s requests unchanged. Sharing 2 cores, each CPU second the client spends beyond the bare loop\'s is taken from the service (its request thread, validation workers, WAL checkpoint thread and garbage collector): compare the CPU columns.',
    'Found on 2026-11-30 (not this run): booking the ids, each UPDATE of a row\'s server_id fired migration 014\'s trigger parcels_totals_au (farm_totals counts the parcels the service has), and SQLite ran the trigger\'s program for every row whatever its WHEN said: the 400 bookings of a 20,000-square push took ~450 ms of CPU with it and ~305 ms with the count kept per batch instead (migration 015, db/op-transitions.ts bookCreated; the real bookCreated of both commits, interleaved, load 6–7); the CLI\'s CPU beyond the bare loop\'s, median of 12 interleaved pinned pairs each at load 7–11, went from 1.15 s to 1.00 s (the wall ratios of those pairs, 1.20× and 1.19×, spread 0.88–2.1, said nothing at that load). In the squares\' pinned pairs of 2026-11-30 00:55 the service also spent more CPU serving the CLI than the bare loop (median 0.10 s a pair, −0.27 to +0.45), not yet explained: a service log of both showed the same requests (only the POSTs, the same headers asked), so more likely its idle gaps than its work.',
    'Found on 2026-11-30 (not this run), where the squares push loses its time, with the pinned set-up of this benchmark. (1) Timestamps of the service\'s own request handling (onRequest to onResponse of each POST, 2 quiet runs a side, load ~2): against the CLI the service was busy 2,261–2,403 ms, idle between requests 183–216 ms, and the first request came, or the last answer left, 288–301 ms from spawn and exit; against the bare loop 2,077–2,185, 62–68 and 196–206 ms. So about half the gap is the service itself running slower beside the CLI (the same requests, the CLI using its other core: its CPU is 2–3× the bare loop\'s), a third the service waiting for the next request (27 waits over 2 ms against 4–6), and the rest start-up. With the CLI\'s mirror on tmpfs the service was still busier beside the CLI in one run of two (2,451 against 2,143 ms; 2,500 against 2,648 in the other): no sign that it is the shared disk. (2) The floor for any client on this machine: the CLI patched to write nothing to its mirror per batch (no in-flight marks, no bookings; every op left queued, which no crash-safe client can do) measured 1.073× and 1.093× (3 pairs each, 0.873–1.188), alternating with the real CLI at 1.277× and 1.123× (1.086–1.35); its CPU was still 1.35–1.86 s against the bare loop\'s 0.66–0.9 s: start-up, reading the rows, building the bodies and scanning the answers. The mirror\'s writes are about a fifth of the CLI\'s CPU; the rest is what a client that sends rows from a database and keeps what it was given must do, so 1.1× on any day needs that part cheaper too, not only fewer writes.',
    'Found later on 2026-11-30 (not this run), with each POST\'s start and finish timed in the service (Node\'s HTTP diagnostics channels, preloaded) and each request and answer in the client (undici\'s), 20,000 squares, pinned, quiet (load 1.2–2.1). (1) Beside the bare loop the service waited 28–60 ms in all for its next request; beside the CLI 117–174 ms (median 154) before this commit\'s changes and 79–133 (median 96) after, in 8 interleaved pairs. What the CLI\'s one thread was doing when an answer waited: early, a full collection (10–21 ms) as the young generation grew step by step under a push\'s surviving groups, now grown at once (cli/v8-flags.ts); the next group\'s fsync, when both requests were answered before it came, now started a group earlier (sync/parcel-creates.ts); scavenges (2–6 ms, about every 230 ms); and, at the first answers, the checkpoint thread starting on the same core. (2) The service group-commits the batches whose validation finished in the same turn (service/store/sqlite/group-commit.ts), so a request that arrives late also costs it a shared fsync: with 3 in flight instead of 2 the bare loop took 1.73–2.0 s instead of ~2.2, the CLI did not keep up (1.222×, 8 pairs, its thread ~65 % busy), and the engine keeps 2. (3) The disk: a process beside the bare loop making 70 fsyncs of 128 KiB slowed it 1.068× (median of 8 pairs, 0.81–1.76); the CLI with its mirror on tmpfs took 0.963× the time it took on the disk (8 pairs, 0.70–1.11); a push of 20,000 squares wrote 96 MB (73 of them WAL) and now writes 79 (56), its committed ops no longer given their batch\'s id and send time (db/batch-marks.ts).',
    'Found in the evening of 2026-11-30 (not this run), pinned as here, 20,000 squares, load 1.2–2.8. (1) Where the spread of the pairs comes from: in a pair the side whose service spent more CPU time was nearly always the slower one, and the service\'s CPU time for the same 400 requests went from 1.41 s to 2.42 s run to run; a pair ratio is largely the host\'s speed during each of its two runs. (2) CPU spent beside the service slows it even from the other core: the bare loop beside a process burning CPU at SCHED_IDLE on the client\'s core (it takes only what the client leaves idle) took 1.125× its time alone (6 pairs, 1.02–1.36), and with client and service both on CPU 0 and the burner on CPU 1, 1.061× (0.89–1.13); the same burner left a compute loop on CPU 0, an fsync loop and a loopback ping-pong as fast as alone. So what the CLI spends beyond the bare loop (1.2–1.5 s of CPU against 0.55–0.75) costs the service even with a core of its own, and moving the SQLite work to a second thread on the same core would not take it away: only less CPU does. (3) Room for the ids in each unsynced row (migration 017, db/rows.ts ID_ROOM_BYTES): booking 20,000 squares takes ~10 % less CPU and WAL, and the parcels table no longer splits its pages (715 pages before and after instead of 664 -> 774); its effect on the wall ratio is below what 8 pairs resolve on this machine (median B/A 0.997, 0.69–1.14). (4) The checkpoint thread\'s close returns once its connection is closed, not once the thread has exited (platform/node/checkpointer.ts): last answer to exit 25 against 29 ms (medians of 8 interleaved pairs). (5) Tried and dropped: the CLI\'s young generation at 1 MB a semi-space (its allocations kept in its own core\'s cache): B/A 1.054, the service idle 180 against 132 ms. (6) Not explained yet: a second harness (each side with a service of its own started just before its run, both set up through the engine) measured the CLI at 1.00–1.04× the bare loop in 3 runs of 5–8 pairs, while this benchmark measured 1.12–1.15× in 3 runs the same evening; setting up the bare loop\'s service through the engine too (1.152×, 10 pairs) or stopping each service once its run was checked (1.118×, 10 pairs) did not close the gap.',
  ],
  details: { parcels: PARCELS, batches: BATCHES, in_flight: IN_FLIGHT, pinned: PIN, cli_ms: result.a.map((r) => r.value), bare_ms: result.b.map((r) => r.value), ratios: s.ratios, ...(shared ? { shared_ratios: shared.stats.ratios } : {}), ...(interference ? { interference_ratios: interference.stats.ratios } : {}) },
});
process.stderr.write(`  ratio ${describePairs(s)}${shared ? `; shared cores ${describePairs(shared.stats)}` : ''}${interference ? `; bare loop beside a busy loop ${describePairs(interference.stats)}` : ''}\n  wrote ${writeResult(out)}\n`);
