// Worker entry: worker threads do not inherit the TypeScript loader on Node 20, so register it here first.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
