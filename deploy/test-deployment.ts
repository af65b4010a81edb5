// The tests' deployment (deploy/*.test.ts): the reference deployment in a fresh folder under /tmp, not durable
// (fsync off: nothing in it outlives the file), statements logged, stopped and deleted after the file's tests.
// Without PostgreSQL, PgBouncer or HAProxy, CI fails naming the package; a developer's run skips, saying so.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { defaults, deployPrerequisite, down, up, type Deployment, type DeploymentOptions } from './deployment.ts';

const missing = deployPrerequisite();
if (missing && process.env.CI === 'true') throw new Error(`The deployment tests need ${missing}`);
if (missing) console.log(`Deployment tests skipped: ${missing}`);
export const DEPLOY_SKIP = missing;

/** Starts the deployment before the file's tests (a getter: it exists once beforeAll has run). */
export function useDeployment(opts: Partial<DeploymentOptions> = {}): () => Deployment {
  let d: Deployment | null = null;
  let parent: string | null = null;
  beforeAll(async () => {
    if (missing) return;
    parent = mkdtempSync('/tmp/furrow-deploy-test-');
    chmodSync(parent, 0o711); // the server's user (postgres, for root) passes through to its folders
    d = await up({ ...defaults(join(parent, 'deployment')), durable: false, logStatements: true, ...opts });
  }, 120_000);
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
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> => {
    const res = await fetch(`${d.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, json: (text ? JSON.parse(text) : {}) as Record<string, unknown>, headers: res.headers };
  };
}
