// The app's backend as the app reaches it: calls through the mirror host process (the built dist/host.mjs, over the
// child-process channel that browser mode and the tests use; Electron's utilityProcess port is the same kind of
// channel). Three measures: the round trip of a small query, a map viewport over 1,000,000 parcels (the GeoJSON
// the renderer gets, transport included), and how long the host takes to answer a ping while it imports 100,000
// parcels on its import thread and syncs another account with a local service.
import { parseArgs } from 'node:util';
import { existsSync, linkSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { launchHost, type Host } from '../backend/launch.ts';
import { API_VERSION } from '../core/api-codes.ts';
import { Mirror } from '../db/mirror.ts';
import { writeFieldsGeoJson } from './lib/fields.ts';
import { MILLION_ACCOUNT, millionMirror, viewports, wholeFarms } from './lib/million-mirror.ts';
import { ROOT } from './lib/paths.ts';
import { removeDir, startService, tempDataDir, createTenant, type Child } from './lib/service.ts';
import { r1, summarize, type LatencySummary } from './lib/stats.ts';
import { cpuWindow } from './lib/machine.ts';
import { metric, startResult, writeResult, type Table } from './lib/result.ts';
import { pool } from './lib/load.ts';

const { values: args } = parseArgs({
  options: {
    parcels: { type: 'string', default: '1000000' },
    calls: { type: 'string', default: '2000' },
    viewports: { type: 'string', default: '200' },
    import: { type: 'string', default: '100000' },
    sync: { type: 'string', default: '20000' },
  },
});
const PARCELS = wholeFarms(Number(args.parcels));
const CALLS = Number(args.calls);
const VIEWPORTS = Number(args.viewports);
const IMPORT = wholeFarms(Number(args.import));
const SYNC = wholeFarms(Number(args.sync));
const PING_EVERY_MS = 10;
const HOST = join(ROOT, 'dist/host.mjs');
const fmt = (n: number) => n.toLocaleString('en-US');

/** The built host, as the app starts it (no TypeScript loader): built by this run so it is the working tree's. */
function buildHost(): void {
  const r = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0 || !existsSync(HOST)) throw new Error(`npm run build failed: ${r.stderr}`);
}

/**
 * n calls one at a time; the answers of the first `keep` are returned. Only those: a map keeps the features of the
 * view it shows, and holding all 200 answers (~100 MB of objects) had this process's collector promote every one,
 * which the next calls' times then paid for.
 */
async function timedCalls<T>(n: number, fn: (i: number) => Promise<T>, keep = 0): Promise<{ ms: number[]; last: T[] }> {
  const ms: number[] = [];
  const last: T[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const answer = await fn(i);
    ms.push(performance.now() - t0);
    if (i < keep) last.push(answer);
  }
  return { ms, last };
}

/** Part 1: round trips on the million-parcel mirror. */
async function roundTrips() {
  const mm = millionMirror(PARCELS);
  const home = tempDataDir('host-query');
  // A hard link: the host opens `home/mirror.db` and only reads it here (its WAL goes beside the link).
  linkSync(mm.file, join(home, 'mirror.db'));
  const db = new Database(mm.file, { readonly: true });
  const vps = viewports(db, PARCELS, VIEWPORTS);
  const warm = viewports(db, PARCELS, 40).slice(20);
  db.close();
  const h = await launchHost({ home, entry: HOST });
  try {
    await timedCalls(200, () => h.api.hello({ apiVersion: API_VERSION }));
    const cpu = cpuWindow({ bench: process.pid, host: h.pid });
    const hello = summarize((await timedCalls(CALLS, () => h.api.hello({ apiVersion: API_VERSION }))).ms);
    const history = summarize((await timedCalls(CALLS, () => h.api.history({ account: MILLION_ACCOUNT }))).ms);
    for (const v of warm) await h.api.viewport({ account: MILLION_ACCOUNT, bbox: v.bbox, limit: 5000 });
    let bytes = 0;
    const rows: number[] = [];
    const vp = await timedCalls(vps.length, async (i) => {
      const fc = await h.api.viewport({ account: MILLION_ACCOUNT, bbox: vps[i]!.bbox, limit: 5000 });
      rows.push(fc.features.length);
      return fc;
    }, 20);
    // The JSON the channel carried (serialization is part of the cost the target includes).
    for (const fc of vp.last.slice(0, 20)) bytes += Buffer.byteLength(JSON.stringify(fc));
    const window = cpu.end();
    // The same viewports read in this process (MirrorReader.viewport, no GeoJSON, no channel): what the host adds.
    const mirror = Mirror.open(mm.file);
    const direct = summarize((await timedCalls(vps.length, async (i) => mirror.read.viewport(vps[i]!.bbox, 5000, MILLION_ACCOUNT))).ms);
    mirror.close();
    return { hello, history, viewport: summarize(vp.ms), direct, rows: rows.sort((a, b) => a - b), meanBytes: Math.round(bytes / 20), window, mm };
  } finally {
    await h.close();
    removeDir(home);
  }
}

