// An import for the backend: on its own thread in the mirror host (backend/import-worker.ts), so the host goes on
// answering; in process for the CLI, where nothing else runs. The same outcome either way (import-protocol.ts).
import { startWorker, workerEntry } from '../platform/node/worker-pool.ts';
import type { Mirror } from '../db/mirror.ts';
import { importFile } from '../db/import/index.ts';
import { RpcError } from '../core/rpc.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import { importFailure, importResult, type ImportFailure, type ImportJob, type ImportMessage, type ImportResult } from './import-protocol.ts';

/** The thread's entry: the bundled one beside the built host (dist/), the TypeScript beside this file from source. */
const ENTRY = workerEntry('import-worker', import.meta.url);

const failed = (f: ImportFailure): RpcError => (f.code === 'cancelled'
  ? new RpcError('cancelled', f.message)
  : new RpcError(f.code === 'internal' ? 'internal_error' : ApiErrorCode.importFailed, f.message, { code: f.code, problems: f.problems, problemCount: f.problemCount, counts: f.counts }));

export function runImport(job: Omit<ImportJob, 'stop'>, signal: AbortSignal, onProgress: (done: number, total: number) => void): Promise<ImportResult> {
  const stop = new SharedArrayBuffer(4);
  const flag = new Int32Array(stop);
  const worker = startWorker(ENTRY, { workerData: { ...job, stop } satisfies ImportJob });
  const onAbort = () => Atomics.store(flag, 0, 1);
  // Stopped while it waited for its turn: the thread rolls back at its first chunk.
  if (signal.aborted) onAbort();
  signal.addEventListener('abort', onAbort, { once: true });
  return new Promise<ImportResult>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      fn();
    };
    worker.on('message', (m: ImportMessage) => {
      if (m.t === 'progress') onProgress(m.done, m.total);
      else if (m.t === 'done') settle(() => resolve(m.result));
      else settle(() => reject(failed(m.failure)));
    });
    worker.on('error', (err) => settle(() => reject(new RpcError('internal_error', `the import thread failed: ${err.message}`))));
    worker.on('exit', (code) => settle(() => reject(new RpcError('internal_error', `the import thread ended (${code}) without an answer`))));
  });
}

/** The same import on the calling thread (the CLI: nothing else has to be answered meanwhile). */
export async function importHere(m: Mirror, job: Omit<ImportJob, 'stop' | 'home'>, signal: AbortSignal, onProgress: (done: number, total: number) => void): Promise<ImportResult> {
  try {
    const r = await importFile(m, job.file, { accountId: job.account, farmName: job.farm, skipInvalid: job.skipInvalid, onProgress, cancelled: () => signal.aborted });
    return importResult(r, []);
  } catch (err) {
    throw failed(importFailure(err));
  }
}
