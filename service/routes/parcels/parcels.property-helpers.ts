// Shared set-up of the parcel property tests (parcels.*.property.test.ts): the fast-check settings (fixed seed,
// CI_LONG, FC_SEED), generators of valid parcels and batches, one service per test file with its accounts and
// farms, and the invariants every POST answer must keep. The mutations of valid input are in
// parcels.property-mutations.ts.
import fc from 'fast-check';
import { afterAll, beforeAll, expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import {
  asAccount, newAccount, newFarm, newOrg, pointParcel, polygonParcel, startService, storeCounts, square,
  type Account, type Org, type TestService,
} from '../../../test/helpers/service.ts';
import { MAX_PARCELS_PER_REQUEST } from '../../../core/parcels/validate.ts';
import type { Scope } from '../../store/scope.ts';
import { ApiError } from '../../errors.ts';

export const LONG = process.env.CI_LONG === '1';
/**
 * The share of the default rounds a run takes (FC_RUNS_SHARE, default 1): the PostgreSQL project runs a quarter
 * (vitest.config.ts). The rules the rounds search are core's validator's, shared by both stores and searched in full
 * on SQLite; on PostgreSQL the rounds check the store keeps what it admits and writes nothing it refuses.
 */
const SHARE = Number(process.env.FC_RUNS_SHARE ?? 1) > 0 ? Number(process.env.FC_RUNS_SHARE ?? 1) : 1;
export const runs = (n: number) => (LONG ? n * 5 : Math.max(1, Math.round(n * SHARE)));
// A fixed seed keeps the default run reproducible; FC_SEED replays a reported failure; the long run explores.
export const SEED = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : LONG ? undefined : 20_250_611;
export const fcOpts = (numRuns: number): fc.Parameters<unknown> => ({ numRuns: runs(numRuns), ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: false });
export const LIMITED_HECTARES = 2;
// Generous: a property that overruns keeps running in the background and would disturb the next one's counts.
export const TIMEOUT = LONG ? 1_800_000 : 180_000;

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Body = Record<string, unknown>;

// ---------------------------------------------------------------- generators of valid input

export const nameArb = fc.oneof(
  fc.string({ minLength: 1, maxLength: 30 }),
  fc.string({ minLength: 1, maxLength: 30, unit: 'grapheme' }),
).filter((s) => s.trim() !== '');

const metaValueArb = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
);
export const metadataArb = fc.dictionary(fc.string({ minLength: 1, maxLength: 16 }), metaValueArb, { maxKeys: 5 });

const lonArb = fc.double({ min: -179, max: 179, noNaN: true });
const latArb = fc.double({ min: -84, max: 84, noNaN: true });

/** A closed square ring (about 81 ha at most), sometimes with a hole in its middle. */
const polygonCoordsArb = fc.tuple(lonArb, latArb, fc.integer({ min: 5, max: 900 }), fc.boolean()).map(([lon, lat, side, hole]) => {
  const rings = square(lon, lat, side);
  if (hole) rings.push(square(lon, lat, side / 3)[0]!);
  return rings;
});

export const polygonParcelArb = fc.tuple(nameArb, fc.option(metadataArb, { nil: undefined }), polygonCoordsArb).map(([name, metadata, coordinates]) => {
  const p: Body = { name, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates } } };
  if (metadata !== undefined) p.metadata = metadata;
  return p;
});

export const pointParcelArb = fc.tuple(nameArb, fc.option(metadataArb, { nil: undefined }), lonArb, latArb, fc.double({ min: 0.01, max: 99, noNaN: true }))
  .map(([name, metadata, lon, lat, hectares]) => {
    const p = pointParcel(name, hectares, lon, lat) as Body;
    if (metadata !== undefined) p.metadata = metadata;
    return p;
  });

const parcelArb = fc.oneof({ arbitrary: polygonParcelArb, weight: 3 }, { arbitrary: pointParcelArb, weight: 1 });
export const batchArb = fc.array(parcelArb, { minLength: 1, maxLength: MAX_PARCELS_PER_REQUEST });

export function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// ---------------------------------------------------------------- the service under test

// Exported as live bindings and assigned by the hooks of useParcelPropertyService(), as in parcels.test-helpers.ts:
// a test reads `svc`, `farmId` or `patchTargets` as plain names, the same in every file.
export let svc: TestService;
export let org: Org;
export let acc: Account;
export let other: Account;
export let farmId = 0;
export let limitedFarmId = 0;
export let otherParcelId = 0;
export let patchTargets: number[] = [];

/**
 * Starts a service for the calling test file before its tests and closes it after them. Every file seeds the same
 * accounts and farms in a fresh database, so the ids the generators draw from are the same in every file.
 */
export function useParcelPropertyService(): void {
  beforeAll(async () => {
    svc = await startService();
    org = await newOrg(svc);
    acc = await newAccount(svc, org);
    other = await newAccount(svc, org);
    await svc.store.accounts.setParcelLimit(other.id, LIMITED_HECTARES);
    const seeded = await newFarm(svc, org, acc, 'Property farm', [
      polygonParcel('seed polygon', -4.78, 37.88, 200, { crop_type: 'olive', 'Supplier ID': 'S-1' }),
      pointParcel('seed point', 3, -4.7, 37.9),
      polygonParcel('seed 3', 2.35, 48.85, 300),
    ]);
    farmId = seeded.id;
    patchTargets = seeded.parcels.map((p) => p.id);
    const limited = await newFarm(svc, org, other, 'Limited farm', [polygonParcel('other account', 10, 45, 100)]);
    limitedFarmId = limited.id;
    otherParcelId = limited.parcels[0]!.id;
  });

  afterAll(async () => {
    await svc?.close();
  });
}

