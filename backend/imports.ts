// Imports (core/api-imports.ts): importFile (a file by its path: the command line's) and the app's preview then import of a
// dropped file (core/api-imports.ts). On a thread of its own in the mirror host (backend/import-worker.ts), so the
// host goes on answering; in process for the CLI, where nothing else runs. The same outcome either way
// (import-protocol.ts). The preview checks each feature as the import will and writes nothing; the import of a
// preview is importFile with skipInvalid on the kept file, so the two can never disagree on what is valid.
import { startWorker, workerEntry } from '../platform/node/worker-pool.ts';
import type { Mirror } from '../db/mirror.ts';
import { RpcCode, RpcError, type HandlersOf } from '../core/rpc.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import { IMPORT_PREVIEW_MAX_BYTES, IMPORT_PREVIEW_MAX_LISTED, type IMPORTS_API } from '../core/api-imports.ts';
import { checkName } from '../core/parcels/name.ts';
import { reporter } from '../core/parcels/problems.ts';
import { importFailure, importResult, type ImportFailure, type ImportJob, type ImportMessage, type ImportResult, type PreviewJob } from './import-protocol.ts';
import type { FilePreview, PreviewOptions } from '../db/import/preview.ts';
import { PreviewRefused, safeFileName } from './import-previews.ts';
import { existingShapes } from '../db/import/duplicates.ts';
import { accountOf } from './views.ts';
import { gridDirs, saveGrid } from './grids.ts';
import type { HostContext } from './context.ts';

/** The thread's entry: the bundled one beside the built host (dist/), the TypeScript beside this file from source. */
const ENTRY = workerEntry('import-worker', import.meta.url);

/** Positions of invalid shapes a preview sends for the map, in all (about 40 bytes each). */
const PREVIEW_MAX_POSITIONS = 200_000;

type Progress = (done: number, total: number) => void;
type Job = Omit<ImportJob, 'stop' | 'home' | 'gridDirs'>;

const failed = (f: ImportFailure): RpcError => (f.code === 'cancelled'
  ? new RpcError('cancelled', f.message)
  : new RpcError(f.code === 'internal' ? 'internal_error' : ApiErrorCode.importFailed, f.message, { code: f.code, problems: f.problems, problemCount: f.problemCount, counts: f.counts, ...(f.grids ? { grids: f.grids } : {}) }));

/** A job on the import thread until it answers. An import is stopped through its flag (it rolls back); a preview, which writes nothing, by ending the thread. */
function onThread(data: Omit<ImportJob, 'stop'> | PreviewJob, signal: AbortSignal, onProgress: Progress): Promise<ImportResult | FilePreview> {
  const stop = new SharedArrayBuffer(4);
  const flag = new Int32Array(stop);
  const preview = 'preview' in data;
  const worker = startWorker(ENTRY, { workerData: preview ? data : { ...data, stop } satisfies ImportJob });
  return new Promise<ImportResult | FilePreview>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      fn();
    };
    function onAbort() {
      if (!preview) {
        Atomics.store(flag, 0, 1);
        return;
      }
      settle(() => reject(new RpcError('cancelled', 'the preview was stopped')));
      void worker.terminate();
    }
    // Stopped while it waited for its turn: the thread rolls back at its first chunk.
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: ImportMessage) => {
      if (m.t === 'progress') onProgress(m.done, m.total);
      else if (m.t === 'done') settle(() => resolve(m.result));
      else if (m.t === 'previewed') settle(() => resolve(m.preview));
      else settle(() => reject(failed(m.failure)));
    });
    worker.on('error', (err) => settle(() => reject(new RpcError('internal_error', `the import thread failed: ${err.message}`))));
    worker.on('exit', (code) => settle(() => reject(new RpcError('internal_error', `the import thread ended (${code}) without an answer`))));
  });
}

export const runImport = (job: Omit<ImportJob, 'stop'>, signal: AbortSignal, onProgress: Progress) => onThread(job, signal, onProgress) as Promise<ImportResult>;

