// A worker thread of the import (see pool.ts). For each import it is handed, it claims jobs from the shared
// counter (never more than AHEAD past the job the importing thread needs), reads and parses its slice of the
// file and prepares it (prepare.ts), and posts the result back, until no job is left; then it waits for the
// next import.

import { closeSync } from 'node:fs';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { prepareFeatures } from './prepare.ts';
import { JobReader } from './jobs.ts';
import { openRef } from './file-ref.ts';
import { AHEAD, NEXT, SIGNAL, STOP, WANTED, type Begin, type Reply, type SplitTail, type SplitTailReply } from './protocol.ts';
import { splitFeaturesFrom } from './geojson-split.ts';
import { holdWorkerGrowth } from './young-generation.ts';

const { port, holdGrowth } = workerData as { port: MessagePort; holdGrowth: boolean };

/** The next job this worker may prepare, now claimed; -1 when there is none (all claimed, or stopped). */
function claim(ctl: Int32Array, count: number): number {
  for (;;) {
    if (Atomics.load(ctl, STOP) !== 0) return -1;
    const next = Atomics.load(ctl, NEXT);
    if (next >= count) return -1;
    const wanted = Atomics.load(ctl, WANTED);
    if (next > wanted + AHEAD) {
      Atomics.wait(ctl, WANTED, wanted, 200);
      continue;
    }
    if (Atomics.compareExchange(ctl, NEXT, next, next + 1) === next) return next;
  }
}

/** The features from a byte on, split while the importing thread splits the bytes before it (geojson-split.ts). */
function splitTail({ splitTail: { file, start, done } }: SplitTail): void {
  let reply: SplitTailReply = { splitTail: null };
  let fd = -1;
  try {
    fd = openRef(file);
    const tables = splitFeaturesFrom(fd, file.size, start);
    reply = { splitTail: tables };
  } catch {
    // A changed or unreadable file: the importing thread splits on by itself, and finds out.
  } finally {
    if (fd >= 0) closeSync(fd);
  }
  const t = reply.splitTail;
  port.postMessage(reply, t ? [t.starts.buffer, t.ends.buffer, t.inputs.buffer, t.polygons.buffer] as ArrayBuffer[] : []);
  Atomics.store(done, 0, 1);
  Atomics.notify(done, 0);
}

parentPort!.on('message', (message: Begin | SplitTail) => {
  if ('splitTail' in message) return splitTail(message);
  const { run, ctl, file, jobs, opts } = message;
  let fd = -1;
  let reader: JobReader | null = null;
  const hold = holdGrowth ? holdWorkerGrowth() : () => {};
  try {
    for (let job = claim(ctl, jobs.count); job >= 0; job = claim(ctl, jobs.count)) {
      hold();
      let reply: Reply;
      try {
        if (fd < 0) fd = openRef(file);
        reader ??= new JobReader(fd, file);
        const { features, first, bytes, base } = reader.read(jobs, job);
        reply = { run, job, result: prepareFeatures(features, first, opts, { bytes, base, polygons: jobs.polygons }) };
      } catch (e) {
        // Not a syntax error (a changed file, say): the importing thread redoes the job and says what it is.
        reply = { run, job, error: (e as Error).message, syntax: e instanceof SyntaxError };
      }
      // The result's arrays are this job's own: handed over, not copied.
      const r = 'result' in reply ? reply.result : null;
      port.postMessage(reply, r ? [r.bytes.buffer, r.offsets.buffer, r.numbers.buffer, r.flags.buffer] as ArrayBuffer[] : []);
      Atomics.add(ctl, SIGNAL, 1);
      Atomics.notify(ctl, SIGNAL);
    }
  } finally {
    if (fd >= 0) closeSync(fd);
  }
});
