import { parentPort } from 'node:worker_threads';
import { prepareParcels } from './validation-pool.ts';

parentPort!.on('message', (m: { id: number; inputs: unknown[]; maxHectares: number }) => {
  parentPort!.postMessage({ id: m.id, result: prepareParcels(m.inputs, m.maxHectares) });
});