export const headersFor = (a: Account) => ({ ...asAccount(org, a), 'content-type': 'application/json' });

function post(body: unknown, as: Account = acc): Promise<LightMyRequestResponse> {
  return svc.app.inject({ method: 'POST', url: '/api/parcels/', headers: headersFor(as), payload: JSON.stringify(body) });
}

/** A parcel as the store has it (every column), or 'none': what a refused request must leave byte-identical. */
export async function rowOf(id: number): Promise<string> {
  const everything: Scope = { organizationId: org.organization_id, accountId: null, via: 'api_key' };
  try {
    return JSON.stringify(await svc.store.parcels.get(everything, id));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return 'none';
    throw err;
  }
}
/** rowOf of each id, in order. */
export const rowsOf = (ids: readonly number[]): Promise<string[]> => Promise.all(ids.map(rowOf));

/**
 * The shape every error answer has: code, message, detail and well-formed errors. The rules a body breaks are
 * gathered and checked with one expect: an expect per rule and per error (thousands of answers with up to 50 errors
 * each) was a tenth of the property files' time, in vitest's bookkeeping rather than in the service.
 */
export function checkErrorBody(res: LightMyRequestResponse, batchLength: number | null): void {
  const b = res.json() as Record<string, unknown>;
  const broken: string[] = [];
  const rule = (ok: boolean, what: string) => { if (!ok) broken.push(what); };
  rule(typeof b.code === 'string', 'code is a string');
  rule(typeof b.message === 'string', 'message is a string');
  rule(b.detail === b.message, 'detail is the message');
  if (b.errors !== undefined) {
    rule(Array.isArray(b.errors), 'errors is an array');
    if (Array.isArray(b.errors)) {
      (b.errors as Record<string, unknown>[]).forEach((e, n) => {
        rule(typeof e.path === 'string', `errors[${n}].path is a string`);
        rule(typeof e.code === 'string', `errors[${n}].code is a string`);
        rule(typeof e.message === 'string', `errors[${n}].message is a string`);
      });
    }
  }
  if (b.code === 'invalid_parcels') {
    rule(batchLength !== null, 'invalid_parcels answers a batch');
    const errors = Array.isArray(b.errors) ? b.errors as { index: unknown; path: unknown }[] : [];
    rule(errors.length > 0, 'invalid_parcels names at least one error');
    errors.forEach((e, n) => {
      const i = e.index as number;
      rule(Number.isInteger(e.index), `errors[${n}].index is an integer`);
      rule(batchLength !== null && i >= 0 && i < batchLength, `errors[${n}].index is in the batch`);
      rule(typeof e.path === 'string' && (e.path === `parcels/${i}` || e.path.startsWith(`parcels/${i}/`)), `errors[${n}].path is under parcels/${i}`);
    });
  }
  expect(broken, res.body).toEqual([]);
}

/**
 * POSTs a body and checks the invariants that hold whatever the body is; returns the answer. The parcels a 201
 * created are deleted again once checked: the store stays at its seed, so counting its tables before and after each
 * POST stays cheap. Left to grow (tens of thousands of parcels in the long run), the counts' full scans of the parcels
 * and their R*Tree took a fifth of the property files' time.
 */
export async function postAndCheck(body: unknown, as: Account = acc): Promise<LightMyRequestResponse> {
  const before = await storeCounts(svc);
  const res = await post(body, as);
  const after = await storeCounts(svc);
  expect(res.statusCode, res.body).toBeLessThan(500);
  const parcels = isObj(body) && Array.isArray(body.parcels) ? body.parcels : null;
  if (res.statusCode === 201) {
    expect(parcels).not.toBeNull();
    const created = res.json() as { id: number; properties: { name: string } }[];
    expect(created).toHaveLength(parcels!.length);
    // SQLite's R*Tree has a row per parcel too; PostgreSQL's GiST index is not a table the probe counts.
    const grown = (n: number | undefined) => (n === undefined ? {} : { parcels_rtree: n + parcels!.length });
    expect(after).toEqual({ ...before, parcels: before.parcels! + parcels!.length, ...grown(before.parcels_rtree) });
    expect(created.map((f) => f.properties.name)).toEqual(parcels!.map((p) => ((p as Body).name as string).trim()));
    const everything: Scope = { organizationId: org.organization_id, accountId: null, via: 'api_key' };
    for (const f of created) await svc.store.parcels.delete(everything, f.id);
  } else {
    expect(after, res.body).toEqual(before);
    if (res.statusCode === 200) expect(res.json()).toEqual({ message: 'Missing Farm ID' });
    else checkErrorBody(res, parcels?.length ?? null);
  }
  return res;
}

/** A POST body: the batch in its envelope, for the shared farm unless told otherwise. */
export const envelope = (parcels: unknown, id: number = farmId): Body => ({ farm: { id }, parcels });
