// The jobs of an import: consecutive slices of the file's features, claimed one at a time by the worker
// threads and the importing thread through a shared counter (pool.ts), and prepared by whoever claims them.

import { closeSync } from 'node:fs';
import { UNKNOWN, type SplitCollection } from './geojson-split.ts';
import { checkUnchanged, openRef, readInto, type FileRef } from './file-ref.ts';
import type { ImportPool } from './pool.ts';
import { prepareFeatures, type JobOptions, type PreparedJob } from './prepare.ts';
import type { SourceFeatures, SplitSource } from './read.ts';
import type { Begin, JobTable, Outcome } from './protocol.ts';

/** The file split and parsed differently than its bytes said (a bug, or a broken file): import it parsed whole. */
export class ParseWhole extends Error {}


/** Features per job: big enough that posting a result costs little, small enough to keep both threads busy to the end. */
export const JOB_FEATURES = 100;


export function jobTable(split: SplitCollection, perJob: number = JOB_FEATURES): JobTable {
  const features = split.starts.length;
  const count = Math.ceil(features / perJob);
  const spans = new Float64Array(count * 4);
  const inputs = new Float64Array(count);
  for (let j = 0; j < count; j++) {
    const first = j * perJob;
    const last = Math.min(features, first + perJob) - 1;
    spans.set([split.starts[first]!, split.ends[last]!, first, last - first + 1], j * 4);
    let n = 0;
    for (let f = first; f <= last && n !== UNKNOWN; f++) n = split.inputs[f] === UNKNOWN ? UNKNOWN : n + split.inputs[f]!;
    inputs[j] = n;
  }
  return { count, spans, inputs, polygons: split.polygons };
}

/**
 * Where a thread reads its jobs' bytes: one buffer, grown when a job needs more and used again for the next job,
 * rather than a new one per job (a thousand 85 KB buffers for 100,000 parcels, each kept until a collection found it
 * garbage). A job's bytes are read, parsed and prepared before the next job is read: nothing keeps a view of them (a
 * result's bytes are its own, prepare.ts Utf8Writer).
 */
export class JobReader {
  private buf = Buffer.allocUnsafeSlow(0);

  constructor(private readonly fd: number, private readonly file: FileRef) {}

  /**
   * Job `job`'s features, parsed, and its bytes (valid until the next read) with the file offset they start at. The
   * bytes are read between a '[' and a ']' of the buffer's own, so they parse as one array from one string, not from a
   * copy of them bracketed.
   */
  read(jobs: JobTable, job: number): { features: unknown[]; first: number; bytes: Uint8Array; base: number } {
    const [start, end, first, n] = jobs.spans.subarray(job * 4, job * 4 + 4) as unknown as [number, number, number, number];
    const size = end - start;
    if (this.buf.length < size + 2) this.buf = Buffer.allocUnsafeSlow(Math.max(size + 2, this.buf.length * 2, 1 << 17));
    readInto(this.fd, this.file, this.buf, 1, start, end);
    this.buf[0] = OPEN_BRACKET;
    this.buf[size + 1] = CLOSE_BRACKET;
    const features = JSON.parse(this.buf.toString('utf8', 0, size + 2)) as unknown[];
    if (!Array.isArray(features) || features.length !== n) throw new SyntaxError(`features ${first}–${first + n - 1} of the file do not parse as ${n} values`);
    return { features, first, bytes: this.buf.subarray(1, size + 1), base: start };
  }
}

const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * Job `job`'s features, parsed from its bytes. They run from its first feature to its last, commas between them
 * included, so they parse as an array once bracketed. A SyntaxError means the file is not valid JSON.
 */
export function parseSlice(bytes: Uint8Array, jobs: JobTable, job: number): { features: unknown[]; first: number } {
  const [, , first, n] = jobs.spans.subarray(job * 4, job * 4 + 4) as unknown as [number, number, number, number];
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
  const features = JSON.parse(`[${text}]`) as unknown[];
  if (features.length !== n) throw new SyntaxError(`features ${first}–${first + n - 1} of the file do not parse as ${n} values`);
  return { features, first };
}

