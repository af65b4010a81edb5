// vitest globalSetup: a throwaway PostgreSQL + PostGIS cluster for the tests that need one (issue 15): initdb in a
// temporary directory, a server listening on a Unix socket in that directory only (no TCP port to collide with
// another run or to be reached from outside), a template database with PostGIS that each test file clones for a
// database of its own (test/helpers/postgres.ts), and everything stopped and deleted at the end of the run.
//
// The setup only checks that it can be done and picks the directory; the first test that asks for a database
// starts the cluster (about 1.5 s on the 2-core machine), the other workers wait for it. A run without such a test (core/, a single
// unrelated file) pays nothing.
//
// The server itself (initdb, the socket, the template with PostGIS, who runs it as root) is platform/node/pg-server.ts.
//
// Without PostgreSQL and PostGIS, CI (CI=true) fails here, naming the packages; a developer's run goes on with the
// PostgreSQL tests skipped and one line saying how to enable them.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import {
  clusterAt, clusterBase, findBinaries, missingPrerequisite, newCluster, prepareTemplate, serverUid, startCluster, stopCluster, urlOf,
  PG_PACKAGES, type Cluster,
} from '../../platform/node/pg-server.ts';

export { PG_TEMPLATE, PG_TEST_ROLE, urlOf } from '../../platform/node/pg-server.ts';

/** What the setup provides: where the cluster is (started on first use), or why there is none. */
export type PgTestCluster = (Cluster & { socketDir: string; adminUrl: string }) | { skip: string };

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PgTestCluster;
  }
}

const DIR_PREFIX = 'furrow-pg-';

let cluster: Cluster | null = null;

export async function setup(project: TestProject): Promise<void> {
  const bin = findBinaries();
  const missing = missingPrerequisite(bin);
  if (!bin || missing) {
    if (process.env.CI === 'true') throw new Error(`The PostgreSQL tests need PostgreSQL and PostGIS: ${missing}. Install them with: apt-get install ${PG_PACKAGES}`);
    console.log(`PostgreSQL tests skipped (${missing}): apt-get install ${PG_PACKAGES} to run them.`);
    project.provide('postgres', { skip: missing ?? 'no PostgreSQL' });
    return;
  }
  removeStaleClusters(clusterBase(), bin);
  cluster = newCluster(DIR_PREFIX, bin);
  const dir = cluster.dir;
  // Which run owns the cluster: a run killed before its teardown leaves it behind, and the next run removes it.
  writeFileSync(join(dir, 'owner.pid'), String(process.pid));
  project.provide('postgres', { ...cluster, socketDir: dir, adminUrl: urlOf(dir, 'postgres', 'postgres') });
}

export function teardown(): void {
  if (cluster) stopCluster(cluster);
  cluster = null;
}

let starting: Promise<void> | null = null;

/**
 * Called in the test workers before a database is created: the first caller of the run starts the cluster (a
 * directory made with mkdir is the lock), the others wait for its `ready` or `failed` file.
 */
export function ensureStarted(c: Cluster): Promise<void> {
  starting ??= (async () => {
    const ready = join(c.dir, 'ready');
    const failed = join(c.dir, 'failed');
    if (existsSync(ready)) return;
    try {
      mkdirSync(join(c.dir, 'starting'));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      for (const deadline = Date.now() + 120_000; !existsSync(ready);) {
        if (existsSync(failed)) throw new Error(`The PostgreSQL test cluster failed to start: ${readFileSync(failed, 'utf8')}`);
        if (Date.now() > deadline) throw new Error(`The PostgreSQL test cluster in ${c.dir} was not ready after 120 s`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return;
    }
    try {
      // Not durable (fsync off): nothing in it outlives the run. Three test workers, each with pools and a few clients
      // of its own, and tests that start two service processes.
      startCluster(c, { durable: false, maxConnections: 200 });
      await prepareTemplate(c);
      writeFileSync(ready, '');
    } catch (e) {
      writeFileSync(failed, e instanceof Error ? (e.stack ?? e.message) : String(e));
      throw e;
    }
  })();
  return starting;
}

/**
 * Clusters left by runs that died before their teardown (their owner.pid names no live process), of the same
 * server user: another user's are theirs to clean.
 */
function removeStaleClusters(base: string, bin: string): void {
  const uid = serverUid();
  for (const name of readdirSync(base)) {
    if (!name.startsWith(DIR_PREFIX)) continue;
    const dir = join(base, name);
    let owner: number;
    try {
      if (statSync(dir).uid !== uid) continue;
      owner = Number(readFileSync(join(dir, 'owner.pid'), 'utf8'));
    } catch {
      continue; // another user's, or being created right now
    }
    if (!Number.isInteger(owner) || owner <= 0 || alive(owner)) continue;
    stopCluster(clusterAt(dir, bin));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
