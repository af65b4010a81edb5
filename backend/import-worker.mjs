// Source entry of the import thread: worker threads do not inherit the TypeScript loader on Node 20, so it is
// registered first (the built app runs dist/import-worker.mjs, bundled, instead).
import { register } from 'tsx/esm/api';

register();
await import('./import-worker.ts');
