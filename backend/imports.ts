// Runs an import on its own thread (backend/import-worker.ts) and turns its messages into progress and a result.
import { Worker } from 'node:worker_threads';
import { RpcError } from '../core/rpc.ts';
import { ApiErrorCode, type ChangeEvent } from '../core/api.ts';
import type { ImportJob, ImportMessage } from './import-protocol.ts';

export interface ImportResult { farm: string; imported: number; skipped: number; problems: { feature: number; message: string }[]; notes: string[]; events: ChangeEvent[] }

/** The thread's entry: the bundled one beside the built host (dist/), the tsx shim beside this file from source. */
const ENTRY = new URL('./import-worker.mjs', import.meta.url);

export function runImport(job: Omit<ImportJob, 'stop'>, signal: AbortSignal, onProgress: (done: number, total: number) => void): Promise<ImportResult> {
  const stop = new SharedArrayBuffer(4);
  const flag = new Int32Array(stop);
  const worker = new Worker(ENTRY, { workerData: { ...job, stop } satisfies ImportJob });
  const onAbort = () => Atomics.store(flag, 0, 1);
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
      else if (m.t === 'done') settle(() => resolve({ farm: m.farm, imported: m.imported, skipped: new Set(m.skipped.map((p) => p.feature)).size, problems: m.skipped, notes: m.notes, events: m.events }));
      else settle(() => reject(m.code === 'cancelled' ? new RpcError('cancelled', m.message) : new RpcError(ApiErrorCode.importFailed, m.message, { code: m.code, problems: m.problems })));
    });
    worker.on('error', (err) => settle(() => reject(new RpcError('internal_error', `the import thread failed: ${err.message}`))));
    worker.on('exit', (code) => settle(() => reject(new RpcError('internal_error', `the import thread ended (${code}) without an answer`))));
  });
}
