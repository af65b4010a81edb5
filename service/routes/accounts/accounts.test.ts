// Connected accounts: creation, listing, soft delete (deactivation), reactivation and permanent delete.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import type { LightMyRequestResponse } from 'fastify';
import {
  startService, newOrg, newAccount, newFarm, accountScope, asAccount, asBearer, polygonParcel, pointParcel, storeCounts, body,
  type TestService, type Org, type Account,
} from '../../../test/helpers/service.ts';

let svc: TestService;
let org: Org;
beforeEach(async () => {
  svc = await startService();
  org = await newOrg(svc);
});
afterEach(async () => {
  await svc.close();
});

const ACC_ID = /^acc-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const key = (o: Org = org) => ({ 'x-api-key': o.api_key });
const create = (payload: unknown, o: Org = org) =>
  svc.app.inject({ method: 'POST', url: '/api/accounts/', headers: key(o), payload: payload as Record<string, unknown> });
const deactivate = (id: string, o: Org = org) => svc.app.inject({ method: 'DELETE', url: `/api/accounts/${id}/`, headers: key(o) });
const get = (url: string, headers: Record<string, string>) => svc.app.inject({ method: 'GET', url, headers });
const stateOf = async (id: string) => (await svc.store.accounts.get(id))?.state ?? 'gone';
const inState = async (state: string, o: Org = org) => (await svc.store.accounts.list(o.organization_id)).filter((a) => a.state === state).length;

interface Summary { id: string; account_email: string; embedded_url: string; state: string; deactivated: string | null; max_parcel_hectares: number }

function expectAccountNotFound(res: LightMyRequestResponse): void {
  expect(res.statusCode).toBe(403);
  expect(body(res).code).toBe('account_not_found');
  expect(body(res).message).toBe('Account not found');
}

/** An account with a farm of two parcels, a crop on a parcel, a crop without a parcel and a plant. */
async function populated(a: Account) {
  const farm = await newFarm(svc, org, a, 'Home', [polygonParcel('north'), pointParcel('south', 3, -4.70, 37.95)]);
  const crop = await svc.app.inject({ method: 'POST', url: '/api/crops/', headers: asAccount(org, a), payload: { parcel: farm.parcels[0]!.id, name: 'Wheat' } });
  expect(crop.statusCode).toBe(201);
  const loose = await svc.app.inject({ method: 'POST', url: '/api/crops/', headers: asAccount(org, a), payload: { name: 'Planned' } });
  expect(loose.statusCode).toBe(201);
  await svc.store.plants.import(org.organization_id, a.id, {
    type: 'FeatureCollection', features: [
      { type: 'Feature', geometry: { type: 'Point', coordinates: [-4.78, 37.88] }, properties: {} },
      { type: 'Feature', geometry: { type: 'Point', coordinates: [10, 10] }, properties: {} },
    ],
  });
  return farm;
}
/** What an active account holds, as the store lists it for the account. */
async function accountData(a: Account) {
  const scope = accountScope(org, a);
  const farms = await svc.store.farms.list(scope);
  return {
    farms: farms.length,
    parcels: farms.reduce((n, f) => n + f.parcel_count, 0),
    crops: (await svc.store.crops.list(scope, { limit: 1000, offset: 0 })).count,
    plants: (await svc.store.plants.list(scope, { limit: 1000 })).rows.length,
  };
}

