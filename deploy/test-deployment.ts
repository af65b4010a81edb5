// The tests' deployment (deploy/*.test.ts): the reference deployment in a fresh folder under /tmp, not durable
// (fsync off: nothing in it outlives the file), statements logged, stopped and deleted after the file's tests.
// Without PostgreSQL, PgBouncer or HAProxy, CI fails naming the package; a developer's run skips, saying so.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { openPgPool } from '../service/store/postgres/pool.ts';
import { migratePg } from '../service/store/postgres/migrate.ts';
import { defaults, deployPrerequisite, down, up, type Deployment, type DeploymentOptions } from './deployment.ts';

const missing = deployPrerequisite();
export const DEPLOY_SKIP = missing;

/**
 * up(), tried up to three times: the ports are chosen free (bound to port 0 and released) and then bound by the
 * servers a moment later, and meanwhile an outgoing connection of any process on the machine (the other test files'
 * deployments, whose clients and balancers open many) may take one as its local port. A failed start has stopped
 * what it started and deleted its folder; the next try picks new ports.
 */
export async function upForTests(opts: DeploymentOptions): Promise<Deployment> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await up(opts);
    } catch (err) {
      if (attempt === 3) throw err;
      console.log(`The test deployment did not start (try ${attempt} of 3), starting it again: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
  }
}

/**
 * Starts the deployment before the file's tests (a getter: it exists once beforeAll has run). Without its packages,
 * CI fails here (at collection, naming the package); a developer's run is told the file is skipped.
 */
export function useDeployment(opts: Partial<DeploymentOptions> = {}): () => Deployment {
  if (missing && process.env.CI === 'true') throw new Error(`The deployment tests need ${missing}`);
  if (missing) console.log(`Deployment tests skipped: ${missing}`);
  let d: Deployment | null = null;
  let parent: string | null = null;
  beforeAll(async () => {
    if (missing) return;
    parent = mkdtempSync('/tmp/furrow-deploy-test-');
    chmodSync(parent, 0o711); // the server's user (postgres, for root) passes through to its folders
    d = await upForTests({ ...defaults(join(parent, 'deployment')), durable: false, logStatements: true, ...opts });
  }, 180_000);
  afterAll(async () => {
    // From the folder, not `d`: a start that failed or timed out has left its state.json there.
    if (!parent) return;
    await down(join(parent, 'deployment'), { purge: true });
    rmSync(parent, { recursive: true, force: true });
  }, 60_000);
  return () => d!;
}

/** A client of the demo account through the balancer. */
export function demoClient(d: Deployment) {
  const headers = { 'x-api-key': d.demo!.api_key!, 'service-account': d.demo!.account_id!, 'content-type': 'application/json' };
  return async (method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> => {
    const res = await fetch(`${d.url}${path}`, { method, headers: { ...headers, ...extra }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, json: (text ? JSON.parse(text) : {}) as Record<string, unknown>, headers: res.headers };
  };
}

/**
 * A pool on the deployment's database through PgBouncer (transaction mode), as the service processes reach it,
 * after two processes started at once on the fresh database and migrated it under the advisory lock, and migrated
 * again through this pool (a no-op). No demo: the suites using it own the database (the parcel conformance suite
 * truncates it for each scenario).
 */
export function useDeploymentPool(): () => pg.Pool {
  const deployment = useDeployment({ services: 2, demo: false });
  let pool: pg.Pool | undefined;
  beforeAll(async () => {
    if (missing) return;
    // node-postgres reads the password from the file PGPASSFILE names, as the service processes do.
    process.env.PGPASSFILE = deployment().passfile;
    pool = openPgPool(deployment().databaseUrl, { max: 4 });
    await migratePg(pool);
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
  });
  return () => {
    if (!pool) throw new Error('useDeploymentPool(): the pool exists from beforeAll on');
    return pool;
  };
}
