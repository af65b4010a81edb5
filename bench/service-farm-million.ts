// A farm of 1,000,000 parcels: the service's memory while it streams GET /api/farms/{id}/parcels/ over real HTTP,
// the latency another organization sees meanwhile, and the read time of the farm's totals before (a COUNT and SUM
// over its parcels, as GET /api/farms/{id}/ computed them) and after (the columns migration 004 keeps).
import { parseArgs } from 'node:util';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { writeFileSync } from 'node:fs';
import { dbFile } from '../service/config.ts';
import { openDb, type Db } from '../service/store/sqlite/db.ts';
import { insertParcels } from '../service/store/sqlite/parcels.ts';
import type { Scope } from '../service/store/scope.ts';
import { openFarmParcelListing } from '../service/store/sqlite/farm-listing.ts';
import { farmParcelsBody, type FarmListingPage } from '../service/store/farm-listing.ts';
import { validateParcels, type ValidParcel } from '../core/parcels/validate.ts';
import { BATCH_SIZE, makeParcels } from './lib/parcels.ts';
import { pool, runLoad } from './lib/load.ts';
import { createFarms, createTenant, dirBytes, removeDir, startService, tempDataDir } from './lib/service.ts';
import { cpuWindow, procMemoryKb } from './lib/machine.ts';
import { median, r1, r3, summarize } from './lib/stats.ts';
import { metric, startResult, writeResult, type Target } from './lib/result.ts';

/** The listing's body as GET /api/farms/{id}/parcels/ streams it, from the SQLite store's snapshot of this database. */
const farmParcelsStream = (db: Db, scope: Scope, farmId: number, page: FarmListingPage, nextUrl: (after: number) => string) =>
  farmParcelsBody(openFarmParcelListing(db, scope, farmId, page), page, nextUrl);

const { values: args } = parseArgs({
  options: {
    parcels: { type: 'string', default: '1000000' },
    /** Interleaved pairs of the totals read, old query and new columns. */
    pairs: { type: 'string', default: '15' },
    /** Skip running the previous listing query (one SQLite string) once on the same farm to record how it fails. */
    'skip-old-listing': { type: 'boolean', default: false },
  },
});
const PARCELS = Math.ceil(Number(args.parcels) / BATCH_SIZE) * BATCH_SIZE;
const PAIRS = Number(args.pairs);
const RSS_TARGET: Target = { op: '<', value: 100 };
const POOL_SIZE = 200;
const SAMPLE_MS = 20;

// What GET /api/farms/{id}/ ran before migration 004, verbatim.
const OLD_TOTALS = `SELECT f.id, (SELECT COUNT(*) FROM parcels p WHERE p.farm_id = f.id) AS parcel_count,
  (SELECT COALESCE(SUM(p.hectares), 0) FROM parcels p WHERE p.farm_id = f.id) AS hectares FROM farms f WHERE f.id = ?`;
const NEW_TOTALS = 'SELECT f.id, f.parcel_count, f.micro_hectares / 1000000.0 AS hectares FROM farms f WHERE f.id = ?';
const FEATURE_SQL = `'{"type":"Feature","id":' || p.id || ',"bbox":[' || CAST(p.minx AS TEXT) || ',' || CAST(p.miny AS TEXT) || ','
  || CAST(p.maxx AS TEXT) || ',' || CAST(p.maxy AS TEXT) || '],"geometry":' || p.geometry || ',"properties":{"key":"' || p.key
  || '","name":' || json_quote(p.name) || ',"farm":' || p.farm_id || ',"hectares":' || CAST(p.hectares AS TEXT) || ',"metadata":' || p.metadata
  || ',"source_type":"' || p.source_type || '","point":' || coalesce(p.point, 'null') || ',"center":[' || CAST((p.minx + p.maxx) / 2 AS TEXT)
  || ',' || CAST((p.miny + p.maxy) / 2 AS TEXT) || '],"created":"' || p.created || '","modified":"' || p.modified || '"}}'`;
// The listing before it streamed: the whole FeatureCollection as one SQLite string.
const OLD_LISTING = `SELECT count(*) AS n, coalesce(group_concat(f, ','), '') AS features
  FROM (SELECT ${FEATURE_SQL} AS f FROM parcels p WHERE p.farm_id = ? ORDER BY p.id)`;

const mb = (kb: number) => r1(kb / 1024);

/** Counts occurrences of `needle` across the chunks of a stream (a match may straddle two chunks). */
function counter(needle: string) {
  const n = Buffer.from(needle);
  let carry = Buffer.alloc(0);
  let count = 0;
  return {
    push(chunk: Buffer) {
      const buf = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      for (let i = buf.indexOf(n); i >= 0; i = buf.indexOf(n, i + n.length)) count++;
      carry = Buffer.from(buf.subarray(Math.max(0, buf.length - (n.length - 1))));
    },
    get count() { return count; },
  };
}

