// Crop families are organization-wide data: an account's bearer token reads them and picks among them, but only
// the organization's API key adds one, directly (POST /api/crop-families/) or by naming a new one on a crop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import {
  asAccount, asBearer, body, newAccount, newFarm, newOrg, polygonParcel, startService, storeCounts,
  type Account, type Org, type TestService,
} from '../../../test/helpers/service.ts';

let svc: TestService;
let org: Org;
let acc: Account;
let parcelId: number;

beforeAll(async () => {
  svc = await startService();
  org = await newOrg(svc);
  acc = await newAccount(svc, org);
  parcelId = (await newFarm(svc, org, acc, 'Families farm', [polygonParcel('p')])).parcels[0]!.id;
});
afterAll(async () => {
  await svc.close();
});

const inject = (method: InjectOptions['method'], url: string, headers: Record<string, string>, payload?: object) =>
  svc.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
const familyNames = async (headers: Record<string, string>) =>
  ((await inject('GET', '/api/crop-families/', headers)).json() as { name: string }[]).map((f) => f.name);

describe('POST /api/crop-families/', () => {
  it("is refused with an account's bearer token: 403 forbidden, nothing added", async () => {
    const before = await storeCounts(svc);
    const res = await inject('POST', '/api/crop-families/', asBearer(acc), { name: 'Bearer family', observation: 'should not exist' });
    expect(res.statusCode).toBe(403);
    expect(body(res).code).toBe('forbidden');
    expect(await storeCounts(svc)).toEqual(before);
    expect(await familyNames(asBearer(acc))).not.toContain('Bearer family');
  });

  it('is allowed with the API key, with or without the account header', async () => {
    expect((await inject('POST', '/api/crop-families/', { 'x-api-key': org.api_key }, { name: 'Org family' })).statusCode).toBe(201);
    expect((await inject('POST', '/api/crop-families/', asAccount(org, acc), { name: 'Org family 2' })).statusCode).toBe(201);
    // The bearer token still reads them.
    expect(await familyNames(asBearer(acc))).toEqual(expect.arrayContaining(['Org family', 'Org family 2', 'Poaceae']));
  });
});

describe('a family named on a crop', () => {
  it('a bearer token naming an existing family picks it', async () => {
    const res = await inject('POST', '/api/crops/', asBearer(acc), { parcel: parcelId, name: 'Wheat', family: { name: 'poaceae' } });
    expect(res.statusCode).toBe(201);
    expect((res.json() as { family: { name: string } }).family.name).toBe('Poaceae');
  });

  it('a bearer token naming a new family is refused (403) and creates neither the crop nor the family', async () => {
    const before = await storeCounts(svc);
    const created = await inject('POST', '/api/crops/', asBearer(acc), { parcel: parcelId, name: 'Quinoa', family: { name: 'Sneakaceae' } });
    expect(created.statusCode).toBe(403);
    expect(body(created).code).toBe('forbidden');
    const crop = (await inject('POST', '/api/crops/', asBearer(acc), { parcel: parcelId, name: 'Oats' })).json() as { id: number };
    const patched = await inject('PATCH', `/api/crops/${crop.id}/`, asBearer(acc), { family: { name: 'Sneakaceae' } });
    expect(patched.statusCode).toBe(403);
    expect((await inject('GET', `/api/crops/${crop.id}/`, asBearer(acc))).json()).toMatchObject({ family: null });
    expect(await storeCounts(svc)).toEqual({ ...before, crops: before.crops! + 1 });
    expect(await familyNames(asBearer(acc))).not.toContain('Sneakaceae');
  });

  it('the API key naming a new family still creates it for the organization', async () => {
    const res = await inject('POST', '/api/crops/', asAccount(org, acc), { parcel: parcelId, name: 'Quinoa', family: { name: 'Pseudocereals' } });
    expect(res.statusCode).toBe(201);
    expect(await familyNames(asBearer(acc))).toContain('Pseudocereals');
  });
});
