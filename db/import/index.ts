// Import of parcel files (GeoJSON, KML/KMZ, zipped Shapefile) into the local mirror. Rules in docs/import-export.md.
//
// All or nothing, for the whole file: the farm (when new) and every chunk of parcels are written inside one
// outer transaction, so a file is never half-imported — not on an invalid feature, and not on a crash or a
// full disk halfway either. Each chunk is one undo entry ("Import fields.geojson (5,001–10,000 of 12,000)");
// a new farm is created in the first chunk's, so that undoing the import removes it too.
//
// The work is in jobs of a hundred features (jobs.ts): each is converted and validated with the
// service's rules (prepare.ts), then its parcels are written by MirrorWriter.createPreparedParcels. A large
// GeoJSON FeatureCollection is not parsed here at all: it is split by its bytes (geojson-split.ts) and
// worker threads parse and validate jobs (pool.ts) while this thread writes the ones before them, and
// validates jobs too whenever the writes have caught up. The transaction itself is synchronous, as before:
// nothing else runs on the connection between its statements.

import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import { stat } from 'node:fs/promises';
import type { Mirror } from '../mirror.ts';
import type { FarmRow } from '../types.ts';
import type { PreparedParcel } from '../writer.ts';
import { suspendInsertTrigger, type RowSource, SyncAhead, withImportCache, withRollbackJournal, withoutCheckpointAtCommit } from '../bulk.ts';
import type { ImportProblem } from './convert.ts';
import { ImportError, SAY_CRS } from './errors.ts';
import { UNKNOWN } from './geojson-split.ts';
import { JOB_FEATURES, JobResults, jobsOf, ParseWhole, type Jobs } from './jobs.ts';
import { acquirePool, releasePool, type ImportPool } from './pool.ts';
import { capYoungGeneration, type YoungGenerationCap } from './young-generation.ts';
import { FIELDS, POINT, SPLIT, UNSTAMPED, VALID, type JobOptions, type PreparedJob } from './prepare.ts';
import { PARCEL_RULES_VERSION } from '../../core/parcels/validate.ts';
import { readImportSource, type SourceFeatures, type SplitSource } from './read.ts';
import { existingShapes, rowShape, type FindSame } from './duplicates.ts';
import type { FileCrs } from './crs-source.ts';

export { ImportError } from './errors.ts';
export type { ImportErrorCode } from './errors.ts';
export type { ImportProblem } from './convert.ts';
export type { FileCrs } from './crs-source.ts';
export { HECTARES_KEYS, NAME_KEYS } from './convert.ts';

/**
 * Parcels per undo entry (and per progress report): big enough for fast bulk inserts, small enough for steady progress
 * and for what a chunk holds until it is written (its jobs' results, then its edit's FTS5 pending terms and undo
 * entry). The built CLI importing mirror-import's 100,000 parcels, 4 pairs interleaved at load 3-4 (2026-11-30): peak
 * RSS 110.9-112.3 MB with 2,500 against 116.9-120.4 MB with 5,000; wall time 4.06-4.74 s against 4.16-4.46 s, CPU time
 * 7.0-8.1 s against 7.0-7.4 s (medians 7.38 and 7.19 s). Holding fewer jobs ahead (AHEAD 12 instead of 32) saved nothing
 * measurable (118.2-118.9 MB against 117.6-120.0).
 */
export const IMPORT_CHUNK = 2500;

const OUT_OF_RANGE = new Set(['longitude_out_of_range', 'latitude_out_of_range']);

/** Files smaller than this are not worth starting threads for (about 5,000 typical parcels). */
const WORKER_MIN_BYTES = 4 << 20;

