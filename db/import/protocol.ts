// What the importing thread and the import's worker threads share (pool.ts, worker.ts, jobs.ts): the slots of the
// control array, the job table, and the messages. A module of its own, so that none of the three imports another
// only for these.
import type { FileRef } from './file-ref.ts';
import type { JobOptions, PreparedJob } from './prepare.ts';
import type { TailTables } from './split-scanner.ts';

/**
 * Slots of the shared control array: the next job to claim, results posted so far, stop, and the highest job
 * the importing thread has asked for. A worker claims no job more than AHEAD past that one: results wait in
 * memory until the importing thread writes them, so without this bound a fast worker would pile up the
 * results of the whole file while the writes lag behind.
 */
export const NEXT = 0;
export const SIGNAL = 1;
export const STOP = 2;
export const WANTED = 3;
export const CONTROL_SLOTS = 4;
export const AHEAD = 32;

export interface JobTable {
  count: number;
  /** Per job: first byte, end byte, first feature, number of features. */
  spans: Float64Array;
  /** Per job: the parcel inputs its features give, when the bytes tell (see geojson-split.ts), else UNKNOWN. */
  inputs: Float64Array;
  /** Per feature: where a Polygon's coordinates lie (SplitCollection.polygons). */
  polygons: Float64Array;
}

/** One import: its control slots (jobs.ts), the file (read by each thread itself), its jobs. */
export interface Begin { run: number; ctl: Int32Array; file: FileRef; jobs: JobTable; opts: JobOptions }
/** A job's result, or why there is none (a SyntaxError: the file is not valid JSON). */
export type Outcome = { job: number; result: PreparedJob } | { job: number; error: string; syntax: boolean };
export type Reply = Outcome & { run: number };

/**
 * Split the features of `file` from byte `start` on (geojson-split.ts splitFeaturesFrom) while the importing thread
 * splits the bytes before it; the reply comes on the worker's channel, then `done[0]` is set to 1.
 */
export interface SplitTail { splitTail: { file: FileRef; start: number; done: Int32Array } }
export interface SplitTailReply { splitTail: TailTables | null }