async function main(): Promise<void> {
  const record = startResult('service-farm-million', `A ${PARCELS.toLocaleString('en-US')}-parcel farm: streamed listing memory, and its totals`,
    `npm run bench -- service-farm-million${PARCELS !== 1_000_000 ? ` --parcels ${PARCELS}` : ''}`);
  const t0 = performance.now();
  const dir = tempDataDir('farm-million');
  let svc = await startService(dir);
  try {
    // ---- the farm: two organizations over HTTP, then the parcels inserted with the service's own insertParcels
    // (validateParcels + insertParcels, 50 per transaction) into the same file; POST would take an hour here.
    const setup = pool(svc.url, 2);
    const tenant = await createTenant(dir, setup);
    const [farmId] = await createFarms(setup, tenant, 1) as [number];
    const other = await createTenant(dir, setup);
    await createFarms(setup, other, 3);
    await setup.close();
    const valid: ValidParcel[][] = [];
    for (let i = 0; i < POOL_SIZE; i++) {
      const v = validateParcels(makeParcels(i + 1), { maxHectares: 100 });
      if (v.problems.length) throw new Error(v.problems[0]!.message);
      valid.push(v.parcels);
    }
    const fillStart = performance.now();
    const writer = openDb(dbFile(dir), { synchronous: 'NORMAL' });
    try {
      for (let b = 0; b < PARCELS / BATCH_SIZE; b++) {
        writer.transaction(() => insertParcels(writer, farmId, valid[b % POOL_SIZE]!))();
        if (b % 2000 === 1999) process.stderr.write(`  ${((b + 1) * BATCH_SIZE).toLocaleString('en-US')} parcels\n`);
      }
      writer.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      writer.close();
    }
    const fillSeconds = r1((performance.now() - fillStart) / 1000);
    const dbBytes = dirBytes(dir);
    // A fresh service process on the grown file: its memory is the service's own, not the filling's.
    await svc.stop();
    svc = await startService(dir);

    // ---- totals: the previous query and the columns, interleaved in pairs on a second connection (warm cache).
    const db = openDb(dbFile(dir));
    const oldQ = db.prepare(OLD_TOTALS);
    const newQ = db.prepare(NEW_TOTALS);
    const oldRow = oldQ.get(farmId) as { parcel_count: number; hectares: number };
    const newRow = newQ.get(farmId) as { parcel_count: number; hectares: number };
    if (oldRow.parcel_count !== PARCELS || newRow.parcel_count !== PARCELS) throw new Error(`totals: ${JSON.stringify([oldRow, newRow])}`);
    const pairs: { old_ms: number; new_ms: number }[] = [];
    const time = (q: typeof oldQ) => { const s = performance.now(); q.get(farmId); return performance.now() - s; };
    for (let i = 0; i < PAIRS; i++) {
      if (i % 2 === 0) {
        const old_ms = time(oldQ);
        pairs.push({ old_ms, new_ms: time(newQ) });
      } else {
        const new_ms = time(newQ);
        pairs.push({ old_ms: time(oldQ), new_ms });
      }
    }
    const ratios = pairs.map((p) => p.old_ms / p.new_ms);
    const oldMs = median(pairs.map((p) => p.old_ms));
    const newMs = median(pairs.map((p) => p.new_ms));
    // The same stream in this process: the longest turn of the event loop it takes, and its CPU time.
    const loop = monitorEventLoopDelay({ resolution: 1 });
    const cpu0 = process.cpuUsage();
    const inStart = performance.now();
    loop.enable();
    let inBytes = 0;
    for await (const chunk of farmParcelsStream(db, { organizationId: tenant.organizationId, accountId: tenant.accountId, via: 'api_key' }, farmId, {}, () => '')) {
      inBytes += (chunk as Buffer).length;
    }
    loop.disable();
    const inCpu = process.cpuUsage(cpu0);
    const inProcess = {
      bytes: inBytes, wall_s: r1((performance.now() - inStart) / 1000), cpu_s: r1((inCpu.user + inCpu.system) / 1e6),
      loop_delay_max_ms: r1(loop.max / 1e6), loop_delay_p99_ms: r1(loop.percentile(99) / 1e6),
    };
    process.stderr.write(`  in process: ${JSON.stringify(inProcess)}\n`);
    let oldListing = 'not run (--skip-old-listing)';
    if (!args['skip-old-listing']) {
      const s = performance.now();
      try {
        const r = db.prepare(OLD_LISTING).get(farmId) as { features: string };
        oldListing = `succeeded: ${r.features.length.toLocaleString('en-US')} characters in ${r1((performance.now() - s) / 1000)} s`;
      } catch (err) {
        oldListing = `failed after ${r1((performance.now() - s) / 1000)} s with ${(err as { code?: string }).code ?? ''} "${(err as Error).message}" (the 500 the review saw)`;
      }
      process.stderr.write(`  previous listing query: ${oldListing}\n`);
    }
    db.close();

    // ---- over HTTP: GET /api/farms/{id}/ (totals), then the listing with another organization probing meanwhile.
    const api = pool(svc.url, 1);
    const farmGet = await runLoad(api, 50, () => ({ method: 'GET', path: `/api/farms/${farmId}/`, headers: tenant.headers }), 1, 200);
    if (farmGet.statuses['200'] !== 50) throw new Error(`GET farm: ${farmGet.first_error}`);
    const probePool = pool(svc.url, 1);
    const probe = () => ({ method: 'GET' as const, path: '/api/farms/', headers: other.headers });
    const idle = await runLoad(probePool, 100, probe, 1, 200);

    const before = procMemoryKb(svc.pid);
    try {
      writeFileSync(`/proc/${svc.pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
    } catch { /* not permitted here: the 20 ms samples alone give the peak */ }
    let peakRss = before.rss;
    const sampler = setInterval(() => {
      try { peakRss = Math.max(peakRss, procMemoryKb(svc.pid).rss); } catch { /* exited */ }
    }, SAMPLE_MS);
    const busyProbes: number[] = [];
    let listing = true;
    const prober = (async () => {
      while (listing) {
        const s = performance.now();
        const r = await probePool.request(probe());
        await r.body.arrayBuffer();
        if (r.statusCode !== 200) throw new Error(`probe during the listing: ${r.statusCode}`);
        busyProbes.push(performance.now() - s);
        await new Promise((res) => setTimeout(res, 50));
      }
    })();
    const cpu = cpuWindow({ service: svc.pid, bench: process.pid });
    const listStart = performance.now();
    const res = await api.request({ method: 'GET', path: `/api/farms/${farmId}/parcels/`, headers: tenant.headers });
    const firstByteMs = performance.now() - listStart;
    const features = counter('{"type":"Feature","id":');
    let bytes = 0;
    let head = '';
    let tail = Buffer.alloc(0);
    for await (const chunk of res.body) {
      const c = chunk as Buffer;
      if (head.length < 40) head += c.toString('utf8', 0, Math.min(c.length, 40));
      bytes += c.length;
      features.push(c);
      tail = Buffer.concat([tail, c]).subarray(-100);
    }
    const listMs = performance.now() - listStart;
    const window = cpu.end();
    listing = false;
    await prober;
    clearInterval(sampler);
    const after = procMemoryKb(svc.pid);
    peakRss = Math.max(peakRss, after.hwm);
    await api.close();
    await probePool.close();
    const tailText = tail.toString('utf8');
    if (res.statusCode !== 200 || !head.startsWith('{"type":"FeatureCollection","features":[') || !tailText.endsWith(`],"count":${PARCELS},"next":null}`) || features.count !== PARCELS) {
      throw new Error(`listing: ${res.statusCode}, head ${head}, tail ${tailText}, ${features.count} features`);
    }
    const growth = mb(peakRss - before.rss);
    const idleSummary = summarize(idle.latencies);
    const busySummary = summarize(busyProbes);
    const farmSummary = summarize(farmGet.latencies);

    const result = record.finish({
      method: [
        `The service runs as a child process on 127.0.0.1 (synchronous=FULL). Two organizations come from the CLI and the HTTP API; one farm of the first is filled with ${PARCELS.toLocaleString('en-US')} parcels by this process with the service's own validateParcels + insertParcels (the generated batches of service-bulk, 50 per transaction, synchronous=NORMAL on that connection) in ${fillSeconds} s; then the service is restarted on the file (${r1(dbBytes / 2 ** 30)} GiB).`,
        `Totals, in process on a second connection, warm cache: ${PAIRS} interleaved pairs (alternating which runs first) of the query GET /api/farms/{id}/ ran before (COUNT and SUM over the farm's parcels) and of the columns it reads now; the median of each and the median pair ratio with min and max. Over HTTP: 50 GET /api/farms/{id}/ one at a time.`,
        `Listing: this process reads GET /api/farms/{id}/parcels/ over one undici connection as fast as it can, counting the bytes and the Features and checking the head and the tail ("count":${PARCELS},"next":null). The service's VmRSS is read from /proc/<pid>/status just before and every ${SAMPLE_MS} ms during the listing; VmHWM is reset (clear_refs) before it and read after it. Peak growth = max(VmHWM, samples) − RSS before.`,
        'Meanwhile another organization sends GET /api/farms/ over its own connection every 50 ms; its latency is compared with 100 such requests sent before the listing.',
        'In process, before the HTTP part: the same stream (farmParcelsStream) read to the end under perf_hooks.monitorEventLoopDelay (1 ms resolution): the longest any other request could have waited for this listing, and the CPU time it took (robust to other load on the machine).',
      ],
      metrics: [
        metric(`Peak RSS growth while listing the ${PARCELS.toLocaleString('en-US')}-parcel farm`, growth, 'MB', RSS_TARGET),
        metric('Listing: response size', r1(bytes / 2 ** 20), 'MiB'),
        metric('Listing: time to the last byte', r1(listMs / 1000), 's'),
        metric('Listing: time to the first byte', r1(firstByteMs), 'ms'),
        metric('Another organization during the listing: GET /api/farms/ p99', busySummary.p99_ms, 'ms'),
        metric('Another organization during the listing: GET /api/farms/ max', busySummary.max_ms, 'ms'),
        metric('Farm totals before (COUNT + SUM over the parcels), median', r3(oldMs), 'ms'),
        metric('Farm totals after (columns kept by triggers), median', r3(newMs), 'ms'),
        metric('Before / after, median pair ratio', Math.round(median(ratios)), '×'),
        metric('GET /api/farms/{id}/ over HTTP, p50', farmSummary.p50_ms, 'ms'),
        metric('In process: longest event-loop turn while streaming the whole listing', inProcess.loop_delay_max_ms, 'ms'),
        metric('In process: CPU time to produce the whole listing', inProcess.cpu_s, 's'),
      ],
      tables: [{
        title: 'Service memory around the listing',
        columns: ['RSS before MB', 'peak RSS MB', 'growth MB', 'RSS after MB', 'bytes listed', 'features', 'seconds', 'service cores', 'other processes (cores)'],
        rows: [[mb(before.rss), mb(peakRss), growth, mb(after.rss), bytes, features.count, r1(listMs / 1000), window.ours.service ?? 0, window.others]],
      }, {
        title: 'Another organization\'s GET /api/farms/, idle vs during the listing',
        columns: ['when', 'requests', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
        rows: [['before the listing', idleSummary.count, idleSummary.p50_ms, idleSummary.p95_ms, idleSummary.p99_ms, idleSummary.max_ms],
          ['during the listing', busySummary.count, busySummary.p50_ms, busySummary.p95_ms, busySummary.p99_ms, busySummary.max_ms]],
      }, {
        title: 'Farm totals: before and after, interleaved pairs',
        columns: ['', 'median ms', 'min ms', 'max ms'],
        rows: [['before: COUNT + SUM over the parcels', r3(oldMs), r3(Math.min(...pairs.map((p) => p.old_ms))), r3(Math.max(...pairs.map((p) => p.old_ms)))],
          ['after: the farm row\'s columns', r3(newMs), r3(Math.min(...pairs.map((p) => p.new_ms))), r3(Math.max(...pairs.map((p) => p.new_ms)))],
          ['ratio before/after (per pair)', Math.round(median(ratios)), Math.round(Math.min(...ratios)), Math.round(Math.max(...ratios))]],
      }],
      notes: [
        `The previous listing (the whole FeatureCollection as one SQLite string), run once in process on the same farm: ${oldListing}.`,
        `Other processes used ${window.others} cores on average while the listing ran; the service used ${window.ours.service ?? 0}.`,
      ],
      details: {
        parcels: PARCELS, fill_seconds: fillSeconds, db_bytes: dbBytes, rss_before_kb: before.rss, peak_rss_kb: peakRss, rss_after_kb: after.rss,
        listing: { bytes, features: features.count, first_byte_ms: r3(firstByteMs), total_ms: r3(listMs), cpu: window },
        other_org: { idle: idleSummary, during: busySummary }, farm_get: farmSummary,
        totals_pairs_ms: pairs.map((p) => [r3(p.old_ms), r3(p.new_ms)]), old_listing: oldListing, in_process: inProcess,
        elapsed_s: r1((performance.now() - t0) / 1000),
      },
    });
    process.stderr.write(`  peak RSS growth ${growth} MB over ${r1(bytes / 2 ** 20)} MiB; totals ${r3(oldMs)} → ${r3(newMs)} ms\n  wrote ${writeResult(result)}\n`);
  } finally {
    await svc.stop();
    removeDir(dir);
  }
}

await main();