/** Pings the host every PING_EVERY_MS until `until` settles; each ping's round trip. */
async function pingWhile(h: Host, until: Promise<unknown>, at: number[] = []): Promise<number[]> {
  let done = false;
  void until.finally(() => { done = true; });
  const out: number[] = [];
  const start = performance.now();
  while (!done) {
    const t0 = performance.now();
    await h.api.hello({ apiVersion: API_VERSION });
    out.push(performance.now() - t0);
    at.push(t0 - start);
    await new Promise((r) => setTimeout(r, PING_EVERY_MS));
  }
  return out;
}

/** Part 2: the host answering while it imports on its thread and syncs another account. */
async function responsiveness() {
  const dataDir = tempDataDir('host-svc');
  const home = tempDataDir('host-busy');
  let svc: Child | undefined;
  let h: Host | undefined;
  try {
    svc = await startService(dataDir);
    const p = pool(svc.url, 2);
    const tenant = await createTenant(dataDir, p);
    await p.close();
    const r = await fetch(`${svc.url}/api/accounts/`, { method: 'POST', headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ account_email: `bench-b-${Date.now()}@example.com` }) });
    const other = ((await r.json()) as { id: string }).id;
    const importFile = join(home, 'import.geojson');
    const syncFile = join(home, 'sync.geojson');
    writeFieldsGeoJson(importFile, IMPORT);
    writeFieldsGeoJson(syncFile, SYNC, IMPORT / 500);
    h = await launchHost({ home, entry: HOST });
    const host = h;
    await host.api.connect({ service: svc.url, account: tenant.accountId, apiKey: tenant.apiKey });
    await host.api.connect({ service: svc.url, account: other, apiKey: tenant.apiKey });
    await host.api.importFile({ account: other, path: syncFile, farm: 'To sync' });
    const idle = await pingWhile(host, new Promise((r) => setTimeout(r, 2000)));
    const cpu = cpuWindow({ bench: process.pid, host: host.pid, service: svc.pid });
    const t0 = performance.now();
    let importMs = 0;
    let syncMs = 0;
    const imported = host.api.importFile({ account: tenant.accountId, path: importFile, farm: 'Imported' }).then((r) => { importMs = performance.now() - t0; return r; });
    const synced = host.api.sync({ account: other }).then((r) => { syncMs = performance.now() - t0; return r; });
    const at: number[] = [];
    const busy = await pingWhile(host, Promise.all([imported, synced]), at);
    // When the slowest pings were sent (ms after both jobs were asked for), to tell which job held the thread.
    const slowest = busy.map((ms, i) => ({ ms: Math.round(ms), at: Math.round(at[i]!) })).sort((a, b) => b.ms - a.ms).slice(0, 5);
    const window = cpu.end();
    const [imp, [sync]] = await Promise.all([imported, synced]);
    if (imp.imported !== IMPORT) throw new Error(`imported ${imp.imported} of ${IMPORT}`);
    if (!sync?.synced || sync.committed < SYNC) throw new Error(`sync: ${JSON.stringify(sync)}`);
    return { idle: summarize(idle), busy: summarize(busy), importMs, syncMs, window, pings: busy.length, slowest };
  } finally {
    await h?.close();
    await svc?.stop();
    removeDir(home);
    removeDir(dataDir);
  }
}

