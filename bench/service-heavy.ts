// Parcels at the vertex cap: (a) how long core takes to validate 50 of them (a comb, the shape that is quadratic
// for a sweep pruning only by x-range, and a dense field boundary), in process; (b) over real HTTP, the p99
// latency of another organization's ordinary 50-parcel batches while one organization posts heavy batches, as a
// ratio to their idle p99, idle and loaded phases interleaved in pairs.
import { parseArgs } from 'node:util';
import { validateParcels } from '../core/parcels/validate.ts';
import { findSelfIntersection } from '../core/geo/intersect.ts';
import { MAX_POSITIONS_PER_PARCEL } from '../core/parcels/limits.ts';
import type { PolygonCoords } from '../core/geo/types.ts';
import { configFromEnv } from '../service/config.ts';
import { heavyParcels, type HeavyShape } from './lib/heavy-parcels.ts';
import { BATCH_SIZE, bulkBody, makeBatches } from './lib/parcels.ts';
import { pool, runLoad, type LoadResult, type RequestSpec } from './lib/load.ts';
import { createFarms, createTenant, removeDir, startService, tempDataDir } from './lib/service.ts';
import { cpuWindow, type CpuWindow } from './lib/machine.ts';
import { median, r1, r3, summarize, type LatencySummary } from './lib/stats.ts';
import { metric, startResult, writeResult, type Metric, type Table, type Target } from './lib/result.ts';

const { values: args } = parseArgs({
  options: {
    /** Which half to run: inprocess, http or both. */
    part: { type: 'string', default: 'both' },
    /** Timed in-process passes per shape (after one untimed pass); the best counts. */
    passes: { type: 'string', default: '3' },
    pairs: { type: 'string', default: '5' },
    /** Small batches organization B sends per phase, one at a time. */
    samples: { type: 'string', default: '200' },
    /** Heavy batches organization A keeps in flight during a loaded phase. */
    heavy: { type: 'string', default: '1' },
    /** Extra environment for the service process, comma-separated KEY=VALUE (an experiment; the result records it). */
    'service-env': { type: 'string', default: '' },
  },
});
const PART = args.part;
const PASSES = Number(args.passes);
const PAIRS = Number(args.pairs);
const SAMPLES = Number(args.samples);
const HEAVY_IN_FLIGHT = Number(args.heavy);
const SERVICE_ENV: Record<string, string> = Object.fromEntries(args['service-env'].split(',').filter(Boolean).map((kv) => {
  const i = kv.indexOf('=');
  return [kv.slice(0, i), kv.slice(i + 1)];
}));
const RATIO_TARGET: Target = { op: '<=', value: 3 };
/**
 * The same script on the code before the O(n log n) sweep and the fair pool (commit 0528dbe; `--part inprocess
 * --passes 2`, and `--part http --pairs 1 --samples 50` with BODY_LIMIT_BYTES raised to 64 MiB, as the 8 MiB limit
 * of then refused the heavy bodies). A record of the past, not measured by this run.
 */
const BEFORE = [
  '2026-11-24, commit 0528dbe (x-range sweep, one validation worker, farms and PATCH validated on the request thread), load average 1.3: 50 combs validated in 9,012 ms (the self-intersection check alone 8,548 ms); 50 field boundaries in 447 ms (check alone 66 ms).',
  '2026-11-24, commit 0528dbe, load average 3.4, one pair of 50 batches: the other organization\'s p99 was 46.8 ms idle and 14,452 ms while heavy batches ran (×308); the farm-creation bodies held the request thread for seconds each.',
];
const SHAPES: HeavyShape[] = ['comb', 'field'];

interface InProcess {
  shape: HeavyShape;
  positions_per_parcel: number;
  /** validateParcels of the 50 parcels: structure, positions, self-intersection, holes, geodesic area. */
  validate_ms: number[];
  /** findSelfIntersection alone over the 50 rings. */
  intersect_ms: number[];
}

