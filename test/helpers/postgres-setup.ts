// The postgres project's setup file (vitest.config.ts): the run's PostgreSQL is up before any test of the file, so
// that helpers that must stay synchronous (the service CLI under spawnSync) can create their database with psql.
import { ensureCluster } from './postgres.ts';

await ensureCluster();
