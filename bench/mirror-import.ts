// Mirror import against GDAL, as whole processes: `npm run -s cli -- import` of a 100,000-parcel GeoJSON into a
// fresh mirror (open, import, close — the closing checkpoint included) against `ogr2ogr -f GPKG` writing the same
// file to a GeoPackage (both SQLite with a spatial index), interleaved in pairs; and where each file's bytes go.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import os from 'node:os';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { Mirror } from '../db/mirror.ts';
import { writeFieldsGeoJson, DEFAULT_LAYOUT } from './lib/fields.ts';
import { removeDir, tempDataDir } from './lib/service.ts';
import { ROOT } from './lib/paths.ts';
import { childrenCpuSeconds } from './lib/machine.ts';
import { withPeakRss } from './lib/peak-rss.ts';
import { median, r1, r3 } from './lib/stats.ts';
import { describePairs, interleaved, pairStats } from './lib/pairs.ts';
import { metric, startResult, writeResult } from './lib/result.ts';

// 9 pairs: on this 2-core host a pair's ratio spread 0.65–0.94 from the host's speed alone (ogr2ogr took 7.7–12 s for
// the same file in one run, 2026-12-01), and the median of 5 such pairs moved by ±0.1 from run to run.
const { values: args } = parseArgs({ options: { features: { type: 'string', default: '100000' }, pairs: { type: 'string', default: '9' } } });
const FEATURES = Math.ceil(Number(args.features) / DEFAULT_LAYOUT.fieldsPerFarm) * DEFAULT_LAYOUT.fieldsPerFarm;
const PAIRS = Number(args.pairs);
const ACCOUNT = 'acc-00000000-0000-4000-8000-00000000b001';
const OGR2OGR = process.env.OGR2OGR ?? 'ogr2ogr';
const CLI = resolve(ROOT, 'scripts/cli.mjs');
const MB = (b: number) => Math.round(b / 1e5) / 10;

const fileBytes = (path: string) => ['', '-wal', '-shm'].reduce((s, x) => s + (existsSync(path + x) ? statSync(path + x).size : 0), 0);

interface Run { value: number; cpu_s: number; bytes: number; peak_mb: number }

