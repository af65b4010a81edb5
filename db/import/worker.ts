// A worker thread of the import (see pool.ts): claims jobs from the shared counter, parses its slice of the
// file and prepares it (prepare.ts), and posts the result back, until no job is left.

import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { prepareFeatures, type JobOptions, type PreparedJob } from './prepare.ts';
import { NEXT, SIGNAL, STOP, parseSlice, type JobTable } from './jobs.ts';

export interface Begin { file: SharedArrayBuffer; jobs: JobTable; opts: JobOptions }
export type Reply = { job: number; result: PreparedJob } | { job: number; error: string; syntax: boolean };

const { ctl, port } = workerData as { ctl: Int32Array; port: MessagePort };

parentPort!.once('message', (m: Begin) => {
  const bytes = new Uint8Array(m.file);
  for (;;) {
    if (Atomics.load(ctl, STOP) !== 0) break;
    const job = Atomics.add(ctl, NEXT, 1);
    if (job >= m.jobs.count) break;
    let reply: Reply;
    try {
      const { features, first } = parseSlice(bytes, m.jobs, job);
      reply = { job, result: prepareFeatures(features, first, m.opts, { bytes, polygons: m.jobs.polygons }) };
    } catch (e) {
      reply = { job, error: (e as Error).message, syntax: e instanceof SyntaxError };
    }
    port.postMessage(reply);
    Atomics.add(ctl, SIGNAL, 1);
    Atomics.notify(ctl, SIGNAL);
  }
  port.close();
});