export interface ImportOptions {
  accountId: string;
  /** The farm receiving the parcels: the account's live farm of that name, else a new one. */
  farmName: string;
  /**
   * That very farm (a local id), rather than the first of that name: the app's preview imports into the farm chosen
   * in a list, and two farms may share a name. It must be a live farm of the account (else 'no_farm').
   */
  farmId?: string;
  /** Import the valid features and report the others, instead of importing nothing. */
  skipInvalid?: boolean;
  /**
   * Leave out the parcels that are the same shape as one the account had before the import (db/import/duplicates.ts),
   * counted in the report's `duplicates`: the app's preview marks them and skips them unless told otherwise.
   */
  skipDuplicates?: boolean;
  /**
   * Parcels checked (validated, and written when valid) out of all the file's parcels, after each chunk. Nothing is
   * imported until the whole file's transaction commits: a caller must not show these as imported.
   */
  onProgress?: (done: number, total: number) => void;
  /**
   * Asked after each chunk is written: true stops the import, which then rolls back whole (ImportError
   * 'cancelled'). A function, not an AbortSignal: the import runs synchronously, so it is read from shared memory.
   */
  cancelled?: () => boolean;
  /**
   * Worker threads for a large GeoJSON file: by default one less than the cores (at most 3), none on one
   * core; 0 validates on the calling thread only. `workerMinBytes` and `jobFeatures` exist for tests.
   */
  workers?: number;
  /**
   * No other import follows in this process (the CLI's one command): the worker threads end as soon as every job is
   * prepared, rather than stay idle for the next import (pool.ts acquirePool), so their heaps are given back before the
   * last chunk and the commit. mirror-import's 100,000 parcels (the built CLI, 3 interleaved pairs at
   * load 5.3–5.8, 2026-11-30): peak RSS 136.3–139.5 MB against 141.3–143.3 MB, CPU time the same (6.9–8.2 s against
   * 7.5–9.2 s).
   */
  endThreads?: boolean;
  workerMinBytes?: number;
  jobFeatures?: number;
  /** Where the NTv2 grid files some datum shifts need are looked for (grid-dirs.ts projGridDirs by default). */
  gridDirs?: readonly string[];
}

export interface ImportReport {
  farm: FarmRow;
  /** Parcels created, counting each part of a split MultiPolygon. */
  imported: number;
  /** With skipInvalid: one entry per problem of each feature left out, by feature index. */
  skipped: ImportProblem[];
  /** How many of the imported parcels are parts of a split MultiPolygon. */
  parts: number;
  /** With skipDuplicates: valid parcels left out as the same shape as one the account has. */
  duplicates: number;
  /** What the user should know about what was read (z values not kept, say); nothing was dropped silently. */
  notes: string[];
  /** The coordinate system the file was in (its parcels were reprojected to WGS84 from it). */
  crs: FileCrs;
}

export async function importFile(mirror: Mirror, file: string, opts: ImportOptions): Promise<ImportReport> {
  const farmName = opts.farmName.trim();
  if (farmName === '') throw new ImportError('no_farm_name', 'An import needs the name of the farm receiving the parcels');
  if (!mirror.read.account(opts.accountId)) throw new ImportError('no_account', `No such account in this mirror: ${opts.accountId}`);
  const workers = opts.workers ?? Math.min(3, availableParallelism() - 1);
  const size = await stat(file).then((s) => s.size, () => 0);
  // Before the file is read: a new thread takes a few hundred ms to boot.
  const pool = workers > 0 && size >= (opts.workerMinBytes ?? WORKER_MIN_BYTES) ? acquirePool(workers) : null;
  const young = capYoungGeneration();
  try {
    const read = { gridDirs: opts.gridDirs };
    const source = await readImportSource(file, true, pool ? (ref, start) => pool.splitFrom(ref, start) : undefined, read);
    try {
      return run(mirror, file, farmName, opts, source, pool, young);
    } catch (e) {
      if (!(e instanceof ParseWhole)) throw e;
      return run(mirror, file, farmName, opts, await readImportSource(file, false, undefined, read), null, young);
    }
  } finally {
    young.release();
    if (pool) releasePool(pool);
  }
}

