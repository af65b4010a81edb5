import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['{core,platform,service,db,sync,backend,cli,renderer,electron,test}/**/*.test.ts'],
    // The service tests open real SQLite files and real sockets; two workers fit this 2-core machine.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
