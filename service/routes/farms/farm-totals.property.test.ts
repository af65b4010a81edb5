// Property test of the farm totals (parcel_count and hectares, kept by the triggers of migration 004): after any
// random sequence of farm and parcel creates, geometry and name patches, parcel and farm deletes, unlinks, orphan
// deletes and account purges, every farm's totals equal a recomputation from its parcels, exactly — in the
// store (and, on SQLite, in the database against a recount), in GET /api/farms/{id}/, GET /api/farms/ and billing. Settings as the parcel property tests: a fixed seed
// by default, FC_SEED replays, CI_LONG=1 runs five times as many sequences with fresh seeds.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asAccount, microHectares, newAccount, newOrg, pointParcel, polygonParcel, startService, sumHectares, type Account, type Org, type TestService,
} from '../../../test/helpers/service.ts';
import { TIMEOUT, fcOpts, runs } from '../parcels/parcels.property-helpers.ts';

let svc: TestService;
/** A fresh organization per sequence, so billing's orphans and totals are this sequence's alone. */
let org: Org;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.close();
});

interface ModelFarm { id: number; account: Account | null; parcels: Map<number, number> }

// Points carry any hectares the client names (exercising the rounding: ties, sub-micro values, many digits);
// polygons get their geodesic area.
const hectaresArb = fc.oneof(
  fc.double({ min: 1e-7, max: 99, noNaN: true }),
  fc.integer({ min: 1, max: 99_000_000 }).map((n) => n / 1e6 + 5e-7),
  fc.constantFrom(0.1, 0.2, 0.3, 2.5000005, 1e-6, 99.9999995),
);
const parcelArb = fc.oneof(
  hectaresArb.map((h) => pointParcel('pt', h, -4.7, 37.9) as Record<string, unknown>),
  fc.integer({ min: 20, max: 900 }).map((side) => polygonParcel('poly', -4.78, 37.88, side) as Record<string, unknown>),
);
const pick = fc.nat();
const opArb = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('create-farm' as const), who: fc.nat(1), parcels: fc.array(parcelArb, { maxLength: 4 }) }) },
  { weight: 5, arbitrary: fc.record({ op: fc.constant('bulk' as const), farm: pick, parcels: fc.array(parcelArb, { minLength: 1, maxLength: 5 }), invalidLast: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('patch-geom' as const), parcel: pick, with: parcelArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('patch-name' as const), parcel: pick }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('delete-parcel' as const), parcel: pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete-farm' as const), farm: pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('unlink' as const), farm: pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('delete-orphan' as const), farm: pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('purge' as const), who: fc.nat(1) }) },
);
type Op = typeof opArb extends fc.Arbitrary<infer T> ? T : never;

describe('farm totals under random sequences of changes', () => {
  it('equal a recomputation from the parcels after every step, in the store, the API and billing', async () => {
    let steps = 0;
    await fc.assert(fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), async (ops) => {
      org = await newOrg(svc);
      const accounts = [await newAccount(svc, org), await newAccount(svc, org)];
      const farms: ModelFarm[] = [];
      const linked = () => farms.filter((f) => f.account !== null);
      const allParcels = () => linked().flatMap((f) => [...f.parcels.keys()].map((id) => ({ farm: f, id })));
      const inject = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, as: Account, payload?: unknown) =>
        svc.app.inject({ method, url, headers: asAccount(org, as), ...(payload === undefined ? {} : { payload: payload as object }) });

      for (const o of ops as Op[]) {
        steps++;
        switch (o.op) {
          case 'create-farm': {
            const who = accounts[o.who];
            if (!who) break;
            const res = await inject('POST', '/api/farms/', who, { farm: { name: 'F' }, parcels: o.parcels });
            expect(res.statusCode, res.body).toBe(201);
            const body = res.json() as { id: number; parcel_count: number; hectares: number; parcels: { id: number; properties: { hectares: number } }[] };
            const f: ModelFarm = { id: body.id, account: who, parcels: new Map(body.parcels.map((p) => [p.id, p.properties.hectares])) };
            farms.push(f);
            expect(body.parcel_count).toBe(f.parcels.size);
            expect(body.hectares).toBe(expectedHectares(f));
            break;
          }
          case 'bulk': {
            const f = linked()[o.farm % Math.max(1, linked().length)];
            if (!f) break;
            const parcels = o.invalidLast ? [...o.parcels, pointParcel('no hectares', undefined)] : o.parcels;
            const res = await inject('POST', '/api/parcels/', f.account!, { farm: { id: f.id }, parcels });
            if (o.invalidLast) {
              expect(res.statusCode, res.body).toBe(400);
              break;
            }
            expect(res.statusCode, res.body).toBe(201);
            for (const p of res.json() as { id: number; properties: { hectares: number } }[]) f.parcels.set(p.id, p.properties.hectares);
            break;
          }
          case 'patch-geom':
          case 'patch-name': {
            const all = allParcels();
            const t = all[o.parcel % Math.max(1, all.length)];
            if (!t) break;
            const patch = o.op === 'patch-geom' ? { geom: o.with.geom } : { name: 'renamed' };
            const res = await inject('PATCH', `/api/parcels/${t.id}/`, t.farm.account!, patch);
            expect(res.statusCode, res.body).toBe(200);
            t.farm.parcels.set(t.id, (res.json() as { properties: { hectares: number } }).properties.hectares);
            break;
          }
          case 'delete-parcel': {
            const all = allParcels();
            const t = all[o.parcel % Math.max(1, all.length)];
            if (!t) break;
            expect((await inject('DELETE', `/api/parcels/${t.id}/`, t.farm.account!)).statusCode).toBe(204);
            t.farm.parcels.delete(t.id);
            break;
          }
          case 'delete-farm': {
            const f = linked()[o.farm % Math.max(1, linked().length)];
            if (!f) break;
            expect((await inject('DELETE', `/api/farms/${f.id}/`, f.account!)).statusCode).toBe(204);
            farms.splice(farms.indexOf(f), 1);
            break;
          }
          case 'unlink': {
            const f = linked()[o.farm % Math.max(1, linked().length)];
            if (!f) break;
            await svc.store.farms.unlink(org.organization_id, f.id);
            f.account = null;
            break;
          }
          case 'delete-orphan': {
            const orphans = farms.filter((f) => f.account === null);
            const f = orphans[o.farm % Math.max(1, orphans.length)];
            if (!f) break;
            await svc.store.farms.deleteOrphan(org.organization_id, f.id);
            farms.splice(farms.indexOf(f), 1);
            break;
          }
          case 'purge': {
            const who = accounts[o.who];
            if (!who) break;
            await svc.store.accounts.deactivate(org.organization_id, who.id);
            await svc.store.accounts.purge(org.organization_id, who.id);
            for (const f of farms.filter((x) => x.account === who)) farms.splice(farms.indexOf(f), 1);
            accounts[o.who] = undefined as unknown as Account;
            break;
          }
        }
        await checkTotals(farms, accounts.filter(Boolean));
      }
    }), fcOpts(25));
    // About four steps a sequence at least (runs: a quarter of the sequences on PostgreSQL, FC_RUNS_SHARE).
    expect(steps).toBeGreaterThan(runs(25) * 4);
  }, TIMEOUT);
});

