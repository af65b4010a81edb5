// A vector overlay's conversion (backend/layer-vector.ts) on a thread of its own: reading a 200 MB GeoJSON, KML or
// Shapefile, reprojecting it and writing it out takes the CPU for seconds, and the host's thread must go on answering
// the app (its map's tiles, its other calls) meanwhile. One job a thread, given in workerData; one message back.
// Started by backend/layer-vector-thread.ts.
import { parentPort, workerData } from 'node:worker_threads';
import { convertVector } from './layer-vector.ts';
import { LayerFileRefused } from './layer-sniff.ts';
import type { VectorJob, VectorReply } from './layer-vector-thread.ts';

const job = workerData as VectorJob;
let reply: VectorReply;
try {
  reply = { t: 'done', converted: await convertVector(job.file, job.name, job.kind, job.dest, job.gridDirs) };
} catch (err) {
  reply = err instanceof LayerFileRefused ? { t: 'refused', message: err.message } : { t: 'failed', message: err instanceof Error ? err.message : String(err) };
}
parentPort!.postMessage(reply);
