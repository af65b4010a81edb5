// Farms: atomic creation with up to 50 parcels, listing, rename, the parcel listing, delete, and orphans.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import {
  startService, newOrg, newAccount, newFarm, asAccount, asBearer, orgScope, polygonParcel, pointParcel, storeCounts, body, sumHectares,
  type TestService, type Org, type Account,
} from '../../../test/helpers/service.ts';
import { pageRows } from '../../store/parcel-list.ts';

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

interface Feature { type: string; id: number; geometry: { type: string }; properties: { key: string; name: string; farm: number; hectares: number; metadata: Record<string, unknown> } }
interface FarmOut { id: number; name: string; account: string; parcel_count: number; hectares: number; created: string; modified: string; parcels?: Feature[] }

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const post = (payload: unknown, headers: Record<string, string> = asAccount(org, acc)) =>
  svc.app.inject({ method: 'POST', url: '/api/farms/', headers, payload: payload as Record<string, unknown> });
const get = (url: string, headers: Record<string, string> = asAccount(org, acc)) => svc.app.inject({ method: 'GET', url, headers });
const counts = () => storeCounts(svc);
/** Where a farm is: linked to an account (its id), an orphan, or gone. */
async function farmState(id: number): Promise<string> {
  const linked = (await svc.store.farms.listLinked(org.organization_id)).find((f) => f.id === id);
  if (linked) return linked.account!;
  return (await svc.store.farms.listOrphans(org.organization_id)).some((f) => f.id === id) ? 'orphan' : 'gone';
}
const ids = (res: LightMyRequestResponse) => (res.json() as { id: number }[]).map((f) => f.id);

