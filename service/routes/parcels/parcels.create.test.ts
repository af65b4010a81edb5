// POST /api/parcels/ through the HTTP API: batch size, response shape and the farm id (spec: "Parcels", "Errors").
import { describe, expect, it } from 'vitest';
import { asBearer, newAccount, newOrg, pointParcel, polygonParcel, storeCounts } from '../../../test/helpers/service.ts';
import type { ParcelCollection, ParcelFeature } from '../../../core/schemas/parcels.ts';
import {
  UUID, acc, codesAt, create, farmOf, get, h, org, post, rejected, svc, useParcelService,
  type ErrorJson,
} from './parcels.test-helpers.ts';

useParcelService();

describe('POST /api/parcels/ — batch size and response shape', () => {
  it('creates one parcel: 201, an array with one Feature carrying an integer id and a uuid key', async () => {
    const farm = await farmOf();
    const before = await storeCounts(svc);
    const res = await post(h, { farm: { id: farm }, parcels: [polygonParcel('Solo', -4.78, 37.88, 100, { crop_type: 'wheat' })] });
    expect(res.statusCode).toBe(201);
    const arr = res.json() as ParcelFeature[];
    expect(Array.isArray(arr)).toBe(true);
    expect(arr).toHaveLength(1);
    const f = arr[0]!;
    expect(f.type).toBe('Feature');
    expect(Number.isInteger(f.id)).toBe(true);
    expect(f.id).toBeGreaterThan(0);
    expect(f.properties.key).toMatch(UUID);
    expect(f.properties.name).toBe('Solo');
    expect(f.properties.farm).toBe(farm);
    expect(f.properties.metadata).toEqual({ crop_type: 'wheat' });
    expect(f.geometry.type).toBe('Polygon');
    expect((await storeCounts(svc)).parcels).toBe(before.parcels! + 1);
  });

  it('creates 50 parcels in request order, each with its own id and key', async () => {
    const farm = await farmOf();
    const names = Array.from({ length: 50 }, (_, i) => `P-${String(i).padStart(2, '0')}`);
    // Different places, so a reordering would also show in the geometry.
    const inputs = names.map((n, i) => polygonParcel(n, -4.9 + (i % 10) * 0.01, 37.8 + Math.floor(i / 10) * 0.01, 80, { seq: i }));
    const arr = await create(h, farm, inputs);
    expect(arr).toHaveLength(50);
    expect(arr.map((f) => f.properties.name)).toEqual(names);
    expect(arr.map((f) => f.properties.metadata['seq'])).toEqual(names.map((_, i) => i));
    for (let i = 0; i < 50; i++) {
      expect(arr[i]!.geometry.coordinates).toEqual(inputs[i]!.geom.geometry.coordinates);
      expect(arr[i]!.properties.key).toMatch(UUID);
    }
    expect(new Set(arr.map((f) => f.id)).size).toBe(50);
    expect(new Set(arr.map((f) => f.properties.key)).size).toBe(50);
    // Version-7 keys in creation order (they append to the key's unique index; see platform/node/time-ordered-ids.ts).
    const keys = arr.map((f) => f.properties.key);
    for (const k of keys) expect(k).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...keys].sort()).toEqual(keys);
    const listed = (await get(h, `/api/farms/${farm}/parcels/`)).json() as ParcelCollection;
    expect(listed.features.map((f) => f.id).sort((a, b) => a - b)).toEqual(arr.map((f) => f.id).sort((a, b) => a - b));
  });

  it('rejects 0 parcels and 51 parcels with 400, creating nothing', async () => {
    const farm = await farmOf();
    await rejected(h, { farm: { id: farm }, parcels: [] });
    const many = Array.from({ length: 51 }, (_, i) => polygonParcel(`X${i}`, -4.9 + (i % 10) * 0.01, 37.8 + Math.floor(i / 10) * 0.01, 50));
    await rejected(h, { farm: { id: farm }, parcels: many });
  });

  it('rejects a batch whose parcels is missing or not an array', async () => {
    const farm = await farmOf();
    await rejected(h, { farm: { id: farm } });
    await rejected(h, { farm: { id: farm }, parcels: { name: 'x' } });
  });

  it('is atomic: one invalid parcel among 50 rejects all with 400 naming its index and code', async () => {
    const farm = await farmOf();
    const inputs: unknown[] = Array.from({ length: 50 }, (_, i) => polygonParcel(`A${i}`, -4.9 + (i % 10) * 0.01, 37.8 + Math.floor(i / 10) * 0.01, 50));
    inputs[37] = { ...polygonParcel('bad'), name: '' };
    const b = await rejected(h, { farm: { id: farm }, parcels: inputs });
    expect(b.code).toBe('invalid_parcels');
    expect(b.errors?.length).toBeGreaterThan(0);
    expect(b.errors!.every((e) => e.index === 37)).toBe(true);
    expect(codesAt(b, 37)).toContain('name_missing');
    expect(b.errors![0]!.path).toMatch(/^parcels\/37\//);
    expect(b.message).toContain('37');
    const listed = (await get(h, `/api/farms/${farm}/parcels/`)).json() as ParcelCollection;
    expect(listed.features).toHaveLength(0);
  });

  it('reports every invalid parcel of a batch by index', async () => {
    const farm = await farmOf();
    const b = await rejected(h, {
      farm: { id: farm },
      parcels: [polygonParcel('ok'), { ...polygonParcel('x'), name: 7 }, polygonParcel('ok2'), pointParcel('no ha', undefined)],
    });
    expect(codesAt(b, 1)).toContain('name_missing');
    expect(codesAt(b, 3)).toContain('hectares_missing');
    expect(codesAt(b, 0)).toEqual([]);
    expect(codesAt(b, 2)).toEqual([]);
  });

  it('is not idempotent: the same batch twice creates two sets of parcels', async () => {
    const farm = await farmOf();
    const batch = { farm: { id: farm }, parcels: [polygonParcel('Dup A'), polygonParcel('Dup B', -4.7, 37.9)] };
    const first = await post(h, batch);
    const second = await post(h, batch);
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    const a = first.json() as ParcelFeature[];
    const b = second.json() as ParcelFeature[];
    expect(b.map((f) => f.properties.name)).toEqual(['Dup A', 'Dup B']);
    const ids = new Set([...a, ...b].map((f) => f.id));
    const keys = new Set([...a, ...b].map((f) => f.properties.key));
    expect(ids.size).toBe(4);
    expect(keys.size).toBe(4);
    const listed = (await get(h, `/api/farms/${farm}/parcels/`)).json() as ParcelCollection;
    expect(listed.features.map((f) => f.properties.name).sort()).toEqual(['Dup A', 'Dup A', 'Dup B', 'Dup B']);
  });
});