function run(mirror: Mirror, file: string, farmName: string, opts: ImportOptions, source: SourceFeatures | SplitSource, pool: ImportPool | null,
  young: YoungGenerationCap): ImportReport {
  const name = basename(file);
  const jobOpts: JobOptions = { farmName, furrowExport: source.furrowExport, maxHectares: mirror.write.parcelLimit(opts.accountId) };
  const jobs = jobsOf(source, opts.jobFeatures ?? JOB_FEATURES, jobOpts);
  try {
    return write(mirror, name, farmName, opts, source, jobs, pool, young);
  } finally {
    jobs.close();
  }
}

function write(mirror: Mirror, name: string, farmName: string, opts: ImportOptions, source: SourceFeatures | SplitSource, jobs: Jobs, pool: ImportPool | null,
  young: YoungGenerationCap): ImportReport {
  if (jobs.features === 0) throw new ImportError('empty', `${name} has no features to import`);
  const results = new JobResults(jobs, pool, young.check);
  const db = mirror.syncDb;
  // Pages written once, to the database file, when this is the mirror's only connection (db/bulk.ts), through a
  // smaller page cache than the connection's own (withImportCache).
  return withRollbackJournal(db, () => withImportCache(db, () => {
    const syncAhead = new SyncAhead(db);
    try {
      return withoutCheckpointAtCommit(db, db.transaction(() => writeAll(mirror, name, farmName, opts, source, jobs, results, syncAhead)));
    } finally {
      syncAhead.close();
    }
  }));
}

