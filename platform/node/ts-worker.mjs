// The one entry of every worker thread started from source (worker-pool.ts startWorker): worker threads do not
// inherit the TypeScript loader on Node 20, so tsx is registered here before the worker's own module, named by the
// first argument, is loaded. The built app starts its bundled workers directly and never reaches this file.
import process from 'node:process';
import { register } from 'tsx/esm/api';

// Taken out of argv, so the worker sees the arguments it would have had if started directly.
const [entry] = process.argv.splice(2, 1);
register();
await import(entry);