describe("POST /api/parcels/ — farm id", () => {
  const missing: Array<[string, Record<string, unknown>]> = [
    ['absent', {}],
    ['null', { farm: null }],
    ['{}', { farm: {} }],
    ['{id: null}', { farm: { id: null } }],
  ];
  for (const [label, extra] of missing) {
    it(`answers 200 {message: 'Missing Farm ID'} and creates nothing when farm is ${label}`, async () => {
      const before = await storeCounts(svc);
      const res = await post(h, { ...extra, parcels: [polygonParcel('Never')] });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ message: 'Missing Farm ID' });
      expect(await storeCounts(svc)).toEqual(before);
    });
  }

  it("returns 404 for another account's farm (same organization) and creates nothing", async () => {
    const other = await newAccount(svc, org);
    const theirs = await farmOf(other);
    const before = await storeCounts(svc);
    const res = await post(h, { farm: { id: theirs }, parcels: [polygonParcel('Intruder')] });
    expect(res.statusCode).toBe(404);
    expect((res.json() as ErrorJson).code).toBe('not_found');
    expect(await storeCounts(svc)).toEqual(before);
    // The bearer token of the account is narrowed the same way.
    const viaBearer = await post(asBearer(acc), { farm: { id: theirs }, parcels: [polygonParcel('Intruder')] });
    expect(viaBearer.statusCode).toBe(404);
    expect(await storeCounts(svc)).toEqual(before);
  });

  it("returns 404 for another organization's farm and creates nothing", async () => {
    const org2 = await newOrg(svc, 'Other Org');
    const acc2 = await newAccount(svc, org2);
    const theirs = await farmOf(acc2, org2);
    const before = await storeCounts(svc);
    expect((await post(h, { farm: { id: theirs }, parcels: [polygonParcel('Intruder')] })).statusCode).toBe(404);
    expect((await post({ 'x-api-key': org.api_key }, { farm: { id: theirs }, parcels: [polygonParcel('Intruder')] })).statusCode).toBe(404);
    expect(await storeCounts(svc)).toEqual(before);
  });

  it('returns 404 for a farm id that does not exist, and 400 for a farm id that is not a positive integer', async () => {
    const before = await storeCounts(svc);
    expect((await post(h, { farm: { id: 987654 }, parcels: [polygonParcel('x')] })).statusCode).toBe(404);
    for (const id of ['12', 0, -3, 1.5]) {
      expect((await post(h, { farm: { id }, parcels: [polygonParcel('x')] })).statusCode).toBe(400);
    }
    expect(await storeCounts(svc)).toEqual(before);
  });

  it("lets the organization's API key without account header create in any of its accounts' farms", async () => {
    const farm = await farmOf();
    const arr = await create({ 'x-api-key': org.api_key }, farm, [polygonParcel('By org')]);
    expect(arr[0]!.properties.farm).toBe(farm);
  });
});
