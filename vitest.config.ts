import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{core,platform,service,db,sync,backend,cli,renderer,electron,test}/**/*.test.ts'],
    // The service tests open real SQLite files and real sockets. Three workers on this 2-core machine: much of the
    // tests' time is spent waiting on child processes, sockets and timers (measured: the whole run 954 s with two,
    // 739 s with three, nothing flaky).
    pool: 'forks',
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // A throwaway PostgreSQL + PostGIS for the PostgreSQL store's tests (skipped, saying so, where it is not installed).
    globalSetup: ['test/helpers/postgres-cluster.ts'],
  },
});
