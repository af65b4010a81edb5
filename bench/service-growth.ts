// Memory while the store grows to 1,000,000 parcels: the service's RSS (from /proc) and request latency at
// every checkpoint. Growth goes through the HTTP API; when that would take more than --max-http-seconds, the
// rest is inserted directly with the service's own store functions into the same database file, and the HTTP
// path is measured with a window of batches at each checkpoint (the result says which was done).
import { parseArgs } from 'node:util';
import { dbFile } from '../service/config.ts';
import { openDb } from '../service/store/sqlite/db.ts';
import { insertParcels } from '../service/store/sqlite/parcels.ts';
import { validateParcels, type ValidParcel } from '../core/parcels/validate.ts';
import { BATCH_SIZE, bulkBody, makeParcels } from './lib/parcels.ts';
import { pool, runLoad, type RequestSpec } from './lib/load.ts';
import { createFarms, createTenant, dirBytes, removeDir, startService, tempDataDir } from './lib/service.ts';
import { cpuWindow, procMemoryKb } from './lib/machine.ts';
import { r1, summarize, type LatencySummary } from './lib/stats.ts';
import { metric, startResult, writeResult, type Target } from './lib/result.ts';

const { values: args } = parseArgs({
  options: {
    parcels: { type: 'string', default: '1000000' },
    /** Parcels between checkpoints; default 100,000 (or a tenth of --parcels when that is smaller). */
    checkpoint: { type: 'string' },
    farms: { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '4' },
    /** Switch to direct inserts after the first checkpoint when HTTP growth would take longer than this. */
    'max-http-seconds': { type: 'string', default: '360' },
    /** Grow by direct inserts from the start (HTTP windows at checkpoints only). */
    direct: { type: 'boolean', default: false },
    /** HTTP batches measured at each checkpoint in direct mode. */
    window: { type: 'string', default: '200' },
  },
});
const TOTAL = Math.ceil(Number(args.parcels) / BATCH_SIZE) * BATCH_SIZE;
const STEP = Math.ceil(Number(args.checkpoint ?? Math.min(100_000, TOTAL / 10)) / BATCH_SIZE) * BATCH_SIZE;
const FARMS = Number(args.farms);
const CONCURRENCY = Number(args.concurrency);
const MAX_HTTP_S = Number(args['max-http-seconds']);
const WINDOW = Number(args.window);
const FLAT_MB = 50;
const POOL_SIZE = 200;
const PROBES = 20;

interface Checkpoint {
  parcels: number;
  /** How the parcels since the previous checkpoint got there. */
  via: 'http' | 'direct + http window' | 'setup';
  rss_mb: number;
  hwm_mb: number;
  db_mb: number;
  /** POST /api/parcels/ batches measured since the previous checkpoint (all of them over HTTP, or the window). */
  post: LatencySummary | null;
  post_parcels_per_s: number | null;
  /** GET /api/parcels/{id}/ of random existing parcels, one at a time (none before the first parcel). */
  get_one: LatencySummary | null;
  service_cores: number;
  other_cores: number;
  elapsed_s: number;
}

const mb = (kb: number) => r1(kb / 1024);