/** A process from spawn to exit; value = wall ms; its peak resident set size (bench/lib/peak-rss.ts). */
function timed(cmd: string, argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ ms: number; cpu_s: number; peak_mb: number }> {
  // What the fixtures left dirty in the page cache (the 85 MB GeoJSON before the first pair, the last run's output)
  // is written out now, not by the kernel's flusher during a timed run, where it would slow the side that fsyncs.
  spawnSync('sync');
  const cpu0 = childrenCpuSeconds();
  const t0 = performance.now();
  const rss = withPeakRss(cmd, argv, join(dir, 'peak-rss'));
  const child = spawn(rss.cmd, rss.argv, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
  return new Promise((done, fail) => child.on('close', (status) => {
    const ms = r1(performance.now() - t0);
    if (status !== 0) fail(new Error(`${cmd} ${argv.join(' ')} exited ${status}: ${err.slice(-1500)}`));
    else done({ ms, cpu_s: r3(childrenCpuSeconds() - cpu0), peak_mb: MB(rss.read() * 1024) });
  }));
}

interface Fixture { home: string; gpkg: string }

const dir = tempDataDir('mirror-import');
const geojson = join(dir, 'fields.geojson');
const inputBytes = writeFieldsGeoJson(geojson, FEATURES);
const { ensureBuilt } = await import('../scripts/build.mjs');
await ensureBuilt();
const LOAD_AT_START = os.loadavg()[0]!;
const record = startResult('mirror-import', `Mirror import: a ${FEATURES.toLocaleString('en-US')}-parcel GeoJSON, the CLI against ogr2ogr to a GeoPackage, whole processes`, 'npm run bench -- mirror-import');

/** Untimed: a FURROW_HOME whose mirror has the account (what `connect` leaves), and where ogr2ogr will write. */
async function prepare(pair: number): Promise<Fixture> {
  const home = join(dir, `home-${pair}`);
  const m = Mirror.open(join(home, 'mirror.db'));
  m.write.addAccount({ id: ACCOUNT, service_url: 'http://127.0.0.1:1', mode: 'api_key', label: 'bench' });
  m.close();
  return { home, gpkg: join(dir, `out-${pair}.gpkg`) };
}

let sizes: { table: string; mb: number }[] = [];
/** Page size, and average bytes per parcel of the geometry as stored (mirror: GeoJSON text; GeoPackage: its blob). */
const shape = { mirror: { page: 0, geometry: 0 }, gpkg: { page: 0, geometry: 0 } };
async function cliSide(f: Fixture): Promise<Run> {
  const t = await timed(process.execPath, [CLI, 'import', geojson, '--farm', 'Imported farm', '--account', ACCOUNT], { FURROW_HOME: f.home });
  const file = join(f.home, 'mirror.db');
  const bytes = fileBytes(file);
  const db = new Database(file, { readonly: true });
  const n = db.prepare("SELECT count(*) FROM outbox WHERE entity = 'parcel' AND op = 'create' AND state = 'queued'").pluck().get() as number;
  if (n !== FEATURES) throw new Error(`import: ${n} queued creates, expected ${FEATURES}`);
  if (db.pragma('journal_mode', { simple: true }) !== 'wal') throw new Error('import: the mirror was left out of WAL mode');
  if (sizes.length === 0) {
    sizes = (db.prepare('SELECT name, sum(pgsize) AS s FROM dbstat GROUP BY name ORDER BY s DESC').all() as { name: string; s: number }[])
      .filter((r) => r.s > 100_000).map((r) => ({ table: r.name, mb: MB(r.s) }));
    shape.mirror = { page: db.pragma('page_size', { simple: true }) as number, geometry: Math.round(db.prepare('SELECT avg(length(CAST(geometry AS BLOB))) FROM parcels').pluck().get() as number) };
  }
  db.close();
  removeDir(f.home);
  return { value: t.ms, cpu_s: t.cpu_s, bytes, peak_mb: t.peak_mb };
}

let gpkgSizes: { table: string; mb: number }[] = [];
async function ogrSide(f: Fixture): Promise<Run> {
  const t = await timed(OGR2OGR, ['-f', 'GPKG', f.gpkg, geojson]);
  const bytes = fileBytes(f.gpkg);
  const db = new Database(f.gpkg, { readonly: true });
  const table = db.prepare("SELECT table_name FROM gpkg_contents WHERE data_type = 'features'").pluck().get() as string;
  const n = db.prepare(`SELECT count(*) FROM "${table.replace(/"/g, '""')}"`).pluck().get() as number;
  if (n !== FEATURES) throw new Error(`ogr2ogr wrote ${n} features, expected ${FEATURES}`);
  if (gpkgSizes.length === 0) {
    gpkgSizes = (db.prepare('SELECT name, sum(pgsize) AS s FROM dbstat GROUP BY name ORDER BY s DESC').all() as { name: string; s: number }[])
      .filter((r) => r.s > 100_000).map((r) => ({ table: r.name, mb: MB(r.s) }));
    const column = db.prepare('SELECT column_name FROM gpkg_geometry_columns WHERE table_name = ?').pluck().get(table) as string;
    shape.gpkg = { page: db.pragma('page_size', { simple: true }) as number, geometry: Math.round(db.prepare(`SELECT avg(length("${column.replace(/"/g, '""')}")) FROM "${table.replace(/"/g, '""')}"`).pluck().get() as number) };
  }
  db.close();
  rmSync(f.gpkg, { force: true });
  return { value: t.ms, cpu_s: t.cpu_s, bytes, peak_mb: t.peak_mb };
}

/** Where the difference in size comes from, from the dbstat tables: per parcel, and by kind of table. */
function whyLarger(): string {
  const mb = (list: { table: string; mb: number }[], test: (name: string) => boolean) => r1(list.filter((x) => test(x.table)).reduce((t, x) => t + x.mb, 0));
  const perParcel = (megabytes: number) => Math.round((megabytes * 1e6) / FEATURES);
  const parcels = mb(sizes, (t) => t === 'parcels');
  const fields = mb(gpkgSizes, (t) => !t.startsWith('rtree_'));
  const rowBytes = perParcel(parcels);
  const rowsPer4k = Math.floor(4096 / rowBytes);
  return `Why the mirror is larger (its pages are ${shape.mirror.page} bytes, the GeoPackage's ${shape.gpkg.page}): a parcel row takes ${rowBytes} bytes ` +
    `against ${perParcel(fields)} for the GeoPackage's feature; its geometry is the GeoJSON text it sends (${shape.mirror.geometry} bytes on average, against ${shape.gpkg.geometry} for the GeoPackage's blob), ` +
    'which request bodies splice without serializing, beside its metadata JSON, three 36-character UUIDs (local, account, farm) and two ISO timestamps. ' +
    `The parcels have three indexes (local id, account and server id, farm: ${mb(sizes, (t) => t.startsWith('sqlite_autoindex_parcels') || t === 'parcels_farm')} MB), the GeoPackage none; ` +
    `every parcel has a queued outbox op (${mb(sizes, (t) => t.startsWith('outbox'))} MB with its three indexes) and an FTS5 search entry (${mb(sizes, (t) => t.startsWith('parcels_fts'))} MB); ` +
    `its undo entry keeps its id only (history: ${mb(sizes, (t) => t === 'history')} MB). The R*Tree is the same in both (${mb(sizes, (t) => t.startsWith('parcels_rtree'))} MB against ${mb(gpkgSizes, (t) => t.startsWith('rtree_'))}). ` +
    'No geometry is stored twice: a new parcel has no base (the last state from the service), and the undo history refers to rows instead of copying them. ' +
    `A new mirror has 16 KiB pages: SQLite's default 4 KiB page holds ${rowsPer4k} rows of ${rowBytes} bytes and leaves ${4096 - rowsPer4k * rowBytes} bytes of it unused.`;
}

const version = spawnSync(OGR2OGR, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? 'unknown';
// Where the CLI's peak memory starts from, before any import: Node alone, and the CLI loading its modules and exiting.
const floor = { node: (await timed(process.execPath, ['-e', '0'])).peak_mb, cli: (await timed(process.execPath, [CLI, '--help'], { FURROW_HOME: join(dir, 'help') })).peak_mb };
let result;
try {
  result = await interleaved(PAIRS, prepare, cliSide, ogrSide, (side, pair, r) =>
    process.stderr.write(`  pair ${pair + 1} ${side === 'a' ? 'cli import' : 'ogr2ogr'}: ${r.value} ms, ${r.cpu_s} s CPU, peak RSS ${r.peak_mb} MB, file ${MB(r.bytes)} MB\n`));
} finally {
  removeDir(dir);
}
const s = result.stats;
// Peak memory per pair as the wall time is: each pair's CLI peak RSS ÷ ogr2ogr's, the median with its spread.
const mem = pairStats(result.a.map((r) => r.peak_mb), result.b.map((r) => r.peak_mb));
const cliMs = median(result.a.map((r) => r.value));
const cliCpu = r3(median(result.a.map((r) => r.cpu_s)));
const ogrCpu = r3(median(result.b.map((r) => r.cpu_s)));
const out = record.finish({
  method: [
    `The file: ${FEATURES.toLocaleString('en-US')} GeoJSON Features (200 farms of 500 fields on a jittered 250 m grid in southern Spain), each a Polygon of 10–40 vertices (mean 25; star-shaped, so valid, about 1–9 ha), a \`name\` and 5 metadata properties; ${MB(inputBytes)} MB, generated with a seeded PRNG (not timed).`,
    'CLI side: `node scripts/cli.mjs import FILE --farm NAME` (what `npm run -s cli -- import` runs, from the built JavaScript, built before the first pair) into a FURROW_HOME whose fresh mirror (created as `connect` creates it, so with 16 KiB pages) holds the account; timed from spawn to exit: start-up, opening the mirror, reading, splitting and parsing the file, validating every parcel with the service\'s rules including its geodesic area (on this machine one worker thread and the importing thread; the worker also splits the second part of the file), writing rows, R*Tree, FTS5 index, outbox ops and undo history in one transaction, and closing the mirror. The CLI\'s connection is the mirror\'s only one, so the transaction runs with a rollback journal instead of the WAL (db/bulk.ts withRollbackJournal): its pages go to the database file once instead of to the WAL and again at the closing checkpoint; the commit is fsynced (synchronous=EXTRA: journal, database file and directory; the file is synced ahead on the thread pool as the chunks are written, db/bulk.ts SyncAhead, so that the commit does not wait for all of it) and the file is back in WAL mode before the process exits. Afterwards the mirror must hold every parcel with a queued create.',
    `ogr2ogr side: \`ogr2ogr -f GPKG out.gpkg fields.geojson\` (${version}), timed from spawn to exit; the GeoPackage must then hold every feature. GDAL writes the features and an R*Tree spatial index; it does not validate geometries, index text, or keep an outbox or undo history, and it does not fsync (durability differs in its favour).`,
    `${PAIRS} pairs, interleaved (the CLI first in odd pairs, ogr2ogr first in even ones); before each timed run, \`sync\` writes out what the fixtures left in the page cache. The ratio is CLI wall time ÷ ogr2ogr wall time of each pair, reported as the median with its minimum and maximum.`,
    'Peak memory: each process runs under GNU time (`/usr/bin/time -f %M`, both sides alike), which reports the maximum resident set size of the whole process (all its threads; for the CLI its worker thread, the SQLite page cache and Node\'s own code and data, about 40 MB for an empty `node -e 0`); the ratio is the CLI\'s peak ÷ ogr2ogr\'s in each pair, the median with its spread.',
    'Threads differ: the CLI uses two here (the importing thread and a worker per core beyond the first, up to three), ogr2ogr one. The ratio is of wall time, what a user waits; the CPU time of each side is reported beside it.',
  ],
  metrics: [
    metric('CLI import ÷ ogr2ogr, wall time, whole processes (median of pairs; the CLI on 2 threads, ogr2ogr on 1)', s.median, '×', { op: '<=', value: 0.8 }),
    metric('Pair ratio, lowest', s.min, '×'),
    metric('Pair ratio, highest', s.max, '×'),
    metric('CLI import ÷ ogr2ogr, peak memory (resident set) of the whole process (median of pairs)', mem.median, '×', { op: '<=', value: 2 }),
    metric('CLI import, peak memory (median run)', r1(median(result.a.map((r) => r.peak_mb))), 'MB'),
    metric('ogr2ogr, peak memory (median run)', r1(median(result.b.map((r) => r.peak_mb))), 'MB'),
    metric('Node alone (`node -e 0`), peak memory', floor.node, 'MB'),
    metric('The CLI loading its modules, no import (`cli --help`), peak memory', floor.cli, 'MB'),
    metric(`CLI import of ${FEATURES.toLocaleString('en-US')} parcels, wall time (median run)`, r1(cliMs), 'ms'),
    metric('CLI import: parcels per second (median run)', Math.round(FEATURES / (cliMs / 1000)), 'parcels/s'),
    metric('ogr2ogr, wall time (median run)', r1(median(result.b.map((r) => r.value))), 'ms'),
    metric('CLI import, CPU time of the process (median run)', cliCpu, 's'),
    metric('ogr2ogr, CPU time of the process (median run)', ogrCpu, 's'),
    metric('Mirror file after the import (closed, WAL checkpointed)', MB(result.a[0]!.bytes), 'MB'),
    metric('GeoPackage file', MB(result.b[0]!.bytes), 'MB'),
  ],
  tables: [{
    title: 'Every pair',
    columns: ['pair', 'first', 'CLI ms', 'ogr2ogr ms', 'ratio', 'CLI CPU s', 'ogr2ogr CPU s', 'CLI peak MB', 'ogr2ogr peak MB', 'memory ratio'],
    rows: result.a.map((a, i) => [i + 1, i % 2 === 0 ? 'CLI' : 'ogr2ogr', a.value, result.b[i]!.value, s.ratios[i]!, a.cpu_s, result.b[i]!.cpu_s, a.peak_mb, result.b[i]!.peak_mb, mem.ratios[i]!]),
  }, {
    title: 'Where the mirror\'s bytes go (SQLite dbstat, tables and indexes over 0.1 MB)',
    columns: ['table or index', 'MB'], rows: sizes.map((x) => [x.table, x.mb]),
  }, {
    title: 'Where the GeoPackage\'s bytes go',
    columns: ['table or index', 'MB'], rows: gpkgSizes.map((x) => [x.table, x.mb]),
  }],
  notes: [
    `Ratio ${describePairs(s)}; peak memory ${describePairs(mem)}.`,
    `In CPU time the import costs ${r3(cliCpu / ogrCpu)}× what ogr2ogr does (${cliCpu} s against ${ogrCpu} s, medians): it validates every parcel, indexes its text and writes an outbox op and an undo entry, which ogr2ogr does not. ` +
      (s.median < 1 ? 'It is faster in wall time because it spreads the work over two threads. ' : 'It is faster in wall time only when its two threads get two cores: ') +
      `on a machine loaded by other processes (load average ${r1(LOAD_AT_START)} at the start of this run, on ${os.cpus().length} cores) they share them with everything else, and the ratio moves toward the CPU ratio. ` +
      'The ratio depends on the machine: compare it only with runs on the same CPU (the machine line above).',
    `Peak memory: Node alone peaks at ${floor.node} MB here and the CLI loading its modules (\`cli --help\`) at ${floor.cli} MB, before any import; ` +
      'the import adds its worker thread (a V8 heap of its own and its own malloc arena), the young generations of both threads (the worker starts with 8 MB and holds every thread\'s growth from its first job, the importing thread\'s held at 16 MB at most, db/import/young-generation.ts; V8 grew it to 32 MB; a worker whose size depended on when growth stopped peaked 10–35 MB higher in one run of three), the split tables (33 bytes a feature), ' +
      'the results waiting to be written (at most 32 jobs ahead, and the jobs of the chunk of 2,500 rows being written, whose buffers are freed once it is: db/import/index.ts release; chunks of 5,000 peaked 6–8 MB higher, with their FTS5 pending terms), and SQLite\'s page cache (2 MiB during the import, db/bulk.ts IMPORT_CACHE_KIB). ' +
      'Without the worker thread (as on one core) the CLI peaked about 40 MB lower, but took longer than ogr2ogr. Holding both threads\' young generations at V8\'s first size (1 MB) instead cost 6–10 % more CPU and wall time (db/import/pool.ts); ' +
      'a worker limited to 8 MB (its resource limit) peaked higher, not lower, than one limited to 16 and working at 8. ' +
      'The import frees no buffer over glibc\'s 128 KiB mmap threshold while it runs (64 KiB split windows, tables made at their size and shared with the workers): freeing one raises the process\'s malloc trim threshold to twice its size, and the 4 MiB windows had left every thread\'s arena keeping up to 8 MiB of freed memory (db/import/free-buffers.ts). ' +
      'The CLI\'s worker threads end once every job is prepared, before the last chunk and the commit (db/import/index.ts endThreads). ' +
      'ogr2ogr is one thread of C++ with no JavaScript engine.',
    whyLarger(),
  ],
  details: { features: FEATURES, input_bytes: inputBytes, cli_ms: result.a.map((r) => r.value), ogr_ms: result.b.map((r) => r.value), ratios: s.ratios,
    cli_peak_mb: result.a.map((r) => r.peak_mb), ogr_peak_mb: result.b.map((r) => r.peak_mb), memory_ratios: mem.ratios, mirror_sizes_mb: sizes, gpkg_sizes_mb: gpkgSizes },
});
process.stderr.write(`  ratio ${describePairs(s)}, peak memory ${describePairs(mem)}\n  wrote ${writeResult(out)}\n`);