describe('POST /api/farms/', () => {
  it('201 with id, name, account and the parcels as Features with id and properties.key, in request order', async () => {
    const parcels = [
      polygonParcel('first', -4.78, 37.88, 100, { 'Supplier ID': 'S-1' }),
      pointParcel('second', 7.5, -4.70, 37.90),
      polygonParcel('third', -4.76, 37.86, 200),
    ];
    const res = await post({ farm: { name: 'Cortijo' }, parcels });
    expect(res.statusCode).toBe(201);
    const farm = res.json() as FarmOut;
    expect(Number.isInteger(farm.id) && farm.id > 0).toBe(true);
    expect(farm.name).toBe('Cortijo');
    expect(farm.account).toBe(acc.id);
    expect(farm.parcel_count).toBe(3);
    expect(farm.parcels!.map((p) => p.properties.name)).toEqual(['first', 'second', 'third']);
    for (const p of farm.parcels!) {
      expect(p.type).toBe('Feature');
      expect(Number.isInteger(p.id)).toBe(true);
      expect(p.properties.key).toMatch(UUID);
      expect(p.properties.farm).toBe(farm.id);
      expect(p.geometry.type).toBe('Polygon');
    }
    expect(new Set(farm.parcels!.map((p) => p.id)).size).toBe(3);
    expect(new Set(farm.parcels!.map((p) => p.properties.key)).size).toBe(3);
    expect(farm.parcels![0]!.properties.metadata).toEqual({ 'Supplier ID': 'S-1' });
    expect(farm.parcels![1]!.properties.hectares).toBeCloseTo(7.5, 6);
    // Each parcel counts to the micro-hectare (0.01 m²), the unit the farm's running total is kept in.
    expect(farm.hectares).toBe(sumHectares(farm.parcels!.map((p) => p.properties.hectares)));
    expect(farm.hectares).toBeCloseTo(farm.parcels!.reduce((s, p) => s + p.properties.hectares, 0), 5);

    // What the response says is what was stored.
    const rows = await pageRows(await svc.store.parcels.list(orgScope(org), { farm: farm.id, limit: 100 }));
    expect(rows.map((r) => ({ id: r.id, key: r.key, name: r.name }))).toEqual(farm.parcels!.map((p) => ({ id: p.id, key: p.properties.key, name: p.properties.name })));
    expect(await farmState(farm.id)).toBe(acc.id);
  });

  it('0 parcels (or none sent) creates an empty farm; 50 parcels are accepted', async () => {
    const empty = await post({ farm: { name: 'Empty' }, parcels: [] });
    expect(empty.statusCode).toBe(201);
    expect((empty.json() as FarmOut).parcels).toEqual([]);
    const none = await post({ farm: { name: 'None' } });
    expect(none.statusCode).toBe(201);
    expect((none.json() as FarmOut).parcels).toEqual([]);

    const fifty = Array.from({ length: 50 }, (_, i) => polygonParcel(`p${i}`, -4.78 + i * 0.01, 37.88));
    const res = await post({ farm: { name: 'Fifty' }, parcels: fifty });
    expect(res.statusCode).toBe(201);
    const farm = res.json() as FarmOut;
    expect(farm.parcels!.map((p) => p.properties.name)).toEqual(fifty.map((p) => p.name));
    expect((await svc.store.farms.get(orgScope(org), farm.id)).parcel_count).toBe(50);
  });

  it('more than 50 parcels is 400 and creates nothing', async () => {
    const before = await storeCounts(svc);
    const res = await post({ farm: { name: 'Too many' }, parcels: Array.from({ length: 51 }, (_, i) => pointParcel(`p${i}`, 1, -4.78 + i * 0.01, 37.88)) });
    expect(res.statusCode).toBe(400);
    expect(body(res).message).toMatch(/50/);
    expect(await storeCounts(svc)).toEqual(before);
  });

  it('atomic: one bad parcel is 400 naming its index, and no farm and no parcel is created', async () => {
    const before = await storeCounts(svc);
    const bad = [
      [polygonParcel('ok0'), polygonParcel('ok1', -4.7), pointParcel('no hectares', undefined), polygonParcel('ok3', -4.6)],
      [polygonParcel('ok0'), pointParcel('too big', 150)],
      [{ name: 'no geom' }],
      [polygonParcel('ok0'), { ...polygonParcel('extra'), colour: 'red' }],
    ];
    const expectIndex = [2, 1, 0, 1];
    for (const [i, parcels] of bad.entries()) {
      const res = await post({ farm: { name: `Bad ${i}` }, parcels });
      expect(res.statusCode, JSON.stringify(res.json())).toBe(400);
      const b = res.json() as { code: string; message: string; errors: { index: number }[] };
      expect(b.code).toBe('invalid_parcels');
      expect(b.message).toContain(`parcel ${expectIndex[i]}`);
      expect(b.errors.length).toBeGreaterThan(0);
      expect(b.errors.every((e) => e.index === expectIndex[i])).toBe(true);
    }
    expect(await storeCounts(svc)).toEqual(before);
    expect((await counts()).farms).toBe(0);
    expect((await get('/api/farms/')).json()).toEqual([]);
  });

  it('several bad parcels are all named', async () => {
    const res = await post({ farm: { name: 'Bad' }, parcels: [pointParcel('a', undefined), polygonParcel('ok'), pointParcel('c', 101)] });
    expect(res.statusCode).toBe(400);
    const b = res.json() as { errors: { index: number }[] };
    expect([...new Set(b.errors.map((e) => e.index))]).toEqual([0, 2]);
    expect((await counts()).farms).toBe(0);
  });

  it('an invalid farm part is 400 and creates nothing', async () => {
    for (const payload of [{}, { farm: {} }, { farm: { name: '' } }, { farm: { name: '   ' } }, { farm: { name: 7 } }, { farm: 'x' },
      { farm: { name: 'F', id: 3 } }, { farm: { name: 'F' }, parcels: 'x' }, { farm: { name: 'F' }, other: 1 }, { farm: { name: 'x'.repeat(256) } }, []]) {
      const res = await post(payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
    }
    expect((await counts()).farms).toBe(0);
  });

  it('without an account (API key alone) is 400 account_required, creating nothing', async () => {
    const before = await storeCounts(svc);
    const res = await post({ farm: { name: 'Nobody' }, parcels: [polygonParcel('p')] }, { 'x-api-key': org.api_key });
    expect(res.statusCode).toBe(400);
    expect(body(res).code).toBe('account_required');
    expect(await storeCounts(svc)).toEqual(before);
  });

  it('with the bearer token the farm belongs to the token\'s account', async () => {
    const res = await post({ farm: { name: 'Mine' }, parcels: [pointParcel('p', 2)] }, asBearer(acc));
    expect(res.statusCode).toBe(201);
    expect((res.json() as FarmOut).account).toBe(acc.id);
  });

  it('is not idempotent: the same request twice makes two farms', async () => {
    const payload = { farm: { name: 'Twice' }, parcels: [polygonParcel('p')] };
    const a = (await post(payload)).json() as FarmOut;
    const b = (await post(payload)).json() as FarmOut;
    expect(a.id).not.toBe(b.id);
    expect((await counts()).parcels).toBe(2);
  });
});

describe('reading, renaming and deleting', () => {
  it('list and get: each farm with its parcel count and hectares; another account\'s farm is 404', async () => {
    const f1 = await newFarm(svc, org, acc, 'One', [pointParcel('a', 2), pointParcel('b', 3)]);
    const f2 = await newFarm(svc, org, acc, 'Two');
    const other = await newAccount(svc, org);
    const f3 = await newFarm(svc, org, other, 'Three');

    const list = await get('/api/farms/');
    expect(list.statusCode).toBe(200);
    const farms = list.json() as FarmOut[];
    expect(farms.map((f) => [f.id, f.name, f.account, f.parcel_count])).toEqual([[f1.id, 'One', acc.id, 2], [f2.id, 'Two', acc.id, 0]]);
    expect(farms[0]!.hectares).toBeCloseTo(5, 6);
    expect(ids(await get('/api/farms/', { 'x-api-key': org.api_key }))).toEqual([f1.id, f2.id, f3.id]);

    const one = await get(`/api/farms/${f1.id}/`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ id: f1.id, name: 'One', account: acc.id, parcel_count: 2 });
    expect((await get(`/api/farms/${f3.id}/`)).statusCode).toBe(404);
    expect((await get('/api/farms/999999/')).statusCode).toBe(404);
    expect((await get('/api/farms/abc/')).statusCode).toBe(400);
  });

  it('PATCH renames; a bad name is 400 and leaves the name', async () => {
    const f = await newFarm(svc, org, acc, 'Old');
    const res = await svc.app.inject({ method: 'PATCH', url: `/api/farms/${f.id}/`, headers: asAccount(org, acc), payload: { name: 'New' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: f.id, name: 'New' });
    expect(((await get(`/api/farms/${f.id}/`)).json() as FarmOut).name).toBe('New');
    for (const payload of [{ name: '' }, { name: '   ' }, {}, { name: 'X', account: 'acc-x' }, { name: 5 }]) {
      const bad = await svc.app.inject({ method: 'PATCH', url: `/api/farms/${f.id}/`, headers: asAccount(org, acc), payload });
      expect(bad.statusCode, JSON.stringify(payload)).toBe(400);
    }
    expect(await svc.store.farms.get(orgScope(org), f.id)).toMatchObject({ name: 'New', account: acc.id });
    const missing = await svc.app.inject({ method: 'PATCH', url: '/api/farms/999999/', headers: asAccount(org, acc), payload: { name: 'X' } });
    expect(missing.statusCode).toBe(404);
  });

  it('GET /api/farms/{id}/parcels/ is a FeatureCollection with every parcel of the farm', async () => {
    const parcels = Array.from({ length: 12 }, (_, i) => pointParcel(`p${i}`, 1 + i, -4.78 + i * 0.01, 37.88));
    const f = await newFarm(svc, org, acc, 'Listed', parcels);
    await newFarm(svc, org, acc, 'Other', [pointParcel('elsewhere', 1)]);
    const more = await svc.app.inject({ method: 'POST', url: '/api/parcels/', headers: asAccount(org, acc), payload: { farm: { id: f.id }, parcels: [pointParcel('later', 4, -4.5, 37.5)] } });
    expect(more.statusCode).toBe(201);

    const res = await get(`/api/farms/${f.id}/parcels/`);
    expect(res.statusCode).toBe(200);
    const fc = res.json() as { type: string; features: Feature[] };
    expect(fc.type).toBe('FeatureCollection');
    expect(fc.features.map((x) => x.properties.name)).toEqual([...parcels.map((p) => p.name), 'later']);
    expect(fc.features.map((x) => x.id)).toEqual([...f.parcels.map((p) => p.id), (more.json() as Feature[])[0]!.id]);
    expect(fc.features.every((x) => x.type === 'Feature' && x.properties.farm === f.id && UUID.test(x.properties.key))).toBe(true);

    const empty = await newFarm(svc, org, acc, 'Empty');
    expect(((await get(`/api/farms/${empty.id}/parcels/`)).json() as { features: unknown[] }).features).toEqual([]);
    expect((await get('/api/farms/999999/parcels/')).statusCode).toBe(404);
  });

  it('DELETE is 204 and removes the farm with its parcels, crops and plants, and nothing else', async () => {
    const keep = await newFarm(svc, org, acc, 'Keep', [polygonParcel('k', 2.0, 41.0)]);
    const f = await newFarm(svc, org, acc, 'Doomed', [polygonParcel('d1'), pointParcel('d2', 4, -4.70, 37.95)]);
    for (const parcel of [f.parcels[0]!.id, keep.parcels[0]!.id]) {
      const c = await svc.app.inject({ method: 'POST', url: '/api/crops/', headers: asAccount(org, acc), payload: { parcel, name: 'Barley' } });
      expect(c.statusCode).toBe(201);
    }
    await svc.store.plants.import(org.organization_id, acc.id, {
      type: 'FeatureCollection', features: [
        { type: 'Feature', geometry: { type: 'Point', coordinates: [-4.78, 37.88] }, properties: {} },
        { type: 'Feature', geometry: { type: 'Point', coordinates: [2.0, 41.0] }, properties: {} },
      ],
    });
    // The crops and plants on a farm's parcels, as the store lists them.
    const onFarm = async (farm: { parcels: { id: number }[] }) => {
      let crops = 0;
      let plants = 0;
      for (const p of farm.parcels) {
        crops += (await svc.store.crops.ofParcel(orgScope(org), p.id)).length;
        plants += (await svc.store.plants.list(orgScope(org), { parcel: p.id, limit: 1000 })).rows.length;
      }
      return [crops, plants];
    };
    expect(await onFarm(f)).toEqual([1, 1]);

    const res = await svc.app.inject({ method: 'DELETE', url: `/api/farms/${f.id}/`, headers: asAccount(org, acc) });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await farmState(f.id)).toBe('gone');
    // What is left is the kept farm's: its parcel, crop and plant (the spatial index follows the parcels).
    const left = await counts();
    expect(left).toMatchObject({ farms: 1, parcels: 1, crops: 1, plants: 1 });
    if ('parcels_rtree' in left) expect(left.parcels_rtree).toBe(1);
    expect(await onFarm(keep)).toEqual([1, 1]);

    expect((await get(`/api/farms/${f.id}/`)).statusCode).toBe(404);
    expect((await get(`/api/parcels/${f.parcels[0]!.id}/`)).statusCode).toBe(404);
    expect((await svc.app.inject({ method: 'DELETE', url: `/api/farms/${f.id}/`, headers: asAccount(org, acc) })).statusCode).toBe(404);
  });
});

