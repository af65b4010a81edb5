// Authentication and isolation: the three ways to act — API key (organization scope), API key + Service-Account
// (one account), Bearer account_access (one account) — and organizations fully isolated from each other.
import { describe, expect, it } from 'vitest';
import { newOrg, newAccount, newFarm, accountScope, asAccount, asBearer, polygonParcel, storeCounts, body } from '../test/helpers/service.ts';
import { svc, useServicePerTest, get, expectAccountNotFound, farmNames } from './auth.test-helpers.ts';

useServicePerTest();

describe('the three ways to act', () => {
  it('x-api-key alone acts for the organization: sees every active account, but cannot create a farm without an account', async () => {
    const org = await newOrg(svc);
    const a1 = await newAccount(svc, org);
    const a2 = await newAccount(svc, org);
    await newFarm(svc, org, a1, 'One');
    await newFarm(svc, org, a2, 'Two');
    const list = await get('/api/farms/', { 'x-api-key': org.api_key });
    expect(list.statusCode).toBe(200);
    expect(farmNames(list)).toEqual(['One', 'Two']);

    const accounts = await get('/api/accounts/', { 'x-api-key': org.api_key });
    expect((accounts.json() as { id: string }[]).map((a) => a.id).sort()).toEqual([a1.id, a2.id].sort());

    const before = await storeCounts(svc);
    const res = await svc.app.inject({ method: 'POST', url: '/api/farms/', headers: { 'x-api-key': org.api_key }, payload: { farm: { name: 'X' }, parcels: [] } });
    expect(res.statusCode).toBe(400);
    expect(body(res).code).toBe('account_required');
    expect(await storeCounts(svc)).toEqual(before);
  });

  it('x-api-key + Service-Account narrows to that one account, reads and writes', async () => {
    const org = await newOrg(svc);
    const a1 = await newAccount(svc, org);
    const a2 = await newAccount(svc, org);
    const f1 = await newFarm(svc, org, a1, 'One', [polygonParcel('p1')]);
    const f2 = await newFarm(svc, org, a2, 'Two', [polygonParcel('p2')]);
    expect(farmNames(await get('/api/farms/', asAccount(org, a1)))).toEqual(['One']);
    expect(farmNames(await get('/api/farms/', asAccount(org, a2)))).toEqual(['Two']);
    expect((await get(`/api/farms/${f2.id}/`, asAccount(org, a1))).statusCode).toBe(404);
    expect((await get(`/api/parcels/${f2.parcels[0]!.id}/`, asAccount(org, a1))).statusCode).toBe(404);
    expect((await get(`/api/farms/${f1.id}/`, asAccount(org, a1))).statusCode).toBe(200);
    // The header name is case-insensitive like every HTTP header.
    expect(farmNames(await get('/api/farms/', { 'x-api-key': org.api_key, 'Service-Account': a2.id }))).toEqual(['Two']);
    const created = (await svc.app.inject({ method: 'POST', url: '/api/farms/', headers: asAccount(org, a2), payload: { farm: { name: 'Three' } } })).json() as { account: string };
    expect(created.account).toBe(a2.id);
  });

  it('Authorization: Bearer reaches only its own account\'s data', async () => {
    const org = await newOrg(svc);
    const a1 = await newAccount(svc, org);
    const a2 = await newAccount(svc, org);
    const f1 = await newFarm(svc, org, a1, 'One', [polygonParcel('p1')]);
    const f2 = await newFarm(svc, org, a2, 'Two', [polygonParcel('p2')]);
    const crop2 = await svc.app.inject({ method: 'POST', url: '/api/crops/', headers: asAccount(org, a2), payload: { parcel: f2.parcels[0]!.id, name: 'Wheat' } });
    expect(crop2.statusCode).toBe(201);
    const crop2Id = (crop2.json() as { id: number }).id;

    expect(farmNames(await get('/api/farms/', asBearer(a1)))).toEqual(['One']);
    expect((await get(`/api/farms/${f1.id}/`, asBearer(a1))).statusCode).toBe(200);
    expect((await get(`/api/farms/${f1.id}/parcels/`, asBearer(a1))).statusCode).toBe(200);
    const parcels = (await get('/api/parcels/', asBearer(a1))).json() as { features: { id: number }[] };
    expect(parcels.features.map((f) => f.id)).toEqual([f1.parcels[0]!.id]);

    const before = await storeCounts(svc);
    expect((await get(`/api/farms/${f2.id}/`, asBearer(a1))).statusCode).toBe(404);
    expect((await get(`/api/farms/${f2.id}/parcels/`, asBearer(a1))).statusCode).toBe(404);
    expect((await get(`/api/parcels/${f2.parcels[0]!.id}/`, asBearer(a1))).statusCode).toBe(404);
    expect((await get(`/api/crops/${crop2Id}/`, asBearer(a1))).statusCode).toBe(404);
    expect((await svc.app.inject({ method: 'PATCH', url: `/api/farms/${f2.id}/`, headers: asBearer(a1), payload: { name: 'Mine' } })).statusCode).toBe(404);
    expect((await svc.app.inject({ method: 'DELETE', url: `/api/farms/${f2.id}/`, headers: asBearer(a1) })).statusCode).toBe(404);
    expect((await svc.app.inject({ method: 'DELETE', url: `/api/parcels/${f2.parcels[0]!.id}/`, headers: asBearer(a1) })).statusCode).toBe(404);
    expect((await svc.app.inject({ method: 'DELETE', url: `/api/crops/${crop2Id}/`, headers: asBearer(a1) })).statusCode).toBe(404);
    const into = await svc.app.inject({ method: 'POST', url: '/api/parcels/', headers: asBearer(a1), payload: { farm: { id: f2.id }, parcels: [polygonParcel('intruder')] } });
    expect(into.statusCode).toBe(404);
    expect(await storeCounts(svc)).toEqual(before);
    expect((await get(`/api/farms/${f2.id}/`, asAccount(org, a2))).json()).toMatchObject({ name: 'Two', parcel_count: 1 });

    // Accounts: the token sees itself only and cannot manage accounts.
    const accounts = (await get('/api/accounts/', asBearer(a1))).json() as { id: string }[];
    expect(accounts.map((a) => a.id)).toEqual([a1.id]);
    expectAccountNotFound(await get(`/api/accounts/${a2.id}/`, asBearer(a1)));
    const del = await svc.app.inject({ method: 'DELETE', url: `/api/accounts/${a2.id}/`, headers: asBearer(a1) });
    expect(del.statusCode).toBe(403);
    const create = await svc.app.inject({ method: 'POST', url: '/api/accounts/', headers: asBearer(a1), payload: { account_email: 'new@example.com' } });
    expect(create.statusCode).toBe(403);
    expect(body(create).code).toBe('forbidden');
    expect((await storeCounts(svc)).accounts).toBe(2);
  });

  it('a bearer token naming another account in Service-Account is refused with Account not found', async () => {
    const org = await newOrg(svc);
    const a1 = await newAccount(svc, org);
    const a2 = await newAccount(svc, org);
    expectAccountNotFound(await get('/api/farms/', { ...asBearer(a1), 'service-account': a2.id }));
    expect((await get('/api/farms/', { ...asBearer(a1), 'service-account': a1.id })).statusCode).toBe(200);
  });
});

