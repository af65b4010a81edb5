// Mirror import: a 100,000-parcel GeoJSON imported into a fresh mirror with importFile, side by side with GDAL's
// ogr2ogr writing the same file to a GeoPackage (both write SQLite with a spatial index), alternating runs.
import { parseArgs } from 'node:util';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { Mirror } from '../db/mirror.ts';
import { insertRow } from '../db/rows.ts';
import { enqueue } from '../db/outbox.ts';
import { searchText, suspendInsertTrigger, withoutCheckpointAtCommit } from '../db/bulk.ts';
import type { ParcelRow } from '../db/types.ts';
import { importFile } from '../db/import/index.ts';
import { farmFields, DEFAULT_LAYOUT } from './lib/fields.ts';
import { removeDir, tempDataDir } from './lib/service.ts';
import { cpuWindow } from './lib/machine.ts';
import { BENCH_DIR, ROOT } from './lib/paths.ts';
import { r1, r3 } from './lib/stats.ts';
import { latestProfile, monotonicUs, summarizeProfile, threadProfiles, type Frame, type ProfileSummary } from './lib/profile.ts';
import { metric, startResult, writeResult, type Table, type Target } from './lib/result.ts';

const { values: args } = parseArgs({
  options: {
    features: { type: 'string', default: '100000' },
    /** Runs of each side, alternating (mirror first); the best of each is reported. */
    runs: { type: 'string', default: '3' },
    /** After the measurement: one more import in a child process under node --cpu-prof, and the SQLite insert split. */
    profile: { type: 'boolean', default: false },
    /** Internal: import `--child-import <geojson>` once in this process and write the run to `--out`. */
    'child-import': { type: 'string' },
    out: { type: 'string' },
  },
});
const FEATURES = Math.ceil(Number(args.features) / DEFAULT_LAYOUT.fieldsPerFarm) * DEFAULT_LAYOUT.fieldsPerFarm;
const RUNS = Number(args.runs);
/** Faster than ogr2ogr: the import's time over ogr2ogr's below 1. */
const TARGET: Target = { op: '<', value: 1 };
const ACCOUNT = 'acc-00000000-0000-4000-8000-00000000b001';
const OGR2OGR = process.env.OGR2OGR ?? 'ogr2ogr';

/** The file: 200 farms of 500 fields, polygons of 10–40 vertices, a name and 5 metadata properties each. */
function writeGeoJson(file: string): { bytes: number; vertices: number } {
  const parts: string[] = [];
  let vertices = 0;
  for (let f = 0; f < FEATURES / DEFAULT_LAYOUT.fieldsPerFarm; f++) {
    for (const x of farmFields(f)) {
      vertices += x.ring.length - 1;
      parts.push(JSON.stringify({ type: 'Feature', properties: { name: x.name, ...x.metadata }, geometry: { type: 'Polygon', coordinates: [x.ring] } }));
    }
  }
  writeFileSync(file, `{"type":"FeatureCollection","features":[\n${parts.join(',\n')}\n]}\n`);
  return { bytes: statSync(file).size, vertices };
}

/** CPU seconds of this process's children that have exited and been waited for (cutime + cstime, /proc/self/stat). */
function childrenCpuSeconds(): number {
  const text = readFileSync('/proc/self/stat', 'utf8');
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / 100;
}

const fileBytes = (path: string) => ['', '-wal', '-shm'].reduce((s, x) => s + (existsSync(path + x) ? statSync(path + x).size : 0), 0);

interface Run {
  kind: 'mirror' | 'ogr2ogr';
  run: number;
  wall_ms: number;
  parcels_per_s: number;
  cpu_s: number;
  /** Cores used by other processes during the run (machine busy minus ours). */
  others: number;
  output_bytes: number;
  /** Mirror only: closing the mirror afterwards (SQLite checkpoints the WAL into the file), not in wall_ms. */
  close_ms?: number;
  window?: { from_us: number; to_us: number };
}