describe('POST /api/accounts/', () => {
  it('201 with id, account_email, embedded_url and account_access', async () => {
    const res = await create({ account_email: 'grower@example.com' });
    expect(res.statusCode).toBe(201);
    const a = res.json() as Account;
    expect(Object.keys(a).sort()).toEqual(['account_access', 'account_email', 'embedded_url', 'id']);
    expect(a.id).toMatch(ACC_ID);
    expect(a.account_email).toBe('grower@example.com');

    const url = new URL(a.embedded_url);
    expect(`${url.origin}${url.pathname}`).toBe('http://127.0.0.1:8080/embed/');
    const authId = url.searchParams.get('auth_id');
    expect(authId).toBeTruthy();
    expect(authId!.length).toBeGreaterThanOrEqual(16);
    expect(authId).not.toBe(a.account_access);
    expect(a.account_access).not.toContain(authId!);
    expect(authId).not.toContain(a.id);
    expect(authId).not.toContain(a.id.slice(4));
    expect(authId).not.toContain('.'); // not a JWT

    expect(a.account_access.split('.')).toHaveLength(3);
    expect(decodeProtectedHeader(a.account_access).alg).toBe('HS256');
    const claims = decodeJwt(a.account_access);
    expect(claims.sub).toBe(a.id);
    expect(claims.exp! - claims.iat!).toBe(10_800);

    // Two accounts get different auth_ids.
    const b = (await create({ account_email: 'other@example.com' })).json() as Account;
    expect(new URL(b.embedded_url).searchParams.get('auth_id')).not.toBe(authId);
    expect(b.id).not.toBe(a.id);
  });

  it('an invalid or missing account_email is 400 and creates nothing', async () => {
    for (const payload of [{}, { account_email: '' }, { account_email: 'not-an-email' }, { account_email: 'a@b' }, { account_email: 42 },
      { account_email: null }, { account_email: 'two words@example.com' }, { account_email: `${'x'.repeat(250)}@example.com` }]) {
      const res = await create(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(body(res).code).toBe('validation_failed');
    }
    expect((await storeCounts(svc)).accounts).toBe(0);
  });

  it('unknown fields are 400 naming the field; account_email is the only field sent', async () => {
    for (const extra of [{ id: 'acc-x' }, { state: 'active' }, { name: 'Grower' }]) {
      const res = await create({ account_email: 'g@example.com', ...extra });
      expect(res.statusCode).toBe(400);
      expect(JSON.stringify(res.json())).toContain(Object.keys(extra)[0]!);
    }
    expect((await create([{ account_email: 'g@example.com' }])).statusCode).toBe(400);
    const text = await svc.app.inject({ method: 'POST', url: '/api/accounts/', headers: { ...key(), 'content-type': 'application/json' }, payload: '{"account_email":' });
    expect(text.statusCode).toBe(400);
    expect((await storeCounts(svc)).accounts).toBe(0);
  });

  it('a duplicate email in the same organization is 409, case-insensitively', async () => {
    expect((await create({ account_email: 'Grower@Example.com' })).statusCode).toBe(201);
    for (const email of ['Grower@Example.com', 'grower@example.com', 'GROWER@EXAMPLE.COM']) {
      const res = await create({ account_email: email });
      expect(res.statusCode, email).toBe(409);
      expect(body(res).code).toBe('email_taken');
    }
    expect((await storeCounts(svc)).accounts).toBe(1);
  });

  it('the same email is allowed in another organization', async () => {
    const other = await newOrg(svc, 'Other');
    expect((await create({ account_email: 'grower@example.com' })).statusCode).toBe(201);
    const res = await create({ account_email: 'GROWER@example.com' }, other);
    expect(res.statusCode).toBe(201);
    expect((await storeCounts(svc)).accounts).toBe(2);
  });
});

describe('GET /api/accounts/', () => {
  it('lists active and deactivated accounts with their state; GET one', async () => {
    const a = await newAccount(svc, org, 'a@example.com');
    const b = await newAccount(svc, org, 'b@example.com');
    const other = await newOrg(svc, 'Other');
    await newAccount(svc, other, 'c@example.com');
    expect((await deactivate(b.id)).statusCode).toBe(204);

    const res = await get('/api/accounts/', key());
    expect(res.statusCode).toBe(200);
    const list = res.json() as Summary[];
    expect(list.map((x) => [x.id, x.account_email, x.state]).sort()).toEqual([[a.id, 'a@example.com', 'active'], [b.id, 'b@example.com', 'deactivated']].sort());
    const bRow = list.find((x) => x.id === b.id)!;
    expect(bRow.deactivated).not.toBeNull();
    expect(Number.isNaN(Date.parse(bRow.deactivated!))).toBe(false);
    expect(list.find((x) => x.id === a.id)!.deactivated).toBeNull();
    expect(list.find((x) => x.id === a.id)!.embedded_url).toBe(a.embedded_url);

    const one = await get(`/api/accounts/${a.id}/`, key());
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ id: a.id, account_email: 'a@example.com', state: 'active', embedded_url: a.embedded_url, max_parcel_hectares: 100 });
    expect((await get(`/api/accounts/${b.id}/`, key())).json()).toMatchObject({ id: b.id, state: 'deactivated' });
    // Own bearer token: itself only.
    expect(((await get(`/api/accounts/${a.id}/`, asBearer(a))).json() as Summary).id).toBe(a.id);
    expectAccountNotFound(await get(`/api/accounts/acc-00000000-0000-0000-0000-000000000000/`, key()));
  });
});

