// Billing: total hectares of every parcel of the organization, per account, deactivated accounts' and orphan
// farms' included; organization-level, so the API key only.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  startService, newOrg, newAccount, asAccount, asBearer, polygonParcel, pointParcel, body, sumHectares,
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

interface Bill {
  organization: string;
  total_hectares: number;
  accounts: { account: string; account_email: string; state: string; farms: number; parcels: number; hectares: number }[];
  orphans: { farms: number; parcels: number; hectares: number };
}
interface Created { id: number; parcels: { id: number; properties: { hectares: number } }[] }

const bill = async (o: Org = org): Promise<Bill> => {
  const res = await svc.app.inject({ method: 'GET', url: '/api/billing/', headers: { 'x-api-key': o.api_key } });
  expect(res.statusCode).toBe(200);
  return res.json() as Bill;
};
async function farm(a: Account, parcels: unknown[], o: Org = org): Promise<Created> {
  const res = await svc.app.inject({ method: 'POST', url: '/api/farms/', headers: asAccount(o, a), payload: { farm: { name: 'F' }, parcels } });
  expect(res.statusCode).toBe(201);
  return res.json() as Created;
}
// Each parcel counts to the micro-hectare (0.01 m²), the unit the farms' totals are kept in (migration 004).
const sum = (farms: Created[]) => sumHectares(farms.flatMap((f) => f.parcels.map((p) => p.properties.hectares)));

describe('GET /api/billing/', () => {
  it('an organization without data bills 0', async () => {
    const b = await bill();
    expect(b).toEqual({ organization: org.organization_id, total_hectares: 0, accounts: [], orphans: { farms: 0, parcels: 0, hectares: 0 } });
  });

  it("hectares per account equal the sum of its parcels' properties.hectares; the total adds everything up", async () => {
    const a = await newAccount(svc, org, 'a@example.com');
    const b = await newAccount(svc, org, 'b@example.com');
    const idle = await newAccount(svc, org, 'idle@example.com');
    const aFarms = [
      await farm(a, [polygonParcel('p1', -4.78, 37.88, 300), polygonParcel('p2', -4.70, 37.88, 150), pointParcel('p3', 12.25, -4.6, 37.8)]),
      await farm(a, [pointParcel('p4', 99.5, -4.5, 37.7)]),
    ];
    const bFarms = [await farm(b, [polygonParcel('q1', 2.0, 41.0, 500)]), await farm(b, [])];
    // Parcels added later with POST /api/parcels/ count too.
    const extra = await svc.app.inject({ method: 'POST', url: '/api/parcels/', headers: asAccount(org, b), payload: { farm: { id: bFarms[1]!.id }, parcels: [pointParcel('q2', 4, 2.1, 41.1)] } });
    expect(extra.statusCode).toBe(201);
    bFarms[1]!.parcels.push(...(extra.json() as Created['parcels']));

    // Another organization's parcels are not ours.
    const other = await newOrg(svc, 'Other');
    await farm(await newAccount(svc, other), [pointParcel('x', 50)], other);

    const r = await bill();
    expect(r.organization).toBe(org.organization_id);
    const row = (acc: Account) => r.accounts.find((x) => x.account === acc.id)!;
    expect(r.accounts).toHaveLength(3);
    expect(row(a)).toMatchObject({ account_email: 'a@example.com', state: 'active', farms: 2, parcels: 4 });
    expect(row(a).hectares).toBe(sum(aFarms));
    expect(row(b)).toMatchObject({ farms: 2, parcels: 2 });
    expect(row(b).hectares).toBe(sum(bFarms));
    expect(row(idle)).toMatchObject({ farms: 0, parcels: 0, hectares: 0 });
    expect(r.total_hectares).toBe(sum([...aFarms, ...bFarms]));
    // Sanity on the values themselves: a 300 m square is 9 ha, a point parcel is what was asked.
    expect(aFarms[0]!.parcels[0]!.properties.hectares).toBeCloseTo(9, 1);
    expect(aFarms[0]!.parcels[2]!.properties.hectares).toBeCloseTo(12.25, 9);
    expect(sum(aFarms)).toBeGreaterThan(100);

    // It agrees with what the farm listing reports.
    const farms = (await svc.app.inject({ method: 'GET', url: '/api/farms/', headers: { 'x-api-key': org.api_key } })).json() as { hectares: number }[];
    expect(r.total_hectares).toBeCloseTo(farms.reduce((s, f) => s + f.hectares, 0), 9);

    const o = await bill(other);
    expect(o.total_hectares).toBeCloseTo(50, 9);
  });

  it("a deactivated account's hectares are still billed; a purged account's are not", async () => {
    const a = await newAccount(svc, org, 'a@example.com');
    const b = await newAccount(svc, org, 'b@example.com');
    await farm(a, [pointParcel('a', 10)]);
    await farm(b, [pointParcel('b', 20)]);
    expect((await svc.app.inject({ method: 'DELETE', url: `/api/accounts/${a.id}/`, headers: { 'x-api-key': org.api_key } })).statusCode).toBe(204);

    const r = await bill();
    const rowA = r.accounts.find((x) => x.account === a.id)!;
    expect(rowA).toMatchObject({ state: 'deactivated', farms: 1, parcels: 1 });
    expect(rowA.hectares).toBeCloseTo(10, 9);
    expect(r.total_hectares).toBeCloseTo(30, 9);

    await svc.store.accounts.purge(org.organization_id, a.id);
    const after = await bill();
    expect(after.accounts.map((x) => x.account)).toEqual([b.id]);
    expect(after.total_hectares).toBeCloseTo(20, 9);
  });

  it('orphan farms are billed separately and in the total; the account no longer carries them', async () => {
    const a = await newAccount(svc, org);
    const kept = await farm(a, [pointParcel('k', 3)]);
    const orphan = await farm(a, [pointParcel('o1', 7), pointParcel('o2', 8, -4.6, 37.8)]);
    await svc.store.farms.unlink(org.organization_id, orphan.id);
    const r = await bill();
    expect(r.orphans.farms).toBe(1);
    expect(r.orphans.parcels).toBe(2);
    expect(r.orphans.hectares).toBeCloseTo(sum([orphan]), 9);
    expect(r.orphans.hectares).toBeCloseTo(15, 9);
    expect(r.accounts[0]).toMatchObject({ account: a.id, farms: 1, parcels: 1 });
    expect(r.accounts[0]!.hectares).toBeCloseTo(sum([kept]), 9);
    expect(r.total_hectares).toBeCloseTo(18, 9);

    // An empty orphan farm counts as a farm with 0 ha.
    const empty = await farm(a, []);
    await svc.store.farms.unlink(org.organization_id, empty.id);
    expect((await bill()).orphans).toMatchObject({ farms: 2, parcels: 2 });
  });

  it('a bearer token is refused with 403 forbidden', async () => {
    const a = await newAccount(svc, org);
    await farm(a, [pointParcel('x', 5)]);
    const res = await svc.app.inject({ method: 'GET', url: '/api/billing/', headers: asBearer(a) });
    expect(res.statusCode).toBe(403);
    expect(body(res).code).toBe('forbidden');
    expect(res.body).not.toContain('hectares');
    const none = await svc.app.inject({ method: 'GET', url: '/api/billing/' });
    expect(none.statusCode).toBe(401);
  });
});