/** In this process: Mirror.open + the account (not timed), then importFile (timed), then checks. */
async function mirrorRun(run: number, geojson: string, dir: string): Promise<Run> {
  const dbFile = join(dir, `mirror-${run}-${randomUUID().slice(0, 8)}.db`);
  const mirror = Mirror.open(dbFile);
  try {
    mirror.write.addAccount({ id: ACCOUNT, service_url: 'http://127.0.0.1:1', mode: 'api_key', label: 'bench' });
    const cpu = cpuWindow({ bench: process.pid });
    const cpu0 = process.cpuUsage();
    const from = monotonicUs();
    const t0 = performance.now();
    const report = await importFile(mirror, geojson, { accountId: ACCOUNT, farmName: 'Imported farm' });
    const wall = performance.now() - t0;
    const to = monotonicUs();
    const used = process.cpuUsage(cpu0);
    const window = cpu.end();
    const rows = (mirror.syncDb.prepare('SELECT COUNT(*) AS n FROM parcels WHERE deleted = 0').get() as { n: number }).n;
    const ops = (mirror.syncDb.prepare("SELECT COUNT(*) AS n FROM outbox WHERE entity = 'parcel' AND op = 'create' AND state = 'queued'").get() as { n: number }).n;
    if (report.imported !== FEATURES || rows !== FEATURES || ops !== FEATURES || report.skipped.length) {
      throw new Error(`import: ${report.imported} imported, ${rows} rows, ${ops} queued creates, ${report.skipped.length} skipped`);
    }
    const c0 = performance.now();
    mirror.close();
    const close = performance.now() - c0;
    return {
      kind: 'mirror', run, wall_ms: r1(wall), parcels_per_s: Math.round(FEATURES / (wall / 1000)), cpu_s: r3((used.user + used.system) / 1e6),
      others: window.others, output_bytes: fileBytes(dbFile), close_ms: r1(close), window: { from_us: from, to_us: to },
    };
  } finally {
    try { mirror.close(); } catch { /* closed */ }
    for (const x of ['', '-wal', '-shm']) rmSync(dbFile + x, { force: true });
  }
}

/** `ogr2ogr -f GPKG out.gpkg in.geojson` as a child process, timed from spawn to exit; the GeoPackage must hold every feature. */
function ogrRun(run: number, geojson: string, dir: string): Run {
  const out = join(dir, `ogr-${run}.gpkg`);
  rmSync(out, { force: true });
  const cpu = cpuWindow({ bench: process.pid });
  const child0 = childrenCpuSeconds();
  const t0 = performance.now();
  const r = spawnSync(OGR2OGR, ['-f', 'GPKG', out, geojson], { encoding: 'utf8' });
  const wall = performance.now() - t0;
  const childCpu = childrenCpuSeconds() - child0;
  const window = cpu.end();
  if (r.status !== 0) throw new Error(`ogr2ogr exited with ${r.status ?? r.signal}: ${r.stderr}`);
  const db = new Database(out, { readonly: true });
  const table = (db.prepare("SELECT table_name FROM gpkg_contents WHERE data_type = 'features'").get() as { table_name: string }).table_name;
  const n = (db.prepare(`SELECT COUNT(*) AS n FROM "${table.replace(/"/g, '""')}"`).get() as { n: number }).n;
  db.close();
  if (n !== FEATURES) throw new Error(`ogr2ogr wrote ${n} features, expected ${FEATURES}`);
  const bytes = fileBytes(out);
  rmSync(out, { force: true });
  return {
    kind: 'ogr2ogr', run, wall_ms: r1(wall), parcels_per_s: Math.round(FEATURES / (wall / 1000)), cpu_s: r3(childCpu),
    others: Math.round(Math.max(0, window.others - childCpu / window.seconds) * 100) / 100, output_bytes: bytes,
  };
}

