// Shared set-up of the parcels route tests (parcels.*.test.ts): one service per test file with an organization and
// an account, request shorthands, and the check that a rejected batch wrote nothing.
import { afterAll, beforeAll, expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import {
  asAccount, newAccount, newFarm, newOrg, startService, storeCounts,
  type Account, type Org, type TestService,
} from '../../../test/helpers/service.ts';
import { hectareSquare } from '../../../core/geo/square.ts';
import type { ParcelFeature } from '../../../core/schemas/parcels.ts';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export interface ErrorJson { code: string; message: string; detail: string; errors?: { index?: number; path: string; code: string; message: string }[] }

export type Headers = Record<string, string>;

// Exported as live bindings and assigned by the hooks of useParcelService(), so a test reads `svc`, `org`, `acc`
// and `h` as plain names, the same in every file, instead of through a context object.
export let svc: TestService;
export let org: Org;
export let acc: Account;
export let h: Headers;

/** Starts a service for the calling test file before its tests and closes it after them. */
export function useParcelService(): void {
  beforeAll(async () => {
    svc = await startService();
    org = await newOrg(svc, 'Parcels Org');
    acc = await newAccount(svc, org);
    h = asAccount(org, acc);
  });
  afterAll(async () => {
    await svc.close();
  });
}

export function post(headers: Headers, payload: unknown): Promise<LightMyRequestResponse> {
  return svc.app.inject({ method: 'POST', url: '/api/parcels/', headers, payload: payload as object });
}
export function get(headers: Headers, url: string): Promise<LightMyRequestResponse> {
  return svc.app.inject({ method: 'GET', url, headers });
}
export function patch(headers: Headers, id: number, payload: unknown): Promise<LightMyRequestResponse> {
  return svc.app.inject({ method: 'PATCH', url: `/api/parcels/${id}/`, headers, payload: payload as object });
}
export function del(headers: Headers, url: string): Promise<LightMyRequestResponse> {
  return svc.app.inject({ method: 'DELETE', url, headers });
}

/** A fresh farm of `account` (default: the shared one). */
export async function farmOf(account: Account = acc, o: Org = org, name = 'Farm'): Promise<number> {
  return (await newFarm(svc, o, account, name)).id;
}

export async function create(headers: Headers, farmId: number, parcels: unknown[]): Promise<ParcelFeature[]> {
  const res = await post(headers, { farm: { id: farmId }, parcels });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as ParcelFeature[];
}

/** A polygon parcel whose geodesic area is `hectares` (the helper's square is only approximately sized). */
export function sizedPolygon(name: string, hectares: number, lon = -4.78, lat = 37.88) {
  return { name, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: hectareSquare(lon, lat, hectares) } } };
}

/** Expects the whole batch to be rejected with 400 and nothing written; returns the error body. */
export async function rejected(headers: Headers, payload: unknown): Promise<ErrorJson> {
  const before = await storeCounts(svc);
  const res = await post(headers, payload);
  expect(res.statusCode, res.body).toBe(400);
  expect(await storeCounts(svc)).toEqual(before);
  const b = res.json() as ErrorJson;
  expect(typeof b.code).toBe('string');
  expect(typeof b.message).toBe('string');
  return b;
}

export const codesAt = (b: ErrorJson, index: number) => (b.errors ?? []).filter((e) => e.index === index).map((e) => e.code);
