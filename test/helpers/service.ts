// Shared set-up for service tests: a real app over a fresh store (store.ts chooses which) in a fresh temp folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp, type BuildOptions } from '../../service/app.ts';
import type { ServiceConfig } from '../../service/config.ts';
import type { Store } from '../../service/store/store.ts';
import type { Scope } from '../../service/store/scope.ts';
import { freePort } from './process.ts';
import { openTestStore, type StoreProbe, type TestStore } from './store.ts';
import type { Db } from '../../service/store/sqlite/index.ts';

export interface TestService extends TestStore {
  app: FastifyInstance;
  store: Store;
  dir: string;
  close(): Promise<void>;
}

export async function startService(config: Partial<ServiceConfig> = {}, build: Pick<BuildOptions, 'logger' | 'logStream' | 'validator'> & { parent?: string } = {}): Promise<TestService> {
  // `parent`: where the data folder is made (a small tmpfs, to fill the disk under the service).
  const dir = mkdtempSync(join(build.parent ?? tmpdir(), 'furrow-svc-'));
  const opened = await openTestStore(dir);
  const app = await buildApp({
    store: opened.store, ...build,
    config: { dataDir: dir, publicUrl: 'http://127.0.0.1:8080', embedUrl: 'http://127.0.0.1:8080/embed', gatewayTimeoutMs: 0, faults: false, validationWorkers: 0, ...config },
  });
  return {
    ...opened, app, dir,
    async close() {
      await app.close();
      await opened.store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The same service listening on a free port of 127.0.0.1, its PUBLIC_URL that address: for what only shows over the
 * wire (absolute links a client fetches, streamed bodies, the gateway's timer).
 */
export async function startHttpService(config: Partial<ServiceConfig> = {}): Promise<TestService & { base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const svc = await startService({ publicUrl: base, embedUrl: `${base}/embed`, ...config });
  await svc.app.listen({ host: '127.0.0.1', port });
  return { ...svc, base };
}

export interface Org { organization_id: string; api_key: string }
export interface Account { id: string; account_email: string; embedded_url: string; account_access: string }

export const newOrg = (svc: Pick<TestService, 'store'>, name = 'Test Org'): Promise<Org> => svc.store.organizations.create(name);

export async function newAccount(svc: Pick<TestService, 'app'>, org: Org, email = `grower-${Math.random().toString(36).slice(2)}@example.com`): Promise<Account> {
  const res = await svc.app.inject({ method: 'POST', url: '/api/accounts/', headers: { 'x-api-key': org.api_key }, payload: { account_email: email } });
  if (res.statusCode !== 201) throw new Error(`account creation failed: ${res.statusCode} ${res.body}`);
  return res.json() as Account;
}

/** The store's scope of the organization's API key alone (every active account), for tests that ask the Store directly. */
export const orgScope = (org: Org): Scope => ({ organizationId: org.organization_id, accountId: null, via: 'api_key' });
/** The store's scope of one account, as its API key and header act. */
export const accountScope = (org: Org, acc: { id: string }): Scope => ({ organizationId: org.organization_id, accountId: acc.id, via: 'api_key' });

/** Headers acting for an account with the API key. */
export const asAccount = (org: Org, acc: Account) => ({ 'x-api-key': org.api_key, 'service-account': acc.id });
export const asBearer = (acc: Account) => ({ authorization: `Bearer ${acc.account_access}` });

/** A valid closed square polygon of about `sideM` metres around lon/lat. */
export function square(lon: number, lat: number, sideM = 100): number[][][] {
  const dLat = sideM / 2 / 111_132;
  const dLon = sideM / 2 / (111_320 * Math.cos((lat * Math.PI) / 180));
  return [[[lon - dLon, lat - dLat], [lon + dLon, lat - dLat], [lon + dLon, lat + dLat], [lon - dLon, lat + dLat], [lon - dLon, lat - dLat]]];
}

export function polygonParcel(name: string, lon = -4.78, lat = 37.88, sideM = 100, metadata: Record<string, string | number | boolean> = {}) {
  return { name, metadata, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: square(lon, lat, sideM) } } };
}

export function pointParcel(name: string, hectares: number | undefined, lon = -4.78, lat = 37.88) {
  return { name, geom: { type: 'Feature', properties: { metadata: hectares === undefined ? {} : { hectares } }, geometry: { type: 'Point', coordinates: [lon, lat] } } };
}

export async function newFarm(svc: Pick<TestService, 'app'>, org: Org, acc: Account, name = 'Farm', parcels: unknown[] = []): Promise<{ id: number; parcels: { id: number }[] }> {
  const res = await svc.app.inject({ method: 'POST', url: '/api/farms/', headers: asAccount(org, acc), payload: { farm: { name }, parcels } });
  if (res.statusCode !== 201) throw new Error(`farm creation failed: ${res.statusCode} ${res.body}`);
  return res.json() as { id: number; parcels: { id: number }[] };
}

export const body = (res: LightMyRequestResponse) => res.json() as Record<string, unknown>;

/** Row counts of every data table: a rejected request must leave them all unchanged. */
export const storeCounts = (svc: { probe: StoreProbe }): Promise<Record<string, number>> => svc.probe.counts();

/** The SQLite database under the service's store, for a test about SQLite itself (it fails on any other store). */
export function sqliteOf(svc: Pick<TestStore, 'sqlite'>): Db {
  if (!svc.sqlite) throw new Error('This test is about the SQLite store itself');
  return svc.sqlite;
}

/**
 * A farm's (or a bill's) hectares from its parcels' properties.hectares: each counted in whole micro-hectares, as
 * the service's totals are kept (migration 004; SQLite's round(h * 1e6) is (int64)(h * 1e6 + 0.5) for h ≥ 0).
 */
export const microHectares = (hectares: number): number => Math.floor(hectares * 1e6 + 0.5);
export const sumHectares = (hectares: Iterable<number>): number => {
  let units = 0;
  for (const h of hectares) units += microHectares(h);
  return units / 1e6;
};