describe('DELETE /api/accounts/{id}/ (deactivation)', () => {
  it('204, data kept, token and header refused, email not reusable', async () => {
    const a = await newAccount(svc, org, 'keep@example.com');
    const farm = await populated(a);
    expect(await accountData(a)).toEqual({ farms: 1, parcels: 2, crops: 2, plants: 2 });
    const kept = await storeCounts(svc);

    const res = await deactivate(a.id);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');

    expect(await storeCounts(svc)).toEqual(kept);
    expect((await svc.store.farms.listLinked(org.organization_id, a.id)).map((f) => f.id)).toEqual([farm.id]);
    expect(await stateOf(a.id)).toBe('deactivated');

    expectAccountNotFound(await get('/api/farms/', asBearer(a)));
    expectAccountNotFound(await get('/api/farms/', asAccount(org, a)));
    // The organization-wide view no longer shows its farms either.
    expect((await get('/api/farms/', key())).json()).toEqual([]);
    expect((await get(`/api/farms/${farm.id}/`, key())).statusCode).toBe(404);

    const again = await create({ account_email: 'KEEP@example.com' });
    expect(again.statusCode).toBe(409);
    expect(body(again).code).toBe('email_taken');
  });

  it('deactivating again is 403 account_not_found; so is an unknown or foreign id', async () => {
    const a = await newAccount(svc, org);
    expect((await deactivate(a.id)).statusCode).toBe(204);
    expectAccountNotFound(await deactivate(a.id));
    expectAccountNotFound(await deactivate('acc-00000000-0000-0000-0000-000000000000'));
    const other = await newOrg(svc, 'Other');
    const b = await newAccount(svc, other);
    expectAccountNotFound(await deactivate(b.id, org));
    expect(await stateOf(b.id)).toBe('active');
  });

  it('cannot be done with a bearer token, even by the account itself', async () => {
    const a = await newAccount(svc, org);
    const res = await svc.app.inject({ method: 'DELETE', url: `/api/accounts/${a.id}/`, headers: asBearer(a) });
    expect(res.statusCode).toBe(403);
    expect(body(res).code).toBe('forbidden');
    expect(await inState('active')).toBe(1);
  });
});

describe('reactivation', () => {
  it('restores access with all data intact', async () => {
    const a = await newAccount(svc, org, 'back@example.com');
    const farm = await populated(a);
    const data = await accountData(a);
    expect((await deactivate(a.id)).statusCode).toBe(204);
    const row = await svc.store.accounts.reactivate(org.organization_id, a.id);
    expect(row.state).toBe('active');

    expect(await accountData(a)).toEqual(data);
    // Tokens issued before the deactivation stay revoked; a fresh one reaches everything.
    expect((await get('/api/farms/', asBearer(a))).statusCode).toBe(401);
    const fresh = await svc.app.inject({ method: 'POST', url: `/api/accounts/${a.id}/token/`, headers: key() });
    a.account_access = (fresh.json() as { account_access: string }).account_access;
    const farms = (await get('/api/farms/', asBearer(a))).json() as { id: number; parcel_count: number }[];
    expect(farms.map((f) => [f.id, f.parcel_count])).toEqual([[farm.id, 2]]);
    const parcels = (await get(`/api/farms/${farm.id}/parcels/`, asAccount(org, a))).json() as { features: { id: number }[] };
    expect(parcels.features.map((f) => f.id)).toEqual(farm.parcels.map((p) => p.id));
    const crops = (await get(`/api/parcels/${farm.parcels[0]!.id}/crops/`, asAccount(org, a))).json() as { name: string }[];
    expect(crops.map((c) => c.name)).toEqual(['Wheat']);
    expect(((await get('/api/plants/', asBearer(a))).json() as { features: unknown[] }).features).toHaveLength(2);
    expect(((await get(`/api/accounts/${a.id}/`, key())).json() as Summary)).toMatchObject({ state: 'active', deactivated: null });
    // Can be deactivated again afterwards.
    expect((await deactivate(a.id)).statusCode).toBe(204);
  });

  it('an active account cannot be reactivated; another organization cannot reactivate it', async () => {
    const a = await newAccount(svc, org);
    await expect(svc.store.accounts.reactivate(org.organization_id, a.id)).rejects.toThrow(expect.objectContaining({ status: 409 }));
    expect((await deactivate(a.id)).statusCode).toBe(204);
    const other = await newOrg(svc, 'Other');
    await expect(svc.store.accounts.reactivate(other.organization_id, a.id)).rejects.toThrow(expect.objectContaining({ status: 403 }));
    expect(await inState('deactivated')).toBe(1);
  });
});