export interface Jobs {
  count: number;
  /** What worker threads need to prepare jobs themselves (split files only). */
  shared?: Omit<Begin, 'run' | 'ctl'>;
  features: number;
  /** Parcel inputs of job j when known before preparing it, else UNKNOWN. */
  inputs(j: number): number;
  /** Prepares job j on this thread. */
  run(j: number): Outcome;
  /** Throws file_changed when the file is no longer the one split (split files only). */
  checkFile(): void;
  /** Releases the file. */
  close(): void;
}

export function jobsOf(source: SourceFeatures | SplitSource, perJob: number, opts: JobOptions): Jobs {
  if ('split' in source) {
    const table = jobTable(source.split, perJob);
    let fd = -1;
    let reader: JobReader | null = null;
    const file = () => (fd >= 0 ? fd : (fd = openRef(source.file)));
    return {
      count: table.count, features: source.split.starts.length,
      shared: { file: source.file, jobs: table, opts },
      inputs: (j) => table.inputs[j]!,
      run: (job) => {
        reader ??= new JobReader(file(), source.file);
        try {
          const { features, first, bytes, base } = reader.read(table, job);
          return { job, result: prepareFeatures(features, first, opts, { bytes, base, polygons: table.polygons }) };
        } catch (e) {
          if (e instanceof SyntaxError) return { job, error: e.message, syntax: true };
          throw e;
        }
      },
      checkFile: () => checkUnchanged(file(), source.file),
      close: () => {
        if (fd >= 0) closeSync(fd);
        fd = -1;
      },
    };
  }
  const features = source.features;
  return {
    count: Math.ceil(features.length / perJob), features: features.length,
    // Features parsed already (KML, Shapefile, small GeoJSON): how many parcels each gives is known only once
    // prepared, so every job is prepared before the first chunk is written.
    inputs: () => UNKNOWN,
    run: (job) => ({ job, result: prepareFeatures(features.slice(job * perJob, (job + 1) * perJob), job * perJob, opts) }),
    checkFile: () => {},
    close: () => {},
  };
}

/**
 * Job results in any order, from whoever prepares them: a worker, or this thread. Asked for a job that is not
 * ready, this thread prepares an unclaimed one itself rather than wait, and waits only when every job is claimed.
 */
export class JobResults {
  private readonly done = new Map<number, Outcome>();
  private readonly next: () => number;

  /** `afterJob`: called as each job is asked for and after each job this thread prepares (young-generation.ts). */
  constructor(private readonly jobs: Jobs, private pool: ImportPool | null, private readonly afterJob: () => void = () => {}) {
    let n = 0;
    if (pool && jobs.shared) {
      pool.begin(jobs.shared);
      this.next = () => pool.claim();
    } else {
      this.pool = null;
      this.next = () => (n < jobs.count ? n++ : -1);
    }
  }

  /** Job j's result, kept for take(). */
  get(j: number): PreparedJob {
    this.pool?.want(j);
    this.afterJob();
    for (;;) {
      const r = this.done.get(j);
      if (r) {
        if ('result' in r) return r.result;
        if (r.syntax) throw new ParseWhole(r.error);
        this.done.set(j, this.jobs.run(j)); // a worker failed otherwise: this thread will say how
        continue;
      }
      if (this.pool?.drain(this.done)) continue;
      const k = this.next();
      if (k >= 0) {
        this.done.set(k, this.jobs.run(k));
        this.afterJob();
      }
      else if (k === -2) this.pool!.collect(this.done);
      else for (const lost of this.pool!.collect(this.done)) this.done.set(lost, this.jobs.run(lost));
    }
  }

  /** Every job has been taken: the pool's threads end (ImportOptions.endThreads); it is not used again. */
  endThreads(): void {
    this.pool?.close();
    this.pool = null;
  }

  /** Job j's result, forgotten here. */
  take(j: number): PreparedJob {
    const r = this.get(j);
    this.done.delete(j);
    return r;
  }
}
