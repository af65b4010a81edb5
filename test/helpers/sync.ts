// Sync tests run the real service as a process (FAULTS=1) and a real mirror file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceCli, spawnService, type ServiceProcess } from './process.ts';
import { Mirror } from '../../db/mirror.ts';
import { ServiceClient } from '../../sync/http.ts';
import { SyncEngine } from '../../sync/engine.ts';
import type { SyncOptions } from '../../sync/context.ts';
import { square } from './service.ts';

/**
 * Whether the service under test serves the change feed: the sync suite runs against both (vitest.config.ts, the
 * `no-feed` project sets CHANGE_FEED=off for every service it starts, as the hosted original of the spec has none).
 */
export const FEED = process.env.CHANGE_FEED !== 'off';

export interface SyncWorld {
  dir: string;
  /** The service's address: one process, or the reference deployment's balancer (FURROW_TEST_DEPLOYMENT). */
  svc: Pick<ServiceProcess, 'url' | 'port' | 'stop'>;
  apiKey: string;
  organizationId: string;
  /** Creates a connected account on the service and adds it to the mirror (API key + header method). */
  account(email?: string): Promise<string>;
  mirror: Mirror;
  engine(opts?: Partial<SyncOptions>): SyncEngine;
  /** Makes the next `count` requests matching `match` fail with `mode`. */
  fault(match: string, mode: string, extra?: Record<string, unknown>): Promise<void>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the JSON of any route; each test reads the fields it checks
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/**
 * Set (the `deploy` project, vitest.config.ts): the sync suites that opt in run against the reference deployment
 * (deploy/), several service processes behind HAProxy on PostgreSQL through PgBouncer, with a standby serving reads.
 */
export const DEPLOYMENT = process.env.FURROW_TEST_DEPLOYMENT === '1';

export async function syncWorld(env: NodeJS.ProcessEnv = {}): Promise<SyncWorld> {
  if (DEPLOYMENT) return (await import('./deployment-world.ts')).deploymentWorld();
  const dir = mkdtempSync(join(tmpdir(), 'furrow-sync-'));
  const org = serviceCli(join(dir, 'service'), ['create-org', '--name', 'Sync test']).json as { organization_id: string; api_key: string };
  const svc = await spawnService(join(dir, 'service'), { FAULTS: '1', ...env });
  return worldOn(dir, svc, org, async () => {
    await svc.stop();
    rmSync(dir, { recursive: true, force: true });
  });
}

/** A world on a running service (`svc.url`) and an organization of it; `stop` ends the service and deletes `dir`. */
export function worldOn(dir: string, svc: SyncWorld['svc'], org: { organization_id: string; api_key: string }, stop: () => Promise<void>): SyncWorld {
  const mirror = Mirror.open(join(dir, 'mirror.db'));
  const api: SyncWorld['api'] = async (method, path, body, headers = {}) => {
    const res = await fetch(`${svc.url}${path}`, {
      method, headers: { 'x-api-key': org.api_key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  return {
    dir, svc, apiKey: org.api_key, organizationId: org.organization_id, mirror, api,
    async account(email = `g${Math.random().toString(36).slice(2)}@example.com`) {
      const r = await api('POST', '/api/accounts/', { account_email: email });
      if (r.status !== 201) throw new Error(`account: ${r.status} ${JSON.stringify(r.body)}`);
      mirror.write.addAccount({ id: r.body.id, service_url: svc.url, mode: 'api_key' });
      return r.body.id as string;
    },
    engine(opts = {}) {
      return new SyncEngine(mirror, (a) => new ServiceClient({ baseUrl: a.service_url, accountId: a.id, timeoutMs: 5_000, credentials: { mode: 'api_key', apiKey: org.api_key } }), {
        settleMs: 300, backoffBaseMs: 20, backoffCapMs: 200, maxWaitMs: 20_000, ...opts,
      });
    },
    async fault(match, mode, extra = {}) {
      const r = await fetch(`${svc.url}/__faults__`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ match, mode, ...extra }) });
      if (!r.ok) throw new Error(`fault: ${r.status} ${await r.text()}`);
    },
    async close() {
      mirror.close();
      await stop();
    },
  };
}

/** n valid parcel inputs spread on a grid (about 1 ha each) with a tag in their metadata. */
export function parcelInputs(n: number, tag = 't', lon0 = -4, lat0 = 37): unknown[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `${tag}-${i}`,
    metadata: { tag, i },
    geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: square(lon0 + (i % 100) * 0.002, lat0 + Math.floor(i / 100) * 0.002, 100) } },
  }));
}