async function main(): Promise<void> {
  const record = startResult('mirror-host', 'The app\'s backend through the mirror host: round trips, a 1,000,000-parcel viewport, and answering while busy', 'npm run bench -- mirror-host');
  buildHost();
  const q = await roundTrips();
  const b = await responsiveness();
  const lat = (label: string, l: LatencySummary): (string | number)[] => [label, l.count, l.p50_ms, l.p95_ms, l.p99_ms, l.max_ms];
  const tables: Table[] = [{
    title: 'Round trips through the host (one call at a time)',
    columns: ['Call', 'calls', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
    rows: [lat('hello (the channel alone)', q.hello), lat('history (a small query of the mirror)', q.history),
      lat(`viewport through the host, ${fmt(PARCELS)} parcels (GeoJSON)`, q.viewport), lat('the same viewports in process (MirrorReader.viewport, row objects)', q.direct)],
  }, {
    title: 'Ping (hello every 10 ms) while the host is idle, and while it imports and syncs',
    columns: ['When', 'pings', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms'],
    rows: [lat('idle, 2 s', b.idle), lat(`importing ${fmt(IMPORT)} parcels and syncing ${fmt(SYNC)}`, b.busy)],
  }];
  const result = record.finish({
    method: [
      `The host is the built \`dist/host.mjs\` (built by the run), started by backend/launch.ts as browser mode and the tests start it: a child process spoken to through core/rpc.ts over Node's IPC channel (structured clone, as Electron's MessagePort; the map's features cross as one JSON text per feature, written by SQLite, parsed by this process: core/rpc.ts JsonItems). Every figure is a call from this process to its answer here, one call at a time, after 200 calls of warm-up.`,
      `Mirror: the ${fmt(PARCELS)}-parcel mirror of mirror-query (bench/lib/million-mirror.ts, ${r1(q.mm.meta.bytes / 2 ** 30)} GiB${q.mm.reused ? ', cached' : ', built by this run'}), hard-linked as the host's mirror. Viewports: the same ${VIEWPORTS} as mirror-query (3 field-scale for each zoomed-out one), each answered as the GeoJSON FeatureCollection the map gets (limit 5,000), parsed into objects; the first 20 answers averaged ${fmt(q.meanBytes)} bytes of JSON.`,
      `Busy host: a local service (a child process, synchronous=FULL) with two accounts of one organization connected to the host by API key. The second account holds ${fmt(SYNC)} imported parcels not yet sent. Then, at once: an import of a ${fmt(IMPORT)}-parcel GeoJSON into the first account (the host's import thread, its own SQLite connection, one transaction) and a sync of the second (the host's main thread: batches of 50, 2 in flight, then a pull); meanwhile a \`hello\` every ${PING_EVERY_MS} ms. The mirror has one writer (SQLite), and the import holds it for its whole all-or-nothing transaction: the host runs the two jobs in turn, the second waiting asynchronously (backend/backend.ts). The import ended ${fmt(Math.round(b.importMs))} ms and the sync ${fmt(Math.round(b.syncMs))} ms after both were asked for.`,
    ],
    metrics: [
      metric('Small query round trip p50 (history)', q.history.p50_ms, 'ms'),
      metric('Small query round trip p99 (history)', q.history.p99_ms, 'ms'),
      metric(`Viewport of ${fmt(PARCELS)} parcels through the host, p50 (transport and GeoJSON included)`, q.viewport.p50_ms, 'ms', { op: '<', value: 10 }),
      metric('Viewport through the host, p99', q.viewport.p99_ms, 'ms'),
      metric('Rows per viewport: median', q.rows[q.rows.length >> 1]!, 'parcels'),
      metric(`Ping p99 while importing ${fmt(IMPORT)} parcels and syncing ${fmt(SYNC)}`, b.busy.p99_ms, 'ms', { op: '<', value: 50 }),
      metric('Ping p50 while busy', b.busy.p50_ms, 'ms'),
      metric('Ping max while busy', b.busy.max_ms, 'ms'),
    ],
    tables,
    notes: [
      `Rows per viewport: min ${q.rows[0]}, median ${q.rows[q.rows.length >> 1]}, max ${q.rows[q.rows.length - 1]}.`,
      `The 5 slowest pings while busy (ms, sent at ms after both jobs were asked for): ${b.slowest.map((x) => `${x.ms} at ${x.at}`).join('; ')}.`,
      `CPU while the round trips ran: this process ${q.window.ours.bench}, the host ${q.window.ours.host}, other processes ${q.window.others} cores. While busy: the host ${b.window.ours.host}, the service ${b.window.ours.service}, other processes ${b.window.others} cores (2 cores in all).`,
    ],
    details: { roundTrips: { hello: q.hello, history: q.history, viewport: q.viewport, direct: q.direct, rows: q.rows }, busy: b },
  });
  process.stderr.write(`  viewport p50 ${q.viewport.p50_ms} ms, busy ping p99 ${b.busy.p99_ms} ms\n  wrote ${writeResult(result)}\n`);
}

await main();