async function main(): Promise<void> {
  const record = startResult('service-growth', `Memory while the store grows to ${TOTAL.toLocaleString('en-US')} parcels`,
    `npm run bench -- service-growth${TOTAL !== 1_000_000 ? ` --parcels ${TOTAL}` : ''}${args.direct ? ' --direct' : ''}`);
  const t0 = performance.now();
  const dir = tempDataDir('growth');
  const svc = await startService(dir);
  const samples: [number, number, number][] = []; // [seconds, parcels, rss MB], every second
  let parcels = 0;
  const sampler = setInterval(() => {
    try {
      samples.push([r1((performance.now() - t0) / 1000), parcels, mb(procMemoryKb(svc.pid).rss)]);
    } catch { /* exited */ }
  }, 1000);
  try {
    const p = pool(svc.url, CONCURRENCY);
    const tenant = await createTenant(dir, p);
    const farmIds = await createFarms(p, tenant, FARMS);
    const parcelJson: string[] = [];
    const valid: ValidParcel[][] = [];
    for (let i = 0; i < POOL_SIZE; i++) {
      const ps = makeParcels(i + 1);
      parcelJson.push(JSON.stringify(ps));
      const v = validateParcels(ps, { maxHectares: 100 });
      if (v.problems.length) throw new Error(v.problems[0]!.message);
      valid.push(v.parcels);
    }
    const headers = { ...tenant.headers, 'content-type': 'application/json' };
    let batchNo = 0;
    const post = (): RequestSpec => {
      const b = batchNo++;
      return { method: 'POST', path: '/api/parcels/', headers, body: bulkBody(farmIds[b % FARMS]!, parcelJson[b % POOL_SIZE]!) };
    };
    const probe = async (): Promise<LatencySummary> => {
      // A fresh database numbers parcels 1, 2, 3, … without gaps.
      const r = await runLoad(p, PROBES, () => ({ method: 'GET', path: `/api/parcels/${1 + Math.floor(Math.random() * parcels)}/`, headers: tenant.headers }), 1, 200);
      if (r.statuses['200'] !== PROBES) throw new Error(`probe: ${JSON.stringify(r.statuses)} ${r.first_error}`);
      return summarize(r.latencies);
    };
    const httpBatches = async (n: number) => {
      const r = await runLoad(p, n, post, CONCURRENCY, 201);
      if (r.statuses['201'] !== n) throw new Error(`bulk create: ${JSON.stringify(r.statuses)} ${r.first_error}`);
      parcels += n * BATCH_SIZE;
      return r;
    };
    const checkpoint = async (via: Checkpoint['via'], postLat: LatencySummary | null, rate: number | null, cpu: { ours: Record<string, number>; others: number } | null): Promise<Checkpoint> => {
      const mem = procMemoryKb(svc.pid);
      const c: Checkpoint = {
        parcels, via, rss_mb: mb(mem.rss), hwm_mb: mb(mem.hwm), db_mb: r1(dirBytes(dir) / 2 ** 20),
        post: postLat, post_parcels_per_s: rate, get_one: parcels > 0 ? await probe() : null,
        service_cores: cpu?.ours.service ?? 0, other_cores: cpu?.others ?? 0, elapsed_s: r1((performance.now() - t0) / 1000),
      };
      process.stderr.write(`  ${parcels.toLocaleString('en-US')} parcels: RSS ${c.rss_mb} MB, DB ${c.db_mb} MB, POST p50 ${postLat?.p50_ms ?? '—'} ms, ${rate ?? '—'} parcels/s, ${via}\n`);
      return c;
    };

    const checkpoints: Checkpoint[] = [await checkpoint('setup', null, null, null)];
    let direct = args.direct;
    let directNote = '';
    while (parcels < TOTAL) {
      const target = Math.min(TOTAL, parcels + STEP);
      if (!direct) {
        const cpu = cpuWindow({ service: svc.pid, bench: process.pid });
        const r = await httpBatches((target - parcels) / BATCH_SIZE);
        const w = cpu.end();
        const rate = Math.round(STEP / (r.elapsed_ms / 1000));
        checkpoints.push(await checkpoint('http', summarize(r.latencies), rate, w));
        const projected = ((performance.now() - t0) / 1000) * (TOTAL / parcels);
        if (projected > MAX_HTTP_S && parcels < TOTAL) {
          direct = true;
          directNote = `HTTP growth ran at ${rate} parcels/s, projecting ${Math.round(projected)} s for ${TOTAL.toLocaleString('en-US')} parcels (over ${MAX_HTTP_S} s): from ${parcels.toLocaleString('en-US')} parcels on, growth switched to direct inserts.`;
          process.stderr.write(`  ${directNote}\n`);
        }
      } else {
        // The service's own insertParcels, on a second connection to the same file while the service runs.
        const windowBatches = Math.min(WINDOW, (target - parcels) / BATCH_SIZE);
        const directBatches = (target - parcels) / BATCH_SIZE - windowBatches;
        const db = openDb(dbFile(dir), { synchronous: 'NORMAL' });
        try {
          for (let i = 0; i < directBatches; i++) {
            const b = batchNo++;
            db.transaction(() => insertParcels(db, farmIds[b % FARMS]!, valid[b % POOL_SIZE]!))();
            parcels += BATCH_SIZE;
          }
        } finally {
          db.close();
        }
        const httpCpu = cpuWindow({ service: svc.pid, bench: process.pid });
        const r = await httpBatches(windowBatches);
        const w = httpCpu.end();
        checkpoints.push(await checkpoint('direct + http window', summarize(r.latencies), Math.round((windowBatches * BATCH_SIZE) / (r.elapsed_ms / 1000)), w));
      }
    }
    await p.close();
    clearInterval(sampler);
    const mem = procMemoryKb(svc.pid);
    await svc.stop();

    const grown = checkpoints.filter((c) => c.via !== 'setup');
    const first = grown[0]!;
    const last = grown[grown.length - 1]!;
    const rssValues = grown.map((c) => c.rss_mb);
    const growth = r1(last.rss_mb - first.rss_mb);
    const target: Target = { op: '<=', value: FLAT_MB };
    const httpOnly = checkpoints.every((c) => c.via !== 'direct + http window');
    const result = record.finish({
      method: [
        `The service runs as a child process on 127.0.0.1 (synchronous=FULL, fresh DATA_DIR); the organization comes from the CLI, the account and ${FARMS} farms from the HTTP API.`,
        httpOnly
          ? `The store grows to ${TOTAL.toLocaleString('en-US')} parcels entirely through POST /api/parcels/: 50-parcel batches, ${CONCURRENCY} in flight, sent by this process over undici, round-robin over the farms (bodies cycle through ${POOL_SIZE} generated batches; duplicates are allowed by the API).`
          : `The store grows through POST /api/parcels/ (50-parcel batches, ${CONCURRENCY} in flight) until direct inserts take over: the rest is inserted by this process with the service's own validateParcels + insertParcels (one transaction per 50 parcels, synchronous=NORMAL on that connection) into the same database file while the service keeps running; at each checkpoint the last ${WINDOW} batches are sent over HTTP and measured.`,
        `At every checkpoint (each ${STEP.toLocaleString('en-US')} parcels) the load pauses; the service's VmRSS and VmHWM are read from /proc/<pid>/status, the data directory is measured, and ${PROBES} GET /api/parcels/{id}/ of random parcels are timed one at a time. RSS is also sampled every second.`,
        `Flat means: RSS at the last checkpoint is within +${FLAT_MB} MB of RSS at the first (${first.parcels.toLocaleString('en-US')} parcels). The data directory is deleted afterwards.`,
      ],
      metrics: [
        metric(`RSS growth from ${first.parcels.toLocaleString('en-US')} to ${last.parcels.toLocaleString('en-US')} parcels`, growth, 'MB', target),
        metric(`RSS at ${first.parcels.toLocaleString('en-US')} parcels`, first.rss_mb, 'MB'),
        metric(`RSS at ${last.parcels.toLocaleString('en-US')} parcels`, last.rss_mb, 'MB'),
        metric('RSS max/min over the checkpoints', Math.round((Math.max(...rssValues) / Math.min(...rssValues)) * 100) / 100, '×'),
        metric('Peak RSS (VmHWM) over the whole run', mb(mem.hwm), 'MB'),
        metric(`POST batch latency p50 at ${last.parcels.toLocaleString('en-US')} parcels`, last.post?.p50_ms ?? NaN, 'ms'),
        metric(`Bulk create rate in the last segment`, last.post_parcels_per_s ?? NaN, 'parcels/s'),
        metric(`Data directory at ${last.parcels.toLocaleString('en-US')} parcels`, last.db_mb, 'MB'),
      ],
      tables: [{
        title: 'Checkpoints',
        columns: ['parcels', 'how', 'RSS MB', 'VmHWM MB', 'DB MB', 'POST p50 ms', 'POST p99 ms', 'parcels/s', 'GET one p50 ms', 'service cores', 'other cores', 'elapsed s'],
        rows: checkpoints.map((c) => [c.parcels, c.via, c.rss_mb, c.hwm_mb, c.db_mb, c.post?.p50_ms ?? '—', c.post?.p99_ms ?? '—', c.post_parcels_per_s ?? '—', c.get_one?.p50_ms ?? '—', c.service_cores, c.other_cores, c.elapsed_s]),
      }],
      notes: [
        ...(directNote ? [directNote] : []),
        ...(args.direct ? ['Run with --direct: growth by direct inserts from the start; only the checkpoint windows went through HTTP.'] : []),
        `Per-second RSS samples: min ${Math.min(...samples.map((s) => s[2]))} MB, max ${Math.max(...samples.map((s) => s[2]))} MB (in the result JSON).`,
      ],
      details: { total: TOTAL, step: STEP, farms: FARMS, concurrency: CONCURRENCY, checkpoints, rss_samples: samples, final_hwm_mb: mb(mem.hwm) },
    });
    process.stderr.write(`  RSS growth ${growth} MB; wrote ${writeResult(result)}\n`);
  } finally {
    clearInterval(sampler);
    await svc.stop();
    removeDir(dir);
  }
}

await main();
