// Runs a vector overlay's conversion (backend/layer-vector.ts convertVector) on a worker thread
// (backend/layer-vector-worker.ts), as an import runs on its own (backend/imports.ts): the host's thread stays free
// to answer while a large overlay is read, reprojected and written. Answers as convertVector does: the converted
// overlay, or its refusal in words (LayerFileRefused); a thread that fails or ends without an answer is an Error.
import { startWorker, workerEntry } from '../platform/node/worker-pool.ts';
import type { Converted } from './layer-vector.ts';
import { LayerFileRefused } from './layer-sniff.ts';

/** The thread's entry: bundled beside the built host (dist/layer-vector-worker.mjs), the TypeScript from source. */
const ENTRY = workerEntry('layer-vector-worker', import.meta.url);

export interface VectorJob {
  file: string;
  name: string;
  kind: 'import' | 'gpkg';
  dest: string;
  gridDirs?: readonly string[];
}
export type VectorReply = { t: 'done'; converted: Converted } | { t: 'refused'; message: string } | { t: 'failed'; message: string };

/** convertVector's job on a thread of its own. */
export function convertOnThread(job: VectorJob): Promise<Converted> {
  const worker = startWorker(ENTRY, { workerData: { ...job, gridDirs: job.gridDirs ? [...job.gridDirs] : undefined } });
  return new Promise<Converted>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (!settled) {
        settled = true;
        fn();
      }
    };
    worker.on('message', (m: VectorReply) => settle(() => {
      if (m.t === 'done') resolve(m.converted);
      else if (m.t === 'refused') reject(new LayerFileRefused(m.message));
      else reject(new Error(`${job.name} could not be read: ${m.message}`));
    }));
    worker.on('error', (err) => settle(() => reject(new Error(`the overlay's thread failed: ${err.message}`))));
    worker.on('exit', (code) => settle(() => reject(new Error(`the overlay's thread ended (${code}) without an answer`))));
  });
}
