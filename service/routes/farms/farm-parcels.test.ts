// GET /api/farms/{id}/parcels/ is assembled by SQLite; every Feature must equal the one the API returns
// everywhere else (assembled in JS), value for value, whatever the names and numbers hold.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  startService, newOrg, newAccount, newFarm, asAccount, polygonParcel, pointParcel, type TestService, type Org, type Account,
} from '../../../test/helpers/service.ts';

let svc: TestService;
let org: Org;
let acc: Account;
beforeEach(async () => {
  svc = await startService();
  org = await newOrg(svc);
  acc = await newAccount(svc, org);
});
afterEach(async () => {
  await svc.close();
});

const NAMES = ['plain', 'quote " inside', 'back\\slash', 'tab\there', 'new\nline', 'ünïcödé Jaén', '日本の畑', 'emoji 🌾', '<b>html</b>', "single ' quote", 'control \u0001 char'];

describe('GET /api/farms/{id}/parcels/', () => {
  it('returns exactly the Features GET /api/parcels/{id}/ returns, in id order, with count', async () => {
    const parcels = NAMES.map((n, i) => polygonParcel(n, -4.123456789 + i * 0.01, 37.987654321 - i * 0.003, 50 + i * 37.3, { n: i, 'Supplier ID': `S-${i}`, ok: i % 2 === 0, ratio: i / 7 }));
    parcels.push(pointParcel('point parcel', 3.3333333, -4.7, 52.1) as never);
    const farm = await newFarm(svc, org, acc, 'Listing', parcels);
    const res = await svc.app.inject({ method: 'GET', url: `/api/farms/${farm.id}/parcels/`, headers: asAccount(org, acc) });
    expect(res.statusCode).toBe(200);
    const listing = res.json() as { type: string; features: { id: number }[]; count: number; next: null };
    expect(listing.type).toBe('FeatureCollection');
    expect(listing.count).toBe(parcels.length);
    expect(listing.next).toBeNull();
    expect(listing.features.map((f) => f.id)).toEqual(farm.parcels.map((p) => p.id));
    for (const f of listing.features) {
      const one = await svc.app.inject({ method: 'GET', url: `/api/parcels/${f.id}/`, headers: asAccount(org, acc) });
      expect(f).toEqual(one.json());
    }
    expect((listing.features as unknown as { properties: { name: string } }[]).map((f) => f.properties.name)).toEqual([...NAMES, 'point parcel']);
  });

  it('an empty farm lists no features', async () => {
    const farm = await newFarm(svc, org, acc, 'Empty');
    const res = await svc.app.inject({ method: 'GET', url: `/api/farms/${farm.id}/parcels/`, headers: asAccount(org, acc) });
    expect(res.json()).toEqual({ type: 'FeatureCollection', features: [], count: 0, next: null });
  });
});