const expectedHectares = (f: ModelFarm): number => sumHectares(f.parcels.values());

async function checkTotals(farms: ModelFarm[], accounts: Account[]): Promise<void> {
  // SQLite keeps the totals in the farms' rows (triggers and the bulk insert): every farm of the organization
  // (orphans included) against a fresh count and sum of its parcels.
  if (svc.sqlite) {
    const drift = svc.sqlite.prepare(`SELECT f.id, f.parcel_count, f.micro_hectares,
        (SELECT COUNT(*) FROM parcels p WHERE p.farm_id = f.id) AS n,
        (SELECT COALESCE(SUM(CAST(round(p.hectares * 1000000) AS INTEGER)), 0) FROM parcels p WHERE p.farm_id = f.id) AS units
      FROM farms f WHERE f.organization_id = ? AND (f.parcel_count <> n OR f.micro_hectares <> units)`).all(org.organization_id);
    expect(drift).toEqual([]);
  }
  // The model: the parcels the API said exist, with the hectares it reported for each, against every farm of the
  // organization in the store (linked or orphan).
  const stored = new Map([...await svc.store.farms.listLinked(org.organization_id), ...await svc.store.farms.listOrphans(org.organization_id)].map((f) => [f.id, f]));
  expect([...stored.keys()].sort((x, y) => x - y)).toEqual(farms.map((f) => f.id).sort((x, y) => x - y));
  for (const f of farms) {
    const row = stored.get(f.id)!;
    expect(row.parcel_count).toBe(f.parcels.size);
    expect(row.hectares).toBe(expectedHectares(f));
    if (f.account === null) continue;
    const one = svc.app.inject({ method: 'GET', url: `/api/farms/${f.id}/`, headers: asAccount(org, f.account) });
    expect((await one).json()).toMatchObject({ id: f.id, parcel_count: f.parcels.size, hectares: expectedHectares(f) });
  }
  for (const a of accounts) {
    const listed = (await svc.app.inject({ method: 'GET', url: '/api/farms/', headers: asAccount(org, a) })).json() as { id: number; parcel_count: number; hectares: number }[];
    const mine = farms.filter((f) => f.account === a);
    expect(listed.map((x) => [x.id, x.parcel_count, x.hectares])).toEqual(mine.map((f) => [f.id, f.parcels.size, expectedHectares(f)]));
  }
  // Billing adds the same units: per account, the orphans, and the total.
  const b = await svc.store.billing.of(org.organization_id);
  const unitsOf = (fs: ModelFarm[]) => fs.reduce((s, f) => s + [...f.parcels.values()].reduce((t, h) => t + microHectares(h), 0), 0);
  for (const a of accounts) expect(b.accounts.find((x) => x.account === a.id)?.hectares).toBe(unitsOf(farms.filter((f) => f.account === a)) / 1e6);
  expect(b.orphans.hectares).toBe(unitsOf(farms.filter((f) => f.account === null)) / 1e6);
  expect(b.total_hectares).toBe(unitsOf(farms) / 1e6);
}