/** The same import on the calling thread (the CLI: nothing else has to be answered meanwhile). */
export async function importHere(m: Mirror, job: Omit<ImportJob, 'stop' | 'home'>, signal: AbortSignal, onProgress: Progress): Promise<ImportResult> {
  const { importFile } = await import('../db/import/index.ts');
  try {
    const r = await importFile(m, job.file, {
      accountId: job.account, farmName: job.farm, farmId: job.farmId, skipInvalid: job.skipInvalid, skipDuplicates: job.skipDuplicates, onProgress, cancelled: () => signal.aborted,
      gridDirs: job.gridDirs,
      // The CLI imports one file per process: its threads need not wait for another.
      endThreads: true,
    });
    return importResult(r, []);
  } catch (err) {
    throw failed(importFailure(err));
  }
}

/** What an import of a file by its path needs of the backend: the command line opens only this (backend/sync-backend.ts). */
export type ImportContext = Pick<HostContext, 'home' | 'app' | 'mirror' | 'jobs' | 'emit' | 'account'>;

/** An import, in its turn, with its change events sent: importFile's and importPreviewed's. */
export async function importCall(c: ImportContext, job: Job, signal: AbortSignal, onProgress: Progress): Promise<Omit<ImportResult, 'events'>> {
  // Behind a running sync (or import): it starts when that one ends, stopped meanwhile if the caller cancels.
  const end = await c.jobs.turn('import');
  try {
    const full = { ...job, gridDirs: gridDirs(c.home) };
    const { events, ...summary } = await (c.app ? runImport({ home: c.home, ...full }, signal, onProgress) : importHere(c.mirror, full, signal, onProgress));
    for (const e of events) c.emit('changed', e);
    return summary;
  } finally {
    end();
  }
}

async function previewCall(c: HostContext, account: string, file: string, given: Omit<PreviewOptions, 'onProgress' | 'sameAs' | 'gridDirs'>, signal: AbortSignal, onProgress: Progress): Promise<FilePreview> {
  const opts = { ...given, gridDirs: gridDirs(c.home) };
  if (c.app) return onThread({ preview: true, file, opts, home: c.home, account }, signal, onProgress) as Promise<FilePreview>;
  const { previewFile } = await import('../db/import/preview.ts');
  try {
    return await previewFile(file, { ...opts, sameAs: existingShapes(c.mirror, account), onProgress });
  } catch (err) {
    throw failed(importFailure(err));
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const megabytes = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);

/** The refusal of a file too large for the app, with the way that takes it. */
const tooLarge = (name: string, bytes: number) => new RpcError(ApiErrorCode.tooLarge,
  `${name} is ${megabytes(bytes)} MB, more than the app previews (${megabytes(IMPORT_PREVIEW_MAX_BYTES)} MB): import it with the CLI, ` +
  `which reads files of any size from disk: npm run -s cli -- import FILE --farm NAME [--skip-invalid]`, { bytes, max: IMPORT_PREVIEW_MAX_BYTES });

/** The previews' own refusals (backend/import-previews.ts) in the API's codes. */
function previewRefusal<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof PreviewRefused) throw new RpcError(err.code === 'busy' ? ApiErrorCode.busy : ApiErrorCode.tooLarge, err.message);
    throw err;
  }
}

/** The import of a file by its path (the command line's), alone: what the CLI's import calls, over the mirror alone. */
export function fileImportHandlers(c: ImportContext): Pick<HandlersOf<typeof IMPORTS_API>, 'importFile'> {
  return {
    importFile: ({ account, path, farm, skipInvalid = false }, ctx) => {
      c.account(account);
      return importCall(c, { file: path, account, farm, skipInvalid }, ctx.signal, (done, total) => ctx.progress({ phase: 'writing', done, total, unit: 'parcels' }));
    },
  };
}