function ogrVersion(): string | null {
  const r = spawnSync(OGR2OGR, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Which part of an import a profile sample belongs to, on any of its threads; the stack comes leaf first. */
function classify(stack: Frame[]): string {
  const leaf = stack[0];
  if (!leaf) return 'other';
  if (leaf.fn === '(garbage collector)') return 'garbage collection';
  if (leaf.fn === '(idle)') return 'idle (waiting)';
  if (leaf.fn === '(program)') return 'V8 / native, unattributed';
  const has = (fn: string) => stack.some((f) => f.fn === fn);
  if (has('readImportSource')) return has('splitFeatureCollection') ? 'splitting the file by its bytes (splitFeatureCollection)' : 'reading the file (readImportSource)';
  if (has('parseSlice')) return 'decoding + JSON.parse of a job\'s slice (parseSlice)';
  if (has('toParcelInputs')) return 'features → parcel inputs (toParcelInputs)';
  if (has('polygonAreaM2')) return 'validation: geodesic area (core polygonAreaM2 → GeographicLib Geodesic.Inverse)';
  if (has('findSelfIntersection')) return 'validation: self-intersection check (core findSelfIntersection)';
  if (has('validateParcel')) return 'validation: the other checks (names, metadata, rings)';
  if (has('prepareFeatures')) return 'row columns: geometry text, JSON.stringify, search text (prepareFeatures)';
  if (has('insertNewParcels')) return 'SQLite: parcel rows (insertNewParcels)';
  if (has('insertSpatialEntries')) return 'SQLite: R*Tree entries (insertSpatialEntries)';
  if (has('insertSearchEntries')) return 'SQLite: FTS5 entries (insertSearchEntries)';
  if (has('enqueueCreated')) return 'SQLite: the outbox ops (enqueueCreated)';
  if (has('record')) return 'undo history and the rest of MirrorWriter.createPreparedParcels';
  if (has('collect') || has('drain')) return 'taking results from the worker threads (ImportPool)';
  if (has('sqliteTransaction')) return 'SQLite: commit (and the trigger dropped and put back)';
  if (has('importFile')) return 'importFile, other';
  return 'Node / other (a new thread: loading modules through tsx)';
}

/**
 * Where the SQLite writes cost what: the same rows into scratch mirrors, µs per row. Each parcel through the
 * parcels_ai trigger one INSERT at a time with its outbox op (what the import did before, and what edits and
 * sync pulls still do), then the import's bulk path (MirrorWriter.createPreparedParcels, chunks of 5,000).
 */
function insertSplit(dir: string, n = 20_000): { variant: string; us_per_row: number }[] {
  const fields = [];
  for (let f = 0; fields.length < n; f++) fields.push(...farmFields(f));
  const t = new Date().toISOString();
  const prepared = fields.slice(0, n).map((x) => ({
    name: x.name, point: null, geometry: JSON.stringify({ type: 'Polygon', coordinates: [x.ring] }), metadata: JSON.stringify(x.metadata),
    search: searchText(x.metadata), checked: null, hectares: 3, minx: x.bbox[0], miny: x.bbox[1], maxx: x.bbox[2], maxy: x.bbox[3],
  }));
  type Write = (db: Mirror['syncDb'], m: Mirror, farm: string) => void;
  const perRow = (trigger: string | null): Write => (db, _m, farm) => {
    if (trigger !== null) {
      db.exec('DROP TRIGGER parcels_ai');
      if (trigger) db.exec(`CREATE TRIGGER parcels_ai AFTER INSERT ON parcels BEGIN ${trigger} END;`);
    }
    db.transaction(() => {
      for (const p of prepared) {
        const row: ParcelRow = { local_id: randomUUID(), account_id: ACCOUNT, farm_local_id: farm, server_id: null, key: null, name: p.name, source_type: 'Polygon',
          point: null, geometry: p.geometry, hectares: p.hectares, metadata: p.metadata, minx: p.minx, miny: p.miny, maxx: p.maxx, maxy: p.maxy, checked: null, base: null, deleted: 0, created: t, modified: t };
        insertRow(db, 'parcel', row);
        enqueue(db, ACCOUNT, 'parcel', row.local_id, 'create');
      }
    })();
  };
  const bulk: Write = (db, m, farm) => {
    withoutCheckpointAtCommit(db, db.transaction(() => {
      const restore = suspendInsertTrigger(db);
      for (let c = 0; c < n; c += 5000) m.write.createPreparedParcels(farm, prepared.slice(c, c + 5000), 'Split', { indexes: restore !== null, savepoint: false });
      restore?.();
    }));
  };
  const variants: [string, Write][] = [
    ['each parcel through the trigger (R*Tree + FTS5 via json_each), one INSERT and one outbox op each: the import before', perRow(null)],
    ['the same with the FTS5 insert left out of the trigger (R*Tree only)', perRow('INSERT INTO parcels_rtree (id, minx, maxx, miny, maxy) VALUES (new.rowid, new.minx, new.maxx, new.miny, new.maxy);')],
    ['the same with no trigger at all (rows and outbox ops alone)', perRow('')],
    ['the import\'s bulk path: createPreparedParcels, trigger suspended, rows, R*Tree, FTS5, outbox, undo entries, commit', bulk],
  ];
  const out: { variant: string; us_per_row: number }[] = [];
  for (const [variant, write] of variants) {
    let best = Infinity;
    for (let pass = 0; pass < 2; pass++) {
      const file = join(dir, `split-${randomUUID().slice(0, 8)}.db`);
      const m = Mirror.open(file);
      m.write.addAccount({ id: ACCOUNT, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
      const farm = m.write.createFarm(ACCOUNT, 'Split');
      const t0 = performance.now();
      write(m.syncDb, m, farm.local_id);
      best = Math.min(best, performance.now() - t0);
      if ((m.syncDb.prepare('SELECT count(*) FROM parcels_rtree').pluck().get() as number) !== (variant.includes('no trigger') ? 0 : n)) throw new Error(`split ${variant}: R*Tree incomplete`);
      m.close();
      for (const x of ['', '-wal', '-shm']) rmSync(file + x, { force: true });
    }
    out.push({ variant, us_per_row: r1((best / n) * 1000) });
  }
  return out;
}

async function childImport(geojson: string, out: string): Promise<void> {
  const dir = tempDataDir('mirror-import-child');
  try {
    writeFileSync(out, JSON.stringify(await mirrorRun(1, geojson, dir)));
  } finally {
    removeDir(dir);
  }
}

interface Profiled { run: Run; main: ProfileSummary; worker: ProfileSummary | null }

async function profileImport(geojson: string, dir: string): Promise<Profiled> {
  const profDir = join(dir, 'prof');
  const out = join(dir, 'profiled-run.json');
  const r = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, '--import', 'tsx', join(BENCH_DIR, 'mirror-import.ts'),
    '--features', String(FEATURES), '--child-import', geojson, '--out', out], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`profiled import exited with ${r.status ?? r.signal}`);
  const run = JSON.parse(readFileSync(out, 'utf8')) as Run;
  const mainFile = latestProfile(profDir);
  // The import's worker thread: of the other threads' profiles (tsx's loader threads write theirs too), the busiest.
  const others = threadProfiles(profDir).filter((f) => f !== mainFile).map((f) => summarizeProfile(f, classify, run.window, 30));
  const busy = (p: ProfileSummary) => p.total_ms - (p.categories.find((c) => c.category.startsWith('idle'))?.ms ?? 0);
  const worker = others.sort((a, b) => busy(b) - busy(a))[0] ?? null;
  return { run, main: summarizeProfile(mainFile, classify, run.window, 30), worker };
}

async function main(): Promise<void> {
  if (args['child-import']) {
    await childImport(args['child-import'], args.out!);
    return;
  }
  const record = startResult('mirror-import', 'Mirror import: a 100,000-parcel GeoJSON, side by side with ogr2ogr to a GeoPackage',
    `npm run bench -- mirror-import${args.profile ? ' --profile' : ''}`);
  const dir = tempDataDir('mirror-import');
  try {
    const geojson = join(dir, 'fields.geojson');
    const file = writeGeoJson(geojson);
    process.stderr.write(`  wrote ${FEATURES} features, ${(file.bytes / 2 ** 20).toFixed(1)} MiB\n`);
    const version = ogrVersion();
    const runs: Run[] = [];
    for (let i = 1; i <= RUNS; i++) {
      const m = await mirrorRun(i, geojson, dir);
      runs.push(m);
      process.stderr.write(`  mirror run ${i}: ${m.wall_ms} ms (${m.parcels_per_s} parcels/s), others ${m.others} cores\n`);
      if (version) {
        const o = ogrRun(i, geojson, dir);
        runs.push(o);
        process.stderr.write(`  ogr2ogr run ${i}: ${o.wall_ms} ms (${o.parcels_per_s} parcels/s), others ${o.others} cores\n`);
      }
    }
    const best = (kind: Run['kind']) => runs.filter((r) => r.kind === kind).reduce<Run | null>((a, b) => (!a || b.wall_ms < a.wall_ms ? b : a), null);
    const bm = best('mirror')!;
    const bo = best('ogr2ogr');
    const ratio = bo ? Math.round((bm.wall_ms / bo.wall_ms) * 1000) / 1000 : NaN;

    let profiled: Profiled | null = null;
    let split: { variant: string; us_per_row: number }[] | null = null;
    if (args.profile) {
      profiled = await profileImport(geojson, dir);
      process.stderr.write(`  profiled import: ${profiled.run.wall_ms} ms\n`);
      split = insertSplit(dir);
    }
    const tables: Table[] = [{
      title: 'Every run, in the order run',
      columns: ['run', 'wall s', 'parcels/s', 'CPU s', 'output MiB', 'other processes (cores)'],
      rows: runs.map((r) => [`${r.kind} ${r.run}`, r3(r.wall_ms / 1000), r.parcels_per_s, r.cpu_s, r1(r.output_bytes / 2 ** 20), r.others]),
    }];
    if (profiled) {
      const { main: mainThread, worker } = profiled;
      const under = `node --cpu-prof, ${r3(profiled.run.wall_ms / 1000)} s under the profiler, importFile only`;
      const categories = (p: ProfileSummary) => p.categories.map((c) => [c.category, c.ms, r1((c.ms * 1000) / FEATURES), `${c.share} %`]);
      tables.push({
        title: `Where the import's time goes: CPU profile of one more import (${under}), the importing thread (SQLite, and validation whenever the writes are ahead)`,
        columns: ['Category', 'ms', 'µs per parcel', 'share'],
        rows: categories(mainThread),
      });
      if (worker) {
        tables.push({
          title: 'The same import, its worker thread (parsing and validating jobs)',
          columns: ['Category', 'ms', 'µs per parcel', 'share'],
          rows: categories(worker),
        });
      }
      tables.push({
        title: 'Top functions by self time in that profile, the importing thread',
        columns: ['Function', 'ms', 'share'],
        rows: mainThread.top_self.slice(0, 15).map((c) => [c.function, c.ms, `${c.share} %`]),
      });
      if (worker) {
        tables.push({
          title: 'Top functions by self time, the worker thread',
          columns: ['Function', 'ms', 'share'],
          rows: worker.top_self.slice(0, 12).map((c) => [c.function, c.ms, `${c.share} %`]),
        });
      }
    }
    if (split) {
      tables.push({
        title: 'SQLite writes alone, 20,000 of the same rows in one transaction into a fresh mirror (synchronous=FULL, best of 2, commit included): what the triggers cost, and the bulk path',
        columns: ['Variant', 'µs per row'],
        rows: split.map((s) => [s.variant, s.us_per_row]),
      });
    }
    const fmt = (n: number) => n.toLocaleString('en-US');
    const result = record.finish({
      method: [
        `The file: ${fmt(FEATURES)} GeoJSON Features (${FEATURES / DEFAULT_LAYOUT.fieldsPerFarm} farms of ${DEFAULT_LAYOUT.fieldsPerFarm} fields on a jittered 250 m grid in southern Spain), each a Polygon of 10–40 vertices (mean ${r1(file.vertices / FEATURES)}; star-shaped, so valid, about 1–9 ha), a \`name\` and 5 metadata properties (Supplier ID, region, contract_year, crop_type, certification); ${r1(file.bytes / 2 ** 20)} MiB, generated with a seeded PRNG into a temporary directory (not timed).`,
        `Mirror: in this process, a fresh mirror file (Mirror.open, synchronous=FULL, WAL) with one account (not timed); timed is \`await importFile(mirror, file, { accountId, farmName })\` until it returns: reading and parsing the file, converting, validating every parcel with the service's rules, and writing rows, R*Tree, FTS5 index, outbox ops and undo history in one transaction, committed. Afterwards every parcel must be a row with a queued create. With the default options, as the app and the CLI use them: on this machine one worker thread parses and validates while the importing thread writes (and validates too when its writes are ahead); the worker is kept between imports, so the first run also boots it. The commit does not copy the WAL into the database file (no automatic checkpoint at the import's commit): closing the mirror does, timed separately below and not included.`,
        `ogr2ogr: \`${OGR2OGR} -f GPKG out.gpkg fields.geojson\` spawned from this process (${version ?? 'not installed'}), timed from spawn to exit, so its process start-up (tens of ms) is included; the GeoPackage must then hold every feature. GDAL writes the features and an R*Tree spatial index; it does not validate geometries, index text, or keep an outbox or undo history.`,
        `${RUNS} runs of each, alternating mirror, ogr2ogr; each side reports its best (fastest) run, and the ratio is best import ÷ best ogr2ogr (below 1: the import is faster).`,
        'CPU seconds: this process for the import (process.cpuUsage), the waited-for child for ogr2ogr (/proc/self/stat cutime + cstime); "other processes" is the machine\'s busy time minus ours.',
      ],
      metrics: [
        version ? metric('Import time ÷ ogr2ogr time (best of each)', ratio, '×', TARGET)
          : metric('Import time ÷ ogr2ogr time: not measured, ogr2ogr is not installed (apt-get install gdal-bin)', NaN, '×'),
        metric('Mirror import (importFile): 100,000 parcels', r3(bm.wall_ms / 1000), 's'),
        metric('Mirror import: parcels per second', bm.parcels_per_s, 'parcels/s'),
        metric('ogr2ogr -f GPKG: the same file', bo ? r3(bo.wall_ms / 1000) : NaN, 's'),
        metric('ogr2ogr: parcels per second', bo?.parcels_per_s ?? NaN, 'parcels/s'),
        metric('Mirror: closing after the import (WAL checkpoint), not included above', bm.close_ms ?? NaN, 'ms'),
        metric('For context: (import + that closing checkpoint) ÷ ogr2ogr, same runs', bo && bm.close_ms !== undefined ? r3((bm.wall_ms + bm.close_ms) / bo.wall_ms) : NaN, '×'),
      ],
      tables,
      notes: [
        ...(version ? [] : [`ogr2ogr was not found, so its side was skipped: install it with \`apt-get install gdal-bin\` (Debian) and run again.`]),
        `Mirror file after the import: ${r1(bm.output_bytes / 2 ** 20)} MiB; GeoPackage: ${bo ? r1(bo.output_bytes / 2 ** 20) : 'n/a'} MiB.`,
        `Other processes used up to ${Math.max(...runs.map((r) => r.others))} cores during a run (per run in the table).`,
      ],
      details: { features: FEATURES, file_bytes: file.bytes, vertices: file.vertices, ogr2ogr: version, runs, ratio, profiled, insert_split: split },
    });
    process.stderr.write(`  ratio ${ratio} (mirror ${bm.wall_ms} ms, ogr2ogr ${bo?.wall_ms ?? 'skipped'} ms)\n  wrote ${writeResult(result)}\n`);
  } finally {
    removeDir(dir);
  }
}

await main();
