// Parcels are private to their account: other accounts and organizations get 404; the organization key sees every
// active account's parcels (spec: "Parcels", "Authentication").
import { beforeAll, describe, expect, it } from 'vitest';
import { asAccount, asBearer, newAccount, newOrg, orgScope, polygonParcel, type Account } from '../../../test/helpers/service.ts';
import type { ParcelCollection, ParcelFeature } from '../../../core/schemas/parcels.ts';
import { create, del, farmOf, get, org, patch, svc, useParcelService } from './parcels.test-helpers.ts';

useParcelService();

describe('isolation between accounts', () => {
  let owner: Account;
  let intruder: Account;
  let parcel: ParcelFeature;

  beforeAll(async () => {
    owner = await newAccount(svc, org);
    intruder = await newAccount(svc, org);
    const farm = await farmOf(owner);
    parcel = (await create(asAccount(org, owner), farm, [polygonParcel('Private', 20, 50, 100, { secret: 'yes' })]))[0]!;
  });

  it('another account of the same organization cannot see, patch or delete the parcel (404)', async () => {
    for (const ih of [asAccount(org, intruder), asBearer(intruder)]) {
      expect((await get(ih, `/api/parcels/${parcel.id}/`)).statusCode).toBe(404);
      expect((await patch(ih, parcel.id, { name: 'Stolen' })).statusCode).toBe(404);
      expect((await del(ih, `/api/parcels/${parcel.id}/`)).statusCode).toBe(404);
      const listed = (await get(ih, '/api/parcels/')).json() as ParcelCollection;
      expect(listed.features.map((f) => f.id)).not.toContain(parcel.id);
      const byMeta = (await get(ih, '/api/parcels/?metadata%5Bsecret%5D=yes')).json() as ParcelCollection;
      expect(byMeta.count).toBe(0);
    }
    const still = await get(asAccount(org, owner), `/api/parcels/${parcel.id}/`);
    expect(still.statusCode).toBe(200);
    expect((still.json() as ParcelFeature).properties.name).toBe('Private');
    expect((await get(asBearer(owner), `/api/parcels/${parcel.id}/`)).statusCode).toBe(200);
  });

  it('another organization cannot see the parcel at all', async () => {
    const org2 = await newOrg(svc, 'Snoop Org');
    const res = await get({ 'x-api-key': org2.api_key }, `/api/parcels/${parcel.id}/`);
    expect(res.statusCode).toBe(404);
    const listed = (await get({ 'x-api-key': org2.api_key }, '/api/parcels/')).json() as ParcelCollection;
    expect(listed.features.map((f) => f.id)).not.toContain(parcel.id);
  });

  it("the organization's API key without account header sees every active account's parcels", async () => {
    const ok = { 'x-api-key': org.api_key };
    const all = (await get(ok, '/api/parcels/?limit=10000')).json() as ParcelCollection;
    const ids = all.features.map((f) => f.id);
    expect(ids).toContain(parcel.id);
    // Every parcel of the organization's active accounts, as the store counts its farms'.
    const total = (await svc.store.farms.list(orgScope(org))).reduce((n, f) => n + f.parcel_count, 0);
    expect(all.count).toBe(total);
    expect((await get(ok, `/api/parcels/${parcel.id}/`)).statusCode).toBe(200);

    // A deactivated account's parcels drop out of the organization's view.
    const leaving = await newAccount(svc, org);
    const [gone] = await create(asAccount(org, leaving), await farmOf(leaving), [polygonParcel('Leaving', 21, 50)]);
    expect(((await get(ok, '/api/parcels/?limit=10000')).json() as ParcelCollection).features.map((f) => f.id)).toContain(gone!.id);
    expect((await svc.app.inject({ method: 'DELETE', url: `/api/accounts/${leaving.id}/`, headers: ok })).statusCode).toBe(204);
    expect(((await get(ok, '/api/parcels/?limit=10000')).json() as ParcelCollection).features.map((f) => f.id)).not.toContain(gone!.id);
    expect((await get(ok, `/api/parcels/${gone!.id}/`)).statusCode).toBe(404);
  });
});