describe('orphan farms', () => {
  it('an unlinked farm is invisible through the API, still billed, listed as an orphan, and deletable', async () => {
    const kept = await newFarm(svc, org, acc, 'Linked', [pointParcel('l', 2)]);
    const f = await newFarm(svc, org, acc, 'Orphan', [pointParcel('o1', 5), pointParcel('o2', 6, -4.70, 37.95)]);
    const crop = await svc.app.inject({ method: 'POST', url: '/api/crops/', headers: asAccount(org, acc), payload: { parcel: f.parcels[0]!.id, name: 'Oats' } });
    const cropId = (crop.json() as { id: number }).id;

    await svc.store.farms.unlink(org.organization_id, f.id);
    expect(await farmState(f.id)).toBe('orphan');

    for (const headers of [asAccount(org, acc), asBearer(acc), { 'x-api-key': org.api_key }]) {
      expect((await get(`/api/farms/${f.id}/`, headers)).statusCode).toBe(404);
      expect(ids(await get('/api/farms/', headers))).toEqual([kept.id]);
      expect((await get(`/api/farms/${f.id}/parcels/`, headers)).statusCode).toBe(404);
      for (const p of f.parcels) expect((await get(`/api/parcels/${p.id}/`, headers)).statusCode).toBe(404);
      const parcels = (await get('/api/parcels/', headers)).json() as { features: Feature[] };
      expect(parcels.features.map((x) => x.properties.name)).toEqual(['l']);
      expect((await get(`/api/crops/${cropId}/`, headers)).statusCode).toBe(404);
    }
    const before = await storeCounts(svc);
    expect((await svc.app.inject({ method: 'PATCH', url: `/api/farms/${f.id}/`, headers: asAccount(org, acc), payload: { name: 'X' } })).statusCode).toBe(404);
    expect((await svc.app.inject({ method: 'DELETE', url: `/api/farms/${f.id}/`, headers: asAccount(org, acc) })).statusCode).toBe(404);
    const into = await svc.app.inject({ method: 'POST', url: '/api/parcels/', headers: asAccount(org, acc), payload: { farm: { id: f.id }, parcels: [pointParcel('x', 1)] } });
    expect(into.statusCode).toBe(404);
    expect(await storeCounts(svc)).toEqual(before);

    // Billing still counts it.
    const bill = (await get('/api/billing/', { 'x-api-key': org.api_key })).json() as { total_hectares: number; orphans: { farms: number; parcels: number; hectares: number } };
    expect(bill.orphans.farms).toBe(1);
    expect(bill.orphans.parcels).toBe(2);
    expect(bill.orphans.hectares).toBeCloseTo(11, 6);
    expect(bill.total_hectares).toBeCloseTo(13, 6);

    const orphans = await svc.store.farms.listOrphans(org.organization_id);
    expect(orphans).toHaveLength(1);
    expect(orphans[0]).toMatchObject({ id: f.id, name: 'Orphan', parcel_count: 2 });
    expect(orphans[0]!.hectares).toBeCloseTo(11, 6);
    expect(await svc.store.farms.listOrphans((await newOrg(svc, 'Other')).organization_id)).toEqual([]);

    await svc.store.farms.deleteOrphan(org.organization_id, f.id);
    expect(await farmState(f.id)).toBe('gone');
    expect(await counts()).toMatchObject({ farms: 1, parcels: 1, crops: 0 });
    expect(await svc.store.farms.listOrphans(org.organization_id)).toEqual([]);
    const after = (await get('/api/billing/', { 'x-api-key': org.api_key })).json() as { total_hectares: number; orphans: { farms: number } };
    expect(after.orphans.farms).toBe(0);
    expect(after.total_hectares).toBeCloseTo(2, 6);
  });

  it('unlink and deleteOrphan refuse the wrong farm: linked, already orphan, unknown, another organization', async () => {
    const f = await newFarm(svc, org, acc, 'Linked', [pointParcel('l', 2)]);
    const other = await newOrg(svc, 'Other');
    await expect(svc.store.farms.deleteOrphan(org.organization_id, f.id)).rejects.toThrow(expect.objectContaining({ status: 404 }));
    await expect(svc.store.farms.unlink(other.organization_id, f.id)).rejects.toThrow(expect.objectContaining({ status: 404 }));
    await expect(svc.store.farms.unlink(org.organization_id, 999_999)).rejects.toThrow(expect.objectContaining({ status: 404 }));
    expect(await farmState(f.id)).toBe(acc.id);

    await svc.store.farms.unlink(org.organization_id, f.id);
    await expect(svc.store.farms.unlink(org.organization_id, f.id)).rejects.toThrow(expect.objectContaining({ status: 404 }));
    await expect(svc.store.farms.deleteOrphan(other.organization_id, f.id)).rejects.toThrow(expect.objectContaining({ status: 404 }));
    expect(await farmState(f.id)).toBe('orphan');
  });
});
