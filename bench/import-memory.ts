// Peak memory of `npm run -s cli -- import` on a 250 MB GeoJSON, as a user runs it (a whole process): the import
// streams the file (a moving window to split it, then each worker thread reads its own jobs' bytes), so its
// memory must not grow with the file. Also run on a file a tenth the size, to show how much memory follows size.
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { farmFields } from './lib/fields.ts';
import { ROOT } from './lib/paths.ts';
import { percentile } from './lib/stats.ts';
import { metric, startResult, writeResult } from './lib/result.ts';

const { values: args } = parseArgs({ options: { mb: { type: 'string', default: '250' }, runs: { type: 'string', default: '2' } } });
const BIG_BYTES = Number(args.mb) * 1e6;
const RUNS = Number(args.runs);
const TARGET_MB = 400;
const record = startResult('import-memory', 'Import of a 250 MB GeoJSON: peak memory of the whole CLI process', 'npm run bench -- import-memory');

/** A FeatureCollection of the bench's realistic fields (bench/lib/fields.ts) of at least `bytes`, written as it is made. */
function writeFile(path: string, bytes: number): { features: number; bytes: number } {
  const fd = openSync(path, 'w');
  writeSync(fd, '{"type":"FeatureCollection","features":[\n');
  let written = 0;
  let features = 0;
  for (let farm = 0; written < bytes; farm++) {
    const lines: string[] = [];
    for (const x of farmFields(farm)) {
      lines.push(JSON.stringify({ type: 'Feature', properties: { name: x.name, ...x.metadata }, geometry: { type: 'Polygon', coordinates: [x.ring] } }));
    }
    const text = (features > 0 ? ',\n' : '') + lines.join(',\n');
    written += Buffer.byteLength(text);
    features += lines.length;
    writeSync(fd, text);
  }
  writeSync(fd, '\n]}\n');
  closeSync(fd);
  return { features, bytes: statSync(path).size };
}

// `connect` proves the credentials against a service: this one answers every request with an empty list.
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('[]');
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** The CLI as `npm run -s cli` runs it (scripts/cli.mjs: the built JavaScript), plus the peak-RSS reporter. */
function cli(home: string, argv: string[]): Promise<{ status: number | null; seconds: number; out: string; maxRssKiB: number }> {
  const rssFile = join(home, 'max-rss');
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', resolve(ROOT, 'bench/lib/max-rss.mjs'), resolve(ROOT, 'scripts/cli.mjs'), ...argv], {
    cwd: ROOT, env: { ...process.env, FURROW_HOME: home, FURROW_BENCH_RSS_FILE: rssFile },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
  return new Promise((r) => child.on('close', (status) => {
    r({ status, seconds: (performance.now() - t0) / 1000, out, maxRssKiB: Number(readFileSync(rssFile, 'utf8')) });
  }));
}

const { ensureBuilt } = await import('../scripts/build.mjs');
await ensureBuilt();
const dir = mkdtempSync(join(tmpdir(), 'furrow-bench-import-memory-'));
const files = {
  big: { path: join(dir, 'big.geojson'), ...writeFile(join(dir, 'big.geojson'), BIG_BYTES) },
  small: { path: join(dir, 'small.geojson'), ...writeFile(join(dir, 'small.geojson'), BIG_BYTES / 10) },
};
const mb = (bytes: number) => Math.round(bytes / 1e5) / 10;
interface Run { file: 'big' | 'small'; run: number; seconds: number; peak_mb: number; parcels: number }
const runs: Run[] = [];
try {
  // Small and big alternate, each in a fresh FURROW_HOME (a fresh mirror).
  for (let i = 0; i < RUNS; i++) {
    for (const which of ['small', 'big'] as const) {
      const home = mkdtempSync(join(dir, 'home-'));
      const c = await cli(home, ['connect', '--service', url, '--api-key', 'fk_bench', '--account', 'acc-bench']);
      if (c.status !== 0) throw new Error(`connect failed: ${c.out}`);
      const imp = await cli(home, ['import', files[which].path, '--farm', 'Bench']);
      if (imp.status !== 0) throw new Error(`import failed (exit ${imp.status}): ${imp.out.slice(-2000)}`);
      const db = new Database(join(home, 'mirror.db'), { readonly: true });
      const parcels = (db.prepare('SELECT count(*) AS n FROM parcels').get() as { n: number }).n;
      db.close();
      if (parcels !== files[which].features) throw new Error(`${parcels} parcels in the mirror, ${files[which].features} in the file`);
      runs.push({ file: which, run: i + 1, seconds: Math.round(imp.seconds * 10) / 10, peak_mb: mb(imp.maxRssKiB * 1024), parcels });
      console.log(`  ${which} run ${i + 1}: ${imp.seconds.toFixed(1)} s, peak RSS ${mb(imp.maxRssKiB * 1024)} MB`);
      rmSync(home, { recursive: true, force: true });
    }
  }
} finally {
  server.close();
  rmSync(dir, { recursive: true, force: true });
}

const of = (which: 'big' | 'small') => runs.filter((r) => r.file === which);
const worstBig = Math.max(...of('big').map((r) => r.peak_mb));
const result = record.finish({
  method: [
    `Two GeoJSON FeatureCollections of the benchmarks' realistic fields (polygons of 10–40 vertices, a name and 5 metadata properties each; bench/lib/fields.ts): ${mb(files.big.bytes)} MB (${files.big.features.toLocaleString('en-US')} features) and ${mb(files.small.bytes)} MB (${files.small.features.toLocaleString('en-US')} features), generated into a temporary directory (not timed).`,
    '`npm run -s cli -- import FILE --farm Bench` as a whole process (`node scripts/cli.mjs`, the built JavaScript, as `npm run -s cli` starts it; built before the first run), into a fresh FURROW_HOME each time, with the default options (on this machine one worker thread); the mirror must then hold every feature as a parcel. Peak memory is the process\'s maximum resident set size (getrusage, worker threads included), written by a module preloaded with `node --import` (bench/lib/max-rss.mjs).',
    `${RUNS} runs of each file, small and big alternating; the target is on the worst big run.`,
  ],
  metrics: [
    metric(`Peak RSS importing ${mb(files.big.bytes)} MB of GeoJSON (worst run)`, worstBig, 'MB', { op: '<=', value: TARGET_MB }),
    metric(`Peak RSS importing ${mb(files.small.bytes)} MB of GeoJSON (worst run)`, Math.max(...of('small').map((r) => r.peak_mb)), 'MB'),
    metric(`Import time of the ${mb(files.big.bytes)} MB file (median, whole process)`, percentile(of('big').map((r) => r.seconds).sort((a, b) => a - b), 50), 's'),
  ],
  tables: [{ title: 'Runs', columns: ['file', 'run', 'seconds', 'peak RSS (MB)', 'parcels'], rows: runs.map((r) => [r.file, r.run, r.seconds, r.peak_mb, r.parcels]) }],
  notes: [
    'Before the streaming import (commit f33bdb0) the whole file was read into memory and the worker thread\'s results were not bounded: 589 MB peak for this 250 MB file, measured in-process on this machine.',
    'KML, KMZ and zipped Shapefiles are still read whole (a zip\'s layer files are capped at FURROW_IMPORT_MAX_BYTES inflated, docs/import-export.md).',
  ],
  details: { files: { big: { bytes: files.big.bytes, features: files.big.features }, small: { bytes: files.small.bytes, features: files.small.features } }, runs },
});
console.log(`  worst peak RSS ${worstBig} MB (target ≤ ${TARGET_MB} MB)`);
console.log(`  wrote ${writeResult(result)}`);