describe('permanent delete (purge)', () => {
  it('removes the account with all its farms, parcels, crops and plants; the email becomes reusable', async () => {
    const a = await newAccount(svc, org, 'gone@example.com');
    await populated(a);
    const b = await newAccount(svc, org, 'stays@example.com');
    await populated(b);
    const bData = await accountData(b);
    expect((await deactivate(a.id)).statusCode).toBe(204);

    const result = await svc.store.accounts.purge(org.organization_id, a.id);
    expect(result).toEqual({ farms: 1, parcels: 2 });
    expect(await stateOf(a.id)).toBe('gone');
    // Nothing left behind: no orphan farm, no parcel, crop or plant without its owner (nor a parcel's spatial index entry).
    expect(await svc.store.farms.listOrphans(org.organization_id)).toEqual([]);
    const left = await storeCounts(svc);
    expect(left).toMatchObject(bData);
    if ('parcels_rtree' in left) expect(left.parcels_rtree).toBe(bData.parcels);
    expect(await accountData(b)).toEqual(bData);

    expect((await get('/api/accounts/', key())).json()).toHaveLength(1);
    expectAccountNotFound(await get(`/api/accounts/${a.id}/`, key()));
    const reuse = await create({ account_email: 'Gone@example.com' });
    expect(reuse.statusCode).toBe(201);
    expect((reuse.json() as Account).id).not.toBe(a.id);
  });

  it('an active account is refused (409) and kept with its data', async () => {
    const a = await newAccount(svc, org);
    await populated(a);
    const data = await accountData(a);
    await expect(svc.store.accounts.purge(org.organization_id, a.id)).rejects.toThrow(expect.objectContaining({ status: 409 }));
    expect(await accountData(a)).toEqual(data);
    expect((await get('/api/farms/', asBearer(a))).statusCode).toBe(200);
  });

  it("another organization cannot purge an account; the account's earlier orphans stay orphans, with their crops and plants", async () => {
    const a = await newAccount(svc, org);
    const farm = await populated(a);
    await svc.store.farms.unlink(org.organization_id, farm.id);
    // The account is the organization's only one: everything in the store is its (a crop and a plant on the farm's
    // parcels, one of each without a parcel).
    expect(await storeCounts(svc)).toMatchObject({ farms: 1, parcels: 2, crops: 2, plants: 2 });
    expect((await deactivate(a.id)).statusCode).toBe(204);
    const other = await newOrg(svc, 'Other');
    await expect(svc.store.accounts.purge(other.organization_id, a.id)).rejects.toThrow(expect.objectContaining({ status: 403 }));
    expect(await stateOf(a.id)).toBe('deactivated');
    expect(await svc.store.accounts.purge(org.organization_id, a.id)).toEqual({ farms: 0, parcels: 0 });
    // The orphan farm is still billed and keeps everything on its parcels; the account's own data without a parcel
    // went with it.
    expect((await svc.store.farms.listOrphans(org.organization_id)).map((f) => [f.id, f.parcel_count])).toEqual([[farm.id, 2]]);
    expect(await storeCounts(svc)).toMatchObject({ farms: 1, parcels: 2, crops: 1, plants: 1 });
  });
});