function writeAll(mirror: Mirror, name: string, farmName: string, opts: ImportOptions, source: SourceFeatures | SplitSource, jobs: Jobs, results: JobResults,
  syncAhead: SyncAhead): ImportReport {
  const db = mirror.syncDb;
  const skipInvalid = opts.skipInvalid === true;
  // 12,345 as toLocaleString('en-US') writes it, without its first call loading the locale data (40 ms).
  const fmt = (n: number) => String(n).replace(/\B(?=(\d{3})+$)/g, ',');
  // Parcel rows, R*Tree and FTS5 written directly (db/bulk.ts); the trigger is back before the commit.
  const restoreTrigger = suspendInsertTrigger(db);
  const indexes = restoreTrigger !== null;
  // The total is needed before the first chunk (progress, undo labels): the bytes tell it for plain
  // features; jobs with others are prepared first.
  let total = 0;
  for (let j = 0; j < jobs.count; j++) total += jobs.inputs(j) !== UNKNOWN ? jobs.inputs(j) : results.get(j).inputs;
  const chunks = Math.ceil(total / IMPORT_CHUNK);
  const problems: ImportProblem[] = [];
  // Once the import is known to fail, the rest of the file is only validated (to list every problem),
  // not written: everything written so far is rolled back with the throw below anyway.
  let failed = false;
  let farm = opts.farmId === undefined ? mirror.read.farmByName(opts.accountId, farmName) : chosenFarm(mirror, opts.accountId, opts.farmId);
  let imported = 0;
  let parts = 0;
  let done = 0;
  const chunk = new ChunkRows();
  // The jobs whose every row is in the chunk being built (or left out): their memory is given back once it is written.
  let written: PreparedJob[] = [];
  let chunkInputs = 0;
  let chunkParts = 0;
  let pointZ = 0;
  const sameAs = opts.skipDuplicates ? existingShapes(mirror, opts.accountId) : null;
  let duplicates = 0;
  const flush = () => {
    const start = done;
    done += chunkInputs;
    if (!failed && chunk.length > 0) {
      const label = chunks > 1 ? `Import ${name} (${fmt(start + 1)}–${fmt(done)} of ${fmt(total)})` : `Import ${name}`;
      // No savepoint per chunk: a failing chunk fails the whole import, which rolls back as one. A new farm is made in
      // the first chunk's edit, so that undoing the import takes the farm away too.
      if (farm === undefined) {
        farm = mirror.write.createFarmWithPreparedParcels(opts.accountId, farmName, chunk, label, { indexes, savepoint: false });
        imported += chunk.length;
      } else {
        imported += mirror.write.createPreparedParcels(farm.local_id, chunk, label, { indexes, savepoint: false });
      }
      syncAhead.kick();
      parts += chunkParts;
    }
    chunk.clear();
    release(written);
    written = [];
    opts.onProgress?.(done, total);
    if (opts.cancelled?.()) throw new ImportError('cancelled', `${name}: the import was stopped; nothing was imported`);
    chunkInputs = 0;
    chunkParts = 0;
  };
  opts.onProgress?.(0, total);
  for (let j = 0; j < jobs.count; j++) {
    const r = results.take(j);
    if (jobs.inputs(j) !== UNKNOWN && r.inputs !== jobs.inputs(j)) throw new ParseWhole(`job ${j}: ${r.inputs} inputs, ${jobs.inputs(j)} expected`);
    for (const p of r.problems) problems.push(p);
    pointZ += r.pointZ;
    if (r.problems.length > 0 && !skipInvalid) failed = true;
    for (let k = 0, row = 0; k < r.inputs; k++) {
      const flags = r.flags[k]!;
      if (flags & VALID) {
        if (sameAs && isDuplicate(sameAs, r, row)) duplicates++;
        else {
          if (!failed) chunk.add(r, row, flags);
          if (flags & SPLIT) chunkParts++;
        }
        row++;
      }
      if (++chunkInputs === IMPORT_CHUNK) flush();
    }
    written.push(r);
  }
  if (opts.endThreads) results.endThreads();
  if (chunkInputs > 0) flush();
  problems.sort((a, b) => a.index - b.index || (a.part ?? 0) - (b.part ?? 0));
  const badFeatures = new Set(problems.map((p) => p.index)).size;
  const counts = { features: jobs.features, valid: jobs.features - badFeatures, invalid: badFeatures };
  const projected = projectionError(name, counts.valid, problems, source.format);
  if (projected) throw projected;
  if (failed) {
    throw new ImportError('invalid_features',
      `${name}: ${badFeatures} of ${jobs.features} feature(s) cannot be imported, so nothing was imported (${problems[0]!.message}). ` +
      'Fix them, or import only the valid ones.', problems, counts);
  }
  if ((imported === 0 || farm === undefined) && duplicates > 0 && problems.length === 0) {
    throw new ImportError('nothing_new', `${name}: every one of its ${duplicates} parcel(s) is in the account already (the same shape), so nothing was imported`, [], counts);
  }
  if (imported === 0 || farm === undefined) {
    throw new ImportError('invalid_features', `${name}: none of its ${jobs.features} feature(s) can be imported (${problems[0]?.message ?? 'no parcels'})`, problems, counts);
  }
  // The file was read twice (split, then job by job): it must still be the file that was split.
  jobs.checkFile();
  restoreTrigger?.();
  const notes = [...(source.notes ?? [])];
  if (pointZ > 0) {
    notes.push(`the height (z) of ${pointZ} point(s) is not kept: a point parcel is the square of its hectares on the ground ` +
      '(polygons keep theirs)');
  }
  return { farm, imported, skipped: problems, parts, notes, duplicates, crs: source.crs };
}

/**
 * A file none of whose features is valid because none has longitude/latitude coordinates: not a file of bad features
 * but one of another coordinate system, said once rather than once per feature (the import and the app's preview).
 */
export function projectionError(name: string, valid: number, problems: readonly ImportProblem[], format: string): ImportError | null {
  if (valid > 0 || problems.length === 0 || !problems.every((p) => OUT_OF_RANGE.has(p.code))) return null;
  return new ImportError('projection', `${name}: none of its coordinates are longitude/latitude (${problems[0]!.message.replace(/^Feature \d+[^:]*: /, '')}), ` +
    `so it is in a projected coordinate system (metres, such as UTM)${format === 'geojson' ? ' although it does not say which (it has no "crs" member)' : ''}: ` +
    SAY_CRS);
}

