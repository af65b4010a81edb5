// An import on a thread of its own, with its own connection to the mirror: the import writes in one synchronous
// transaction for seconds, and the host's thread must go on answering the app meanwhile (reads see the mirror as
// it was until the import commits). Started by backend/imports.ts; stopped through a flag in shared memory,
// which the import reads after each chunk (it rolls back whole). The app's preview of a file runs here too
// (checking every feature of a large file takes seconds as well), its connection only read: the account's parcels
// that features of the file are already (db/import/duplicates.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { join } from 'node:path';
import { Mirror } from '../db/mirror.ts';
import { importFile } from '../db/import/index.ts';
import { previewFile } from '../db/import/preview.ts';
import { existingShapes } from '../db/import/duplicates.ts';
import { importFailure, importResult, type ImportJob, type ImportMessage, type PreviewJob } from './import-protocol.ts';

const post = (m: ImportMessage) => parentPort!.postMessage(m);

async function importJob(job: ImportJob): Promise<void> {
  const stop = new Int32Array(job.stop);
  const mirror = Mirror.open(join(job.home, 'mirror.db'), { recover: false });
  // This connection's writes, for the app's change event (rolled back with the import if it fails).
  const log = mirror.changeLog();
  try {
    const r = await importFile(mirror, job.file, {
      accountId: job.account, farmName: job.farm, farmId: job.farmId, skipInvalid: job.skipInvalid, skipDuplicates: job.skipDuplicates, gridDirs: job.gridDirs,
      onProgress: (done, total) => post({ t: 'progress', done, total }),
      cancelled: () => Atomics.load(stop, 0) === 1,
    });
    // The WAL copied into the database here, on this thread: else the host's next write would do it on its own.
    mirror.checkpoint();
    post({ t: 'done', result: importResult(r, log.drain()) });
  } catch (err) {
    post({ t: 'failed', failure: importFailure(err) });
  } finally {
    mirror.close();
  }
}

async function previewJob(job: PreviewJob): Promise<void> {
  // Its own connection, only read: the parcels the account has, for the features that are among them already.
  const mirror = job.home && job.account ? Mirror.open(join(job.home, 'mirror.db'), { recover: false }) : null;
  try {
    const sameAs = mirror && job.account ? existingShapes(mirror, job.account) : undefined;
    post({ t: 'previewed', preview: await previewFile(job.file, { ...job.opts, sameAs, onProgress: (done, total) => post({ t: 'progress', done, total }) }) });
  } catch (err) {
    post({ t: 'failed', failure: importFailure(err) });
  } finally {
    mirror?.close();
  }
}

const job = workerData as ImportJob | PreviewJob;
await ('preview' in job ? previewJob(job) : importJob(job));