describe('organizations are fully isolated', () => {
  it("org B's key cannot read, change or delete org A's farms, parcels, crops, plants or accounts", async () => {
    const a = await newOrg(svc, 'A');
    const b = await newOrg(svc, 'B');
    const accA = await newAccount(svc, a, 'shared@example.com');
    const accB = await newAccount(svc, b, 'shared@example.com');
    await newFarm(svc, b, accB, 'B farm', [polygonParcel('b1', 2.0, 41.0)]);
    const farmA = await newFarm(svc, a, accA, 'A farm', [polygonParcel('a1'), polygonParcel('a2', -4.7, 37.9)]);
    const parcelA = farmA.parcels[0]!.id;
    const cropRes = await svc.app.inject({ method: 'POST', url: '/api/crops/', headers: asAccount(a, accA), payload: { parcel: parcelA, name: 'Olive' } });
    expect(cropRes.statusCode).toBe(201);
    const cropA = (cropRes.json() as { id: number }).id;
    await svc.store.plants.import(a.organization_id, accA.id, {
      type: 'FeatureCollection', features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [-4.78, 37.88] }, properties: { info: { tag: 'A-tree' } } }],
    });
    const plantA = (await svc.store.plants.list(accountScope(a, accA), { limit: 10 })).rows[0]!;
    expect(plantA.parcel_id).toBe(parcelA);
    // Org A itself sees all of it (the control).
    expect((await get(`/api/plants/${plantA.id}/`, { 'x-api-key': a.api_key })).statusCode).toBe(200);
    expect((await get(`/api/crops/${cropA}/`, { 'x-api-key': a.api_key })).statusCode).toBe(200);

    const before = await storeCounts(svc);
    const snap = await svc.probe.snapshot();

    for (const headers of [{ 'x-api-key': b.api_key }, asAccount(b, accB), asBearer(accB)]) {
      const via = JSON.stringify(Object.keys(headers));
      const req = (method: 'GET' | 'PATCH' | 'DELETE' | 'POST', url: string, payload?: unknown) =>
        svc.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
      // Reads
      expect((await req('GET', `/api/farms/${farmA.id}/`)).statusCode, via).toBe(404);
      expect((await req('GET', `/api/farms/${farmA.id}/parcels/`)).statusCode, via).toBe(404);
      expect((await req('GET', `/api/parcels/${parcelA}/`)).statusCode, via).toBe(404);
      expect((await req('GET', `/api/parcels/${parcelA}/crops/`)).statusCode, via).toBe(404);
      expect((await req('GET', `/api/parcels/${parcelA}/plants/`)).statusCode, via).toBe(404);
      expect((await req('GET', `/api/crops/${cropA}/`)).statusCode, via).toBe(404);
      expect((await req('GET', `/api/plants/${plantA.id}/`)).statusCode, via).toBe(404);
      expect(farmNames(await req('GET', '/api/farms/'))).toEqual(['B farm']);
      const parcels = (await req('GET', '/api/parcels/')).json() as { features: { properties: { name: string } }[] };
      expect(parcels.features.map((f) => f.properties.name)).toEqual(['b1']);
      expect(((await req('GET', `/api/parcels/?farm=${farmA.id}`)).statusCode)).toBe(404);
      expect(((await req('GET', '/api/crops/')).json() as { count: number }).count).toBe(0);
      expect(((await req('GET', '/api/plants/')).json() as { features: unknown[] }).features).toEqual([]);
      expect(((await req('GET', '/api/plants/?search=A-tree')).json() as { features: unknown[] }).features).toEqual([]);
      const accounts = (await req('GET', '/api/accounts/')).json() as { id: string }[];
      expect(accounts.map((x) => x.id)).toEqual([accB.id]);
      expectAccountNotFound(await req('GET', `/api/accounts/${accA.id}/`));
      // Writes
      expect((await req('PATCH', `/api/farms/${farmA.id}/`, { name: 'Stolen' })).statusCode, via).toBe(404);
      expect((await req('DELETE', `/api/farms/${farmA.id}/`)).statusCode, via).toBe(404);
      expect((await req('PATCH', `/api/parcels/${parcelA}/`, { id: parcelA, metadata: { owner: 'B' } })).statusCode, via).toBe(404);
      expect((await req('DELETE', `/api/parcels/${parcelA}/`)).statusCode, via).toBe(404);
      expect((await req('PATCH', `/api/crops/${cropA}/`, { name: 'Stolen' })).statusCode, via).toBe(404);
      expect((await req('DELETE', `/api/crops/${cropA}/`)).statusCode, via).toBe(404);
      expect((await req('POST', '/api/parcels/', { farm: { id: farmA.id }, parcels: [polygonParcel('intruder')] })).statusCode, via).toBe(404);
      const cropOnA = await req('POST', '/api/crops/', { parcel: parcelA, name: 'Intruder' });
      expect(cropOnA.statusCode, via).toBeGreaterThanOrEqual(400);
      expect(cropOnA.statusCode, via).toBeLessThan(500);
      const delAcc = await req('DELETE', `/api/accounts/${accA.id}/`);
      expect(delAcc.statusCode, via).toBe(403);
      expect((await req('POST', `/api/accounts/${accA.id}/token/`)).statusCode, via).toBe(403);
      // Billing of B knows nothing of A.
      if (!('authorization' in headers)) {
        const bill = (await req('GET', '/api/billing/')).json() as { accounts: { account: string }[] };
        expect(bill.accounts.map((x) => x.account)).toEqual([accB.id]);
      }
    }
    // Org B acting as A's account through the header.
    expectAccountNotFound(await get(`/api/farms/${farmA.id}/`, { 'x-api-key': b.api_key, 'service-account': accA.id }));

    expect(await storeCounts(svc)).toEqual(before);
    expect(await svc.probe.snapshot()).toEqual(snap);
    expect(((await get(`/api/farms/${farmA.id}/`, asAccount(a, accA))).json() as { name: string }).name).toBe('A farm');
  });
});