function timed(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

function inProcess(): InProcess[] {
  return SHAPES.map((shape) => {
    const parcels = heavyParcels(shape, 1);
    const rings = parcels.map((p) => (p.geom.geometry as { coordinates: PolygonCoords }).coordinates);
    const check = () => {
      const r = validateParcels(parcels, { maxHectares: 100 });
      if (r.problems.length || r.parcels.length !== parcels.length) throw new Error(`${shape}: ${r.problems[0]?.message ?? 'parcels missing'}`);
    };
    const sweep = () => {
      for (const c of rings) if (findSelfIntersection(c) !== null) throw new Error(`${shape}: a self-intersection in a valid ring`);
    };
    check(); // untimed: JIT warm-up
    const validate_ms: number[] = [];
    const intersect_ms: number[] = [];
    for (let i = 0; i < PASSES; i++) {
      validate_ms.push(r1(timed(check)));
      intersect_ms.push(r1(timed(sweep)));
    }
    process.stderr.write(`  in process, 50 × ${shape}: validate ${validate_ms.join(', ')} ms; sweep alone ${intersect_ms.join(', ')} ms\n`);
    return { shape, positions_per_parcel: rings[0]![0]!.length, validate_ms, intersect_ms };
  });
}

interface Pair {
  order: 'idle first' | 'loaded first';
  idle: LatencySummary;
  loaded: LatencySummary;
  ratio: number;
  /** B's statuses in the loaded phase (all must be 201). */
  loaded_statuses: Record<string, number>;
  heavy_batches: number;
  heavy_statuses: Record<string, number>;
  heavy_latency: LatencySummary | null;
  cpu_idle: CpuWindow;
  cpu_loaded: CpuWindow;
}

interface HttpPart {
  pairs: Pair[];
  heavy_body_mb: Record<string, number>;
  small_body_kb: number;
  validation_workers: string;
  body_limit_bytes: number;
}

async function http(): Promise<HttpPart> {
  const dir = tempDataDir('heavy');
  const env = { ...SERVICE_ENV };
  const config = configFromEnv({ ...process.env, ...env });
  const svc = await startService(dir, { env });
  try {
    // Separate connection pools, as two organizations' clients would have.
    const poolA = pool(svc.url, Math.max(1, HEAVY_IN_FLIGHT));
    const poolB = pool(svc.url, 1);
    const a = await createTenant(dir, poolA);
    const b = await createTenant(dir, poolB);
    const [farmA] = await createFarms(poolA, a, 1);
    const [farmB] = await createFarms(poolB, b, 1);
    const small = makeBatches(PAIRS * 2 * SAMPLES + 20, [farmB!]);
    const heavyJson = Object.fromEntries(SHAPES.map((s) => [s, JSON.stringify(heavyParcels(s, 1))])) as Record<HeavyShape, string>;
    // A alternates the two routes that take parcels and the two shapes: bulk create into its farm, and farm creation.
    const heavyBodies: { path: string; body: Buffer }[] = SHAPES.flatMap((s) => [
      { path: '/api/parcels/', body: Buffer.from(bulkBody(farmA!, heavyJson[s])) },
      { path: '/api/farms/', body: Buffer.from(`{"farm":{"name":"Heavy ${s}"},"parcels":${heavyJson[s]}}`) },
    ]);
    const headersA = { ...a.headers, 'content-type': 'application/json' };
    const headersB = { ...b.headers, 'content-type': 'application/json' };
    let nextSmall = 0;
    const smallSpec = (): RequestSpec => ({ method: 'POST', path: '/api/parcels/', headers: headersB, body: small.bodies[nextSmall++]! });
    const bPhase = async (): Promise<LoadResult> => runLoad(poolB, SAMPLES, smallSpec, 1, 201);

    let heavyNo = 0;
    const heavyLoop = () => {
      let stop = false;
      const latencies: number[] = [];
      const statuses: Record<string, number> = {};
      const one = async () => {
        while (!stop) {
          const h = heavyBodies[heavyNo++ % heavyBodies.length]!;
          const t0 = performance.now();
          try {
            const res = await poolA.request({ method: 'POST', path: h.path, headers: headersA, body: h.body });
            await res.body.arrayBuffer();
            statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
          } catch (err) {
            statuses[(err as Error).message] = (statuses[(err as Error).message] ?? 0) + 1;
          }
          latencies.push(performance.now() - t0);
        }
      };
      const running = Array.from({ length: HEAVY_IN_FLIGHT }, one);
      return { async end() { stop = true; await Promise.all(running); return { latencies, statuses }; } };
    };

    // Warm-up: B's path, and one heavy batch of each kind.
    const warm = await runLoad(poolB, 20, smallSpec, 1, 201);
    if (warm.statuses['201'] !== 20) throw new Error(`warm-up: ${JSON.stringify(warm.statuses)} ${warm.first_error}`);
    for (const h of heavyBodies) {
      const res = await poolA.request({ method: 'POST', path: h.path, headers: headersA, body: h.body });
      const text = await res.body.text();
      if (res.statusCode !== 201) throw new Error(`heavy warm-up ${h.path} → ${res.statusCode}: ${text.slice(0, 300)}`);
    }

    const pairs: Pair[] = [];
    for (let k = 0; k < PAIRS; k++) {
      const order = k % 2 === 0 ? 'idle first' : 'loaded first';
      let idle: LoadResult | undefined;
      let loaded: LoadResult | undefined;
      let cpuIdle: CpuWindow | undefined;
      let cpuLoaded: CpuWindow | undefined;
      let heavy: { latencies: number[]; statuses: Record<string, number> } | undefined;
      for (const phase of order === 'idle first' ? ['idle', 'loaded'] : ['loaded', 'idle']) {
        if (phase === 'idle') {
          const w = cpuWindow({ service: svc.pid, bench: process.pid });
          idle = await bPhase();
          cpuIdle = w.end();
        } else {
          const load = heavyLoop();
          // Let the first heavy body arrive, so B's first batch already meets it.
          await new Promise((r) => setTimeout(r, 150));
          const w = cpuWindow({ service: svc.pid, bench: process.pid });
          loaded = await bPhase();
          cpuLoaded = w.end();
          heavy = await load.end();
        }
      }
      const idleS = summarize(idle!.latencies);
      const loadedS = summarize(loaded!.latencies);
      if (idle!.statuses['201'] !== SAMPLES) throw new Error(`idle phase: ${JSON.stringify(idle!.statuses)} ${idle!.first_error}`);
      const pair: Pair = {
        order, idle: idleS, loaded: loadedS, ratio: r3(loadedS.p99_ms / idleS.p99_ms), loaded_statuses: loaded!.statuses,
        heavy_batches: heavy!.latencies.length, heavy_statuses: heavy!.statuses,
        heavy_latency: heavy!.latencies.length ? summarize(heavy!.latencies) : null, cpu_idle: cpuIdle!, cpu_loaded: cpuLoaded!,
      };
      pairs.push(pair);
      process.stderr.write(`  pair ${k + 1} (${order}): B p99 idle ${idleS.p99_ms} ms, loaded ${loadedS.p99_ms} ms (×${pair.ratio}); B statuses ${JSON.stringify(loaded!.statuses)}; A ${pair.heavy_batches} heavy batches ${JSON.stringify(heavy!.statuses)}; other processes ${cpuIdle!.others}/${cpuLoaded!.others} cores\n`);
    }
    await poolA.close();
    await poolB.close();
    return {
      pairs,
      heavy_body_mb: Object.fromEntries(heavyBodies.map((h, i) => [`${SHAPES[Math.floor(i / 2)]} ${h.path}`, r1(h.body.length / 2 ** 20)])),
      small_body_kb: Math.round(small.mean_body_bytes / 1024),
      validation_workers: config.validationWorkers === undefined ? 'n/a' : String(config.validationWorkers),
      body_limit_bytes: config.parcelBodyLimitBytes,
    };
  } finally {
    await svc.stop();
    removeDir(dir);
  }
}

async function main(): Promise<void> {
  const record = startResult('service-heavy', 'Heavy parcels: validation time, and fairness to other organizations',
    `npm run bench -- service-heavy${PART !== 'both' ? ` --part ${PART}` : ''}${args['service-env'] ? ` --service-env ${args['service-env']}` : ''}`);
  const inproc = PART === 'http' ? [] : inProcess();
  const h = PART === 'inprocess' ? null : await http();

  const best = (xs: number[]) => Math.min(...xs);
  const metrics: Metric[] = inproc.flatMap((r) => [
    metric(`In process: validate 50 × ${MAX_POSITIONS_PER_PARCEL.toLocaleString('en-US')}-position ${r.shape} parcels (validateParcels, best of ${PASSES})`, best(r.validate_ms), 'ms'),
    metric(`In process: of which the self-intersection check alone, 50 ${r.shape} rings`, best(r.intersect_ms), 'ms'),
  ]);
  const tables: Table[] = [];
  const notes: string[] = BEFORE.map((b) => `Before this work: ${b}`);
  if (h) {
    const ratios = h.pairs.map((p) => p.ratio);
    const bad = h.pairs.reduce((n, p) => n + Object.entries(p.loaded_statuses).filter(([s]) => s !== '201').reduce((m, [, c]) => m + c, 0), 0);
    metrics.push(
      metric(`Other organization's 50-parcel batch: p99 while heavy batches run ÷ p99 idle (median of ${PAIRS} pairs)`, r3(median(ratios)), '×', RATIO_TARGET),
      metric('  same ratio, lowest pair', Math.min(...ratios), '×'),
      metric('  same ratio, highest pair', Math.max(...ratios), '×'),
      metric("Other organization's batches not answered 201 while heavy batches ran", bad, 'batches'),
      metric('Heavy batches answered during the loaded phases', h.pairs.reduce((n, p) => n + p.heavy_batches, 0), 'batches'),
    );
    tables.push({
      title: 'Pairs (B = the other organization\'s 50-parcel batches, one at a time; A = heavy batches)',
      columns: ['pair', 'order', 'B idle p50 ms', 'B idle p99 ms', 'B loaded p50 ms', 'B loaded p99 ms', 'ratio of p99s', 'A heavy batches (statuses)', 'A heavy latency p50 ms', 'service cores idle / loaded', 'other processes, cores idle / loaded'],
      rows: h.pairs.map((p, i) => [i + 1, p.order, p.idle.p50_ms, p.idle.p99_ms, p.loaded.p50_ms, p.loaded.p99_ms, p.ratio,
        `${p.heavy_batches} (${Object.entries(p.heavy_statuses).map(([s, n]) => `${n}× ${s}`).join(', ')})`, p.heavy_latency?.p50_ms ?? '—',
        `${p.cpu_idle.ours.service ?? 0} / ${p.cpu_loaded.ours.service ?? 0}`, `${p.cpu_idle.others} / ${p.cpu_loaded.others}`]),
    });
    notes.push(`Other processes used ${Math.min(...h.pairs.map((p) => p.cpu_loaded.others))}–${Math.max(...h.pairs.map((p) => p.cpu_loaded.others))} cores during the loaded phases and ${Math.min(...h.pairs.map((p) => p.cpu_idle.others))}–${Math.max(...h.pairs.map((p) => p.cpu_idle.others))} during the idle ones (2-core machine shared with other engineers).`);
  }
  if (inproc.length) {
    tables.push({
      title: 'In process, every pass (ms)',
      columns: ['shape', 'positions per parcel', 'validateParcels of 50 parcels', 'findSelfIntersection of 50 rings'],
      rows: inproc.map((r) => [r.shape, r.positions_per_parcel, r.validate_ms.join(', '), r.intersect_ms.join(', ')]),
    });
  }
  const result = record.finish({
    method: [
      `Heavy parcels have ${MAX_POSITIONS_PER_PARCEL.toLocaleString('en-US')} positions each (the per-parcel cap, closing position included), generated deterministically (bench/lib/heavy-parcels.ts): a comb about 850 m × 1,100 m whose ~2,500 teeth all span the full width (every long edge shares one x-range: quadratic for a sweep that prunes only by x), and a lobed field boundary of about 45 ha surveyed every ~25 cm.`,
      `In process (this process, nothing else of ours running): core validateParcels of 50 such parcels, and findSelfIntersection alone over their rings; ${PASSES} timed passes after one untimed pass, best reported, every pass in the table.`,
      ...(h ? [
        `Over HTTP: the service runs as a child process on 127.0.0.1 (fresh DATA_DIR, synchronous=FULL, validation workers: ${h.validation_workers}, body limit ${h.body_limit_bytes.toLocaleString('en-US')} bytes${Object.keys(SERVICE_ENV).length ? `, environment ${Object.entries(SERVICE_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}` : ''}). Organizations A and B come from the CLI, each with an account and a farm; each has its own undici pool.`,
        `B posts ordinary 50-parcel batches (the service-bulk generator: polygons of 10–50 vertices and Point parcels, mean body ${h.small_body_kb} KiB) to POST /api/parcels/, one at a time, ${SAMPLES} per phase; latency runs until the whole response is read.`,
        `A keeps ${HEAVY_IN_FLIGHT} heavy batch${HEAVY_IN_FLIGHT === 1 ? '' : 'es'} in flight during the loaded phase (back to back, from 150 ms before B's first batch until B's last), cycling through POST /api/parcels/ and POST /api/farms/ with 50 comb parcels and with 50 field parcels (bodies ${Object.entries(h.heavy_body_mb).map(([k, v]) => `${k} ${v} MiB`).join(', ')}).`,
        `${PAIRS} pairs of one idle phase (A silent) and one loaded phase, in alternating order; each pair gives the ratio of B's p99 (nearest rank) loaded to idle; reported: the median pair ratio, and the lowest and highest.`,
      ] : []),
    ],
    metrics,
    tables,
    notes,
    details: { args: { part: PART, passes: PASSES, pairs: PAIRS, samples: SAMPLES, heavy: HEAVY_IN_FLIGHT, service_env: SERVICE_ENV }, in_process: inproc, http: h, batch_size: BATCH_SIZE },
  });
  process.stderr.write(`  wrote ${writeResult(result)}\n`);
}

await main();
