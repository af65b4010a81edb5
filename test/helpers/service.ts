// Shared set-up for service tests: a real app over a real SQLite file in a fresh temp folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildApp, type BuildOptions } from '../../service/app.ts';
import { openDb, type Db } from '../../service/store/sqlite/db.ts';
import { dbFile, type ServiceConfig } from '../../service/config.ts';
import { createOrganization } from '../../service/store/sqlite/organizations.ts';
import { freePort } from './process.ts';

export interface TestService {
  app: FastifyInstance;
  db: Db;
  dir: string;
  close(): Promise<void>;
}

export async function startService(config: Partial<ServiceConfig> = {}, build: Pick<BuildOptions, 'logger' | 'logStream' | 'validator'> = {}): Promise<TestService> {
  const dir = mkdtempSync(join(tmpdir(), 'furrow-svc-'));
  const db = openDb(dbFile(dir), { synchronous: 'NORMAL' });
  const app = await buildApp({
    db, ...build,
    config: { dataDir: dir, publicUrl: 'http://127.0.0.1:8080', embedUrl: 'http://127.0.0.1:8080/embed', gatewayTimeoutMs: 0, faults: false, validationWorkers: 0, ...config },
  });
  return {
    app, db, dir,
    async close() {
      await app.close();
      db.close();
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

export const newOrg = (svc: TestService, name = 'Test Org'): Org => createOrganization(svc.db, name);

export async function newAccount(svc: TestService, org: Org, email = `grower-${Math.random().toString(36).slice(2)}@example.com`): Promise<Account> {
  const res = await svc.app.inject({ method: 'POST', url: '/api/accounts/', headers: { 'x-api-key': org.api_key }, payload: { account_email: email } });
  if (res.statusCode !== 201) throw new Error(`account creation failed: ${res.statusCode} ${res.body}`);
  return res.json() as Account;
}

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

export async function newFarm(svc: TestService, org: Org, acc: Account, name = 'Farm', parcels: unknown[] = []): Promise<{ id: number; parcels: { id: number }[] }> {
  const res = await svc.app.inject({ method: 'POST', url: '/api/farms/', headers: asAccount(org, acc), payload: { farm: { name }, parcels } });
  if (res.statusCode !== 201) throw new Error(`farm creation failed: ${res.statusCode} ${res.body}`);
  return res.json() as { id: number; parcels: { id: number }[] };
}

export const body = (res: LightMyRequestResponse) => res.json() as Record<string, unknown>;

/** Row counts of every data table: a rejected request must leave them all unchanged. */
export function storeCounts(db: Db): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of ['organizations', 'accounts', 'farms', 'parcels', 'parcels_rtree', 'crops', 'crop_families', 'plants']) {
    out[t] = (db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n;
  }
  return out;
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