export function importHandlers(c: HostContext): HandlersOf<typeof IMPORTS_API> {
  return {
    ...fileImportHandlers(c),

    importPreview: async ({ account, fileName, data }, ctx) => {
      const m = c.mirror;
      accountOf(m, account);
      const name = safeFileName(fileName);
      // Told from the text's length before a byte is decoded.
      if (Math.floor((data.length * 3) / 4) > IMPORT_PREVIEW_MAX_BYTES + 2) throw tooLarge(name, Math.floor((data.length * 3) / 4));
      if (data.length % 4 !== 0 || !BASE64.test(data)) throw new RpcError(RpcCode.invalidArguments, `importPreview: the file's data is not base64 (${name})`);
      // A turn among the previews being read (at most PREVIEWS_READING, the next refused busy), before a byte is decoded.
      const endTurn = previewRefusal(() => c.previews.beginReading());
      try {
        const bytes = Buffer.from(data, 'base64');
        if (bytes.length > IMPORT_PREVIEW_MAX_BYTES) throw tooLarge(name, bytes.length);
        const parcelLimit = m.write.parcelLimit(account);
        const kept = previewRefusal(() => c.previews.keep(account, name, bytes));
        try {
          const p = await previewCall(c, account, kept.file, { maxHectares: parcelLimit, maxListed: IMPORT_PREVIEW_MAX_LISTED, maxPositions: PREVIEW_MAX_POSITIONS },
            ctx.signal, (done, total) => ctx.progress({ done, total }));
          return { preview: kept.id, account, fileName: kept.fileName, ...p, parcelLimit, expires: new Date(kept.expires).toISOString() };
        } catch (err) {
          // Nothing to import from a file that cannot be read: it is not kept.
          c.previews.remove(kept.id);
          throw err;
        }
      } finally {
        endTurn();
      }
    },

    importPreviewed: async ({ preview, farm, skipDuplicates = false }, ctx) => {
      const p = c.previews.get(preview);
      if (!p) {
        throw new RpcError(ApiErrorCode.previewGone, 'This preview is no longer kept (imported, cancelled, replaced by a newer one, or left over 30 minutes): drop the file again');
      }
      if (p.importing) throw new RpcError(ApiErrorCode.busy, `${p.fileName} is being imported already`);
      const m = c.mirror;
      accountOf(m, p.account);
      let target: { farm: string; farmId?: string };
      if ('id' in farm) {
        // The preview's account's own live farm only: a farm of another account is as unknown as a missing one.
        const f = m.read.farm(farm.id);
        if (!f || f.deleted || f.account_id !== p.account) throw new RpcError(ApiErrorCode.notFound, `No farm ${farm.id} in this account`);
        target = { farm: f.name, farmId: f.local_id };
      } else {
        const r = reporter(0, 'Farm name');
        const name = checkName(farm.name, r, 'name');
        if (name === null) throw new RpcError(ApiErrorCode.importFailed, r.problems[0]!.message, { code: 'no_farm_name' });
        // A new farm is asked for: the parcels never join one that merely has the same name.
        if (m.read.farmByName(p.account, name)) {
          throw new RpcError(ApiErrorCode.farmExists, `The account has a farm named ${name} already: choose it in the list, or give the new farm another name`);
        }
        target = { farm: name };
      }
      p.importing = true;
      try {
        const r = await importCall(c, { file: p.file, account: p.account, ...target, skipInvalid: true, skipDuplicates }, ctx.signal, (done, total) => ctx.progress({ done, total }));
        c.previews.remove(p.id);
        return { farm: r.farm, farmName: r.farmName, imported: r.imported, parts: r.parts, skipped: r.skipped, duplicates: r.duplicates, problemCount: r.problemCount, notes: r.notes };
      } finally {
        // Failed or stopped: kept to try again, unless its time ran out meanwhile.
        p.importing = false;
        if (p.expires <= Date.now()) c.previews.remove(p.id);
      }
    },

    importGrid: ({ name, data }) => saveGrid(c.home, name, data),

    importPreviewDiscard: ({ preview }) => {
      if (!c.previews.get(preview)?.importing) c.previews.remove(preview);
      return null;
    },
  };
}
