// A worker thread of the import (see pool.ts). For each import it is handed, it claims jobs from the shared
// counter, parses its slice of the file and prepares it (prepare.ts), and posts the result back, until no job is
// left; then it waits for the next import.

import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { prepareFeatures, type JobOptions, type PreparedJob } from './prepare.ts';
import { NEXT, SIGNAL, STOP, parseSlice, type JobTable } from './jobs.ts';

/** One import: its control slots (jobs.ts), the file in shared memory, its jobs. */
export interface Begin { run: number; ctl: Int32Array; file: SharedArrayBuffer; jobs: JobTable; opts: JobOptions }
/** A job's result, or why there is none (a SyntaxError: the file is not valid JSON). */
export type Outcome = { job: number; result: PreparedJob } | { job: number; error: string; syntax: boolean };
export type Reply = Outcome & { run: number };

const { port } = workerData as { port: MessagePort };

parentPort!.on('message', ({ run, ctl, file, jobs, opts }: Begin) => {
  const bytes = new Uint8Array(file);
  for (;;) {
    if (Atomics.load(ctl, STOP) !== 0) break;
    const job = Atomics.add(ctl, NEXT, 1);
    if (job >= jobs.count) break;
    let reply: Reply;
    try {
      const { features, first } = parseSlice(bytes, jobs, job);
      reply = { run, job, result: prepareFeatures(features, first, opts, { bytes, polygons: jobs.polygons }) };
    } catch (e) {
      reply = { run, job, error: (e as Error).message, syntax: e instanceof SyntaxError };
    }
    port.postMessage(reply);
    Atomics.add(ctl, SIGNAL, 1);
    Atomics.notify(ctl, SIGNAL);
  }
});