function chosenFarm(mirror: Mirror, accountId: string, farmId: string): FarmRow {
  const farm = mirror.read.farm(farmId);
  // Another account's farm is as unknown here as a missing one: an import never writes across accounts.
  if (!farm || farm.deleted || farm.account_id !== accountId) throw new ImportError('no_farm', `No farm ${farmId} in this account`);
  return farm;
}

/**
 * Frees the buffers of jobs whose rows are written, now rather than at the importing thread's next full collection.
 * They outlive a few scavenges (waiting to be written, then in their chunk), so their objects are in the old
 * generation, and their buffers (85 KB a job, outside the heap) were freed only with them: 10–25 MB of them were
 * waiting at any time. Transferred away (structuredClone) they are detached here, and the clone that owns them is
 * garbage at the next scavenge.
 */
function release(jobs: readonly PreparedJob[]): void {
  for (const r of jobs) structuredClone(null, { transfer: [r.bytes.buffer, r.offsets.buffer, r.numbers.buffer, r.flags.buffer] as ArrayBuffer[] });
}

/**
 * A chunk's rows as references into its jobs' results (job, row, flags), each row's object made only as the writer
 * inserts it: the objects of 5,000 rows (a view of each text field) lived through the whole chunk, past the young
 * generation, and were garbage only for the next full collection, which 100,000 parcels left 15–25 MB of at times.
 * One per import, emptied after each chunk: the references are kept in one typed array (IMPORT_CHUNK rows at most,
 * one per input), not in an array grown by copies each chunk, which outlived the young generation too.
 */
class ChunkRows implements RowSource<PreparedParcel> {
  private jobs: PreparedJob[] = [];
  private refs = new Int32Array(3 * IMPORT_CHUNK);
  private rows = 0;

  get length(): number {
    return this.rows;
  }

  add(r: PreparedJob, row: number, flags: number): void {
    if (this.jobs[this.jobs.length - 1] !== r) this.jobs.push(r);
    if (3 * this.rows === this.refs.length) {
      const more = new Int32Array(2 * this.refs.length);
      more.set(this.refs);
      this.refs = more;
    }
    const at = 3 * this.rows++;
    this.refs[at] = this.jobs.length - 1;
    this.refs[at + 1] = row;
    this.refs[at + 2] = flags;
  }

  at(i: number): PreparedParcel | undefined {
    if (i < 0 || i >= this.rows) return undefined;
    return rowOf(this.jobs[this.refs[3 * i]!]!, this.refs[3 * i + 1]!, this.refs[3 * i + 2]!);
  }

  /** Empty again, for the next chunk: its jobs are let go. */
  clear(): void {
    this.jobs = [];
    this.rows = 0;
  }
}

/** Whether row `row` of job `r` is the same shape as one the account had (an object per row only when asked). */
function isDuplicate(sameAs: FindSame, r: PreparedJob, row: number): boolean {
  const { box, shape } = rowShape(r, row);
  return sameAs(box, shape) !== null;
}

function rowOf(r: PreparedJob, row: number, flags: number): PreparedParcel {
  const n = r.numbers;
  const at = row * 5;
  const f = row * FIELDS;
  return {
    name: field(r, f), source_type: flags & POINT ? 'Point' : 'Polygon', point: flags & POINT ? field(r, f + 1) : null, geometry: field(r, f + 2), metadata: field(r, f + 3),
    checked: flags & UNSTAMPED ? null : PARCEL_RULES_VERSION,
    hectares: n[at]!, minx: n[at + 1]!, miny: n[at + 2]!, maxx: n[at + 3]!, maxy: n[at + 4]!,
  };
}

/** Field k's UTF-8 (a view, no copy); an empty field as '' (SQLite would take an empty buffer for NULL). */
const field = (r: PreparedJob, k: number): Uint8Array | string => (r.offsets[k + 1] === r.offsets[k] ? '' : r.bytes.subarray(r.offsets[k]!, r.offsets[k + 1]!));
