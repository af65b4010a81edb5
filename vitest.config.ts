import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirst from './test/helpers/sequencer.ts';

/**
 * The service's tests of its store-independent behaviour (routes, auth, faults, the CLI, the demo): run a second time
 * on PostgreSQL in the `postgres` project, unchanged (test/helpers/store.ts chooses the store). The store's own tests
 * (service/store/) run once: SQLite's are about SQLite, PostgreSQL's compare the two stores themselves.
 */
const SERVICE_SUITE = ['service/**/*.test.ts'];
const STORE_TESTS = ['service/store/**'];
/**
 * The sync suite, run a second time against a service without the change feed (CHANGE_FEED=off: GET /api/changes/
 * answers 404, as on the hosted original of the spec), so the engine's full listings stay tested: the faults, the
 * hostile proxy, the crash tests of the engine and of updates, remote deletes, conflicts, and the chaos test.
 */
const NO_FEED_SUITE = [
  'sync/faults.test.ts', 'sync/hostile.test.ts', 'sync/engine.test.ts', 'sync/remote-deletes.test.ts', 'sync/conflicts.test.ts', 'sync/updates.test.ts',
  'sync/pull-changes.test.ts', 'test/e2e/chaos.test.ts',
];

/** The end-to-end tests (the `e2e` project, isolated). */
const E2E = ['test/e2e/**/*.test.ts'];

/**
 * The suites that also run against the reference deployment (the `deploy` project, FURROW_TEST_DEPLOYMENT=1): the
 * sync engine's faults on three processes behind HAProxy, PgBouncer and a standby serving the listings
 * (test/helpers/deployment-world.ts), where a batch answered 504 by one process is reconciled through the others; and
 * the parcel store's conformance to SQLite through PgBouncer in transaction mode, on a database two processes
 * migrated at once (deploy/test-deployment.ts useDeploymentPool). docs/deploy.md says what else is left out, and why.
 */
const DEPLOY_SUITES = ['sync/faults.test.ts', 'service/store/postgres/parcels.conformance.test.ts'];

export default defineConfig({
  test: {
    // The service tests open real SQLite files and real sockets. Three workers on this 2-core machine: much of the
    // tests' time is spent waiting on child processes, sockets and timers (measured: the whole run 954 s with two,
    // 739 s with three, nothing flaky).
    pool: 'forks',
    // The longest files first, so none runs alone at the end (test/helpers/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // dist/ up to date (the service, CLI and host processes the tests start), and a throwaway PostgreSQL + PostGIS for the
    // PostgreSQL store's tests (skipped, saying so, where it is not installed).
    globalSetup: ['test/helpers/build-setup.ts', 'test/helpers/postgres-cluster.ts'],
    projects: [
      {
        extends: true,
        // Files of a worker share one process and its loaded modules (isolate: false): each file in a fresh process
        // cost its imports again, 345 s of CI's 2,875 s of test time; measured on these folders, load 6-8: db 48 -> 26 s,
        // sync 87 -> 34 s, core+renderer+electron+platform 51 -> 17 s, every test passing both ways. A test that fakes
        // timers or sets the environment puts them back in its afterEach/finally.
        test: { name: 'sqlite', include: ['{core,platform,service,db,sync,backend,cli,renderer,electron,test}/**/*.test.ts'], exclude: [...configDefaults.exclude, ...E2E], isolate: false },
      },
      {
        extends: true,
        // The end-to-end tests, each in a process of its own: they start the app, browsers and services, whose
        // imports are a small part of their time.
        test: { name: 'e2e', include: E2E },
      },
      {
        extends: true,
        // The chaos test's 100 kills (CI_LONG) run once, with the feed; here its default round (8 kills) checks the
        // full listings survive kills too, and CI stays under 20 min.
        test: { name: 'no-feed', include: NO_FEED_SUITE, env: { CHANGE_FEED: 'off', CI_LONG: '0' }, isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: SERVICE_SUITE,
          exclude: STORE_TESTS,
          // The long property-test rounds (CI_LONG) run once, on SQLite: the rules they search are the validator's,
          // shared by both stores; here a quarter of the regular rounds check PostgreSQL keeps them (and CI stays
          // under 20 min: the full regular rounds took a minute and a half of a worker on PostgreSQL).
          env: { FURROW_TEST_STORE: 'postgres', CI_LONG: '0', FC_RUNS_SHARE: '0.25' },
          setupFiles: ['test/helpers/postgres-setup.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        // The reference deployment (deploy/, docs/deploy.md): PostgreSQL with a standby, PgBouncer, several service
        // processes behind HAProxy, each file starting its own; and DEPLOY_SUITES run against one.
        // A deployment starts in a suite's beforeAll, tried again if a port it chose was taken meanwhile.
        test: { name: 'deploy', include: ['deploy/**/*.test.ts', ...DEPLOY_SUITES], env: { FURROW_TEST_DEPLOYMENT: '1' }, hookTimeout: 180_000 },
      },
    ],
  },
});
