// POST/GET/PATCH/DELETE /api/parcels/ through the HTTP API (spec: "Parcels", "Limits", "Errors").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import {
  asAccount, asBearer, newAccount, newFarm, newOrg, pointParcel, polygonParcel, square, startService, storeCounts,
  type Account, type Org, type TestService,
} from '../../../test/helpers/service.ts';
import { polygonHectares } from '../../../core/geo/area.ts';
import { hectareSquare } from '../../../core/geo/square.ts';
import { setParcelLimit } from '../../store/accounts.ts';
import { importPlants } from '../../store/plants.ts';
import type { ParcelCollection, ParcelFeature } from '../../../core/schemas/parcels.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

interface ErrorJson { code: string; message: string; detail: string; errors?: { index?: number; path: string; code: string; message: string }[] }

type Headers = Record<string, string>;

let svc: TestService;
let org: Org;
let acc: Account;
let h: Headers;

beforeAll(async () => {
  svc = await startService();
  org = newOrg(svc, 'Parcels Org');
  acc = await newAccount(svc, org);
  h = asAccount(org, acc);
});
afterAll(async () => {
  await svc.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function post(headers: Headers, payload: unknown): Promise<LightMyRequestResponse> {
  return svc.app.inject({ method: 'POST', url: '/api/parcels/', headers, payload: payload as object });
}
function get(headers: Headers, url: string): Promise<LightMyRequestResponse> {
  return svc.app.inject({ method: 'GET', url, headers });
}
function patch(headers: Headers, id: number, payload: unknown): Promise<LightMyRequestResponse> {
  return svc.app.inject({ method: 'PATCH', url: `/api/parcels/${id}/`, headers, payload: payload as object });
}
function del(headers: Headers, url: string): Promise<LightMyRequestResponse> {
  return svc.app.inject({ method: 'DELETE', url, headers });
}

/** A fresh farm of `account` (default: the shared one). */
async function farmOf(account: Account = acc, o: Org = org, name = 'Farm'): Promise<number> {
  return (await newFarm(svc, o, account, name)).id;
}

async function create(headers: Headers, farmId: number, parcels: unknown[]): Promise<ParcelFeature[]> {
  const res = await post(headers, { farm: { id: farmId }, parcels });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as ParcelFeature[];
}

/** A polygon parcel whose geodesic area is `hectares` (the helper's square is only approximately sized). */
function sizedPolygon(name: string, hectares: number, lon = -4.78, lat = 37.88) {
  return { name, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: hectareSquare(lon, lat, hectares) } } };
}

/** Expects the whole batch to be rejected with 400 and nothing written; returns the error body. */
async function rejected(headers: Headers, payload: unknown): Promise<ErrorJson> {
  const before = storeCounts(svc.db);
  const res = await post(headers, payload);
  expect(res.statusCode, res.body).toBe(400);
  expect(storeCounts(svc.db)).toEqual(before);
  const b = res.json() as ErrorJson;
  expect(typeof b.code).toBe('string');
  expect(typeof b.message).toBe('string');
  return b;
}

const codesAt = (b: ErrorJson, index: number) => (b.errors ?? []).filter((e) => e.index === index).map((e) => e.code);

describe('POST /api/parcels/ — batch size and response shape', () => {
  it('creates one parcel: 201, an array with one Feature carrying an integer id and a uuid key', async () => {
    const farm = await farmOf();
    const before = storeCounts(svc.db);
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
    expect(storeCounts(svc.db).parcels).toBe(before.parcels! + 1);
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
      const before = storeCounts(svc.db);
      const res = await post(h, { ...extra, parcels: [polygonParcel('Never')] });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ message: 'Missing Farm ID' });
      expect(storeCounts(svc.db)).toEqual(before);
    });
  }

  it("returns 404 for another account's farm (same organization) and creates nothing", async () => {
    const other = await newAccount(svc, org);
    const theirs = await farmOf(other);
    const before = storeCounts(svc.db);
    const res = await post(h, { farm: { id: theirs }, parcels: [polygonParcel('Intruder')] });
    expect(res.statusCode).toBe(404);
    expect((res.json() as ErrorJson).code).toBe('not_found');
    expect(storeCounts(svc.db)).toEqual(before);
    // The bearer token of the account is narrowed the same way.
    const viaBearer = await post(asBearer(acc), { farm: { id: theirs }, parcels: [polygonParcel('Intruder')] });
    expect(viaBearer.statusCode).toBe(404);
    expect(storeCounts(svc.db)).toEqual(before);
  });

  it("returns 404 for another organization's farm and creates nothing", async () => {
    const org2 = newOrg(svc, 'Other Org');
    const acc2 = await newAccount(svc, org2);
    const theirs = await farmOf(acc2, org2);
    const before = storeCounts(svc.db);
    expect((await post(h, { farm: { id: theirs }, parcels: [polygonParcel('Intruder')] })).statusCode).toBe(404);
    expect((await post({ 'x-api-key': org.api_key }, { farm: { id: theirs }, parcels: [polygonParcel('Intruder')] })).statusCode).toBe(404);
    expect(storeCounts(svc.db)).toEqual(before);
  });

  it('returns 404 for a farm id that does not exist, and 400 for a farm id that is not a positive integer', async () => {
    const before = storeCounts(svc.db);
    expect((await post(h, { farm: { id: 987654 }, parcels: [polygonParcel('x')] })).statusCode).toBe(404);
    for (const id of ['12', 0, -3, 1.5]) {
      expect((await post(h, { farm: { id }, parcels: [polygonParcel('x')] })).statusCode).toBe(400);
    }
    expect(storeCounts(svc.db)).toEqual(before);
  });

  it("lets the organization's API key without account header create in any of its accounts' farms", async () => {
    const farm = await farmOf();
    const arr = await create({ 'x-api-key': org.api_key }, farm, [polygonParcel('By org')]);
    expect(arr[0]!.properties.farm).toBe(farm);
  });
});

describe('POST /api/parcels/ — area', () => {
  it('computes a polygon area geodesically (same as polygonHectares) and a ~100 m square is about 1 ha', async () => {
    const farm = await farmOf();
    const shapes = [square(-4.78, 37.88, 100), square(10, 60, 300), square(-60, -35, 250)];
    const arr = await create(h, farm, shapes.map((c, i) => ({ name: `Geo ${i}`, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: c } } })));
    for (let i = 0; i < shapes.length; i++) {
      const expected = polygonHectares(shapes[i]!);
      expect(Math.abs(arr[i]!.properties.hectares - expected) / expected).toBeLessThan(1e-9);
    }
    expect(arr[0]!.properties.hectares).toBeGreaterThan(0.99);
    expect(arr[0]!.properties.hectares).toBeLessThan(1.01);
    expect(arr[1]!.properties.hectares).toBeGreaterThan(8.9);
    expect(arr[1]!.properties.hectares).toBeLessThan(9.1);
  });

  it('subtracts holes from a polygon area', async () => {
    const farm = await farmOf();
    const outer = hectareSquare(-4.78, 37.88, 4)[0]!;
    const hole = [...hectareSquare(-4.78, 37.88, 1)[0]!].reverse();
    const [f] = await create(h, farm, [{ name: 'Holed', geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [outer, hole] } } }]);
    expect(f!.properties.hectares).toBeCloseTo(3, 6);
  });

  it('turns a point with hectares into a square of that area centred on the point', async () => {
    const farm = await farmOf();
    const cases: Array<[number, number, number]> = [[2.5, -4.78, 37.88], [0.3, 5.2, 51.9], [42, -70.1, -33.4]];
    const arr = await create(h, farm, cases.map(([ha, lon, lat], i) => pointParcel(`Pt ${i}`, ha, lon, lat)));
    for (let i = 0; i < cases.length; i++) {
      const [ha, lon, lat] = cases[i]!;
      const f = arr[i]!;
      expect(f.geometry.type).toBe('Polygon');
      const ring = f.geometry.coordinates[0]!;
      expect(ring).toHaveLength(5);
      expect(ring[0]).toEqual(ring[4]);
      expect(Math.abs(polygonHectares(f.geometry.coordinates) - ha) / ha).toBeLessThan(1e-4);
      expect(f.properties.hectares).toBe(ha);
      expect(f.properties.source_type).toBe('Point');
      expect(f.properties.point).toEqual([lon, lat]);
      const [minx, miny, maxx, maxy] = f.bbox;
      expect((minx! + maxx!) / 2).toBeCloseTo(lon, 9);
      expect((miny! + maxy!) / 2).toBeCloseTo(lat, 9);
      // A square, not a thin rectangle: its sides are of (nearly) equal ground length.
      const widthM = (maxx! - minx!) * 111_320 * Math.cos((lat * Math.PI) / 180);
      const heightM = (maxy! - miny!) * 110_574;
      expect(widthM / heightM).toBeGreaterThan(0.98);
      expect(widthM / heightM).toBeLessThan(1.02);
    }
    // A polygon parcel says so.
    const [poly] = await create(h, farm, [polygonParcel('Poly')]);
    expect(poly!.properties.source_type).toBe('Polygon');
    expect(poly!.properties.point).toBeNull();
  });

  it('rejects the whole batch when a point has no hectares', async () => {
    const farm = await farmOf();
    const b = await rejected(h, { farm: { id: farm }, parcels: [polygonParcel('fine'), pointParcel('no ha', undefined)] });
    expect(b.code).toBe('invalid_parcels');
    expect(codesAt(b, 1)).toContain('hectares_missing');
    for (const bad of [0, -1, '3']) {
      const p = pointParcel('bad ha', 1);
      (p.geom.properties.metadata as Record<string, unknown>)['hectares'] = bad;
      const b2 = await rejected(h, { farm: { id: farm }, parcels: [p] });
      expect(codesAt(b2, 0)).toContain('hectares_missing');
    }
    // hectares at the parcel's metadata instead of geom.properties.metadata does not count.
    const misplaced = { ...pointParcel('misplaced', undefined), metadata: { hectares: 3 } };
    expect(codesAt(await rejected(h, { farm: { id: farm }, parcels: [misplaced] }), 0)).toContain('hectares_missing');
  });
});

describe('POST /api/parcels/ — 100 ha limit and account overrides', () => {
  it('accepts 99.9 ha and rejects 100.5 ha, for polygons and points', async () => {
    const farm = await farmOf();
    const ok = await create(h, farm, [sizedPolygon('Poly 99.9', 99.9), pointParcel('Point 99.9', 99.9, -4.7, 37.8), pointParcel('Point 100', 100, -4.6, 37.8)]);
    expect(ok[0]!.properties.hectares).toBeCloseTo(99.9, 6);
    expect(ok[1]!.properties.hectares).toBe(99.9);
    expect(ok[2]!.properties.hectares).toBe(100);
    const poly = await rejected(h, { farm: { id: farm }, parcels: [sizedPolygon('Poly 100.5', 100.5)] });
    expect(codesAt(poly, 0)).toContain('area_over_limit');
    const point = await rejected(h, { farm: { id: farm }, parcels: [pointParcel('Point 100.5', 100.5)] });
    expect(codesAt(point, 0)).toContain('area_over_limit');
  });

  it("applies a limit agreed for the account (raised to 200: 150 ok, 250 rejected; lowered to 50: 60 rejected)", async () => {
    const special = await newAccount(svc, org);
    const sh = asAccount(org, special);
    const farm = await farmOf(special);
    setParcelLimit(svc.db, special.id, 200);
    const big = await create(sh, farm, [sizedPolygon('150 poly', 150), pointParcel('150 point', 150, -4.6, 37.8)]);
    expect(big.map((f) => Math.round(f.properties.hectares))).toEqual([150, 150]);
    expect(codesAt(await rejected(sh, { farm: { id: farm }, parcels: [sizedPolygon('250 poly', 250)] }), 0)).toContain('area_over_limit');
    expect(codesAt(await rejected(sh, { farm: { id: farm }, parcels: [pointParcel('250 point', 250)] }), 0)).toContain('area_over_limit');
    // The organization key acting on that farm gets the account's limit too.
    await create({ 'x-api-key': org.api_key }, farm, [pointParcel('150 by org', 150, -4.5, 37.8)]);
    // The shared account still has the default.
    const farm2 = await farmOf();
    expect(codesAt(await rejected(h, { farm: { id: farm2 }, parcels: [sizedPolygon('150 elsewhere', 150)] }), 0)).toContain('area_over_limit');

    setParcelLimit(svc.db, special.id, 50);
    expect(codesAt(await rejected(sh, { farm: { id: farm }, parcels: [sizedPolygon('60 poly', 60)] }), 0)).toContain('area_over_limit');
    expect(codesAt(await rejected(sh, { farm: { id: farm }, parcels: [pointParcel('60 point', 60)] }), 0)).toContain('area_over_limit');
    await create(sh, farm, [sizedPolygon('40 poly', 40, -4.4, 37.8)]);
    setParcelLimit(svc.db, special.id, null);
    await create(sh, farm, [pointParcel('back to default', 99, -4.3, 37.8)]);
    expect(codesAt(await rejected(sh, { farm: { id: farm }, parcels: [pointParcel('101', 101)] }), 0)).toContain('area_over_limit');
  });
});

describe('POST /api/parcels/ — every validation rule is a 400 with its stable code', () => {
  const base = () => polygonParcel('Rule', -4.78, 37.88, 100);
  const withCoords = (coordinates: unknown) => ({ name: 'Rule', geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates } } });
  const ring = square(-4.78, 37.88, 100)[0]!;
  const [sw, se, ne, nw] = [ring[0]!, ring[1]!, ring[2]!, ring[3]!];
  const cases: Array<[string, () => unknown, string]> = [
    ['name missing', () => { const { name: _n, ...rest } = base(); return rest; }, 'name_missing'],
    ['name empty', () => ({ ...base(), name: '' }), 'name_missing'],
    ['name only spaces', () => ({ ...base(), name: '   ' }), 'name_missing'],
    ['name not a string', () => ({ ...base(), name: 12 }), 'name_missing'],
    ['name too long', () => ({ ...base(), name: 'n'.repeat(256) }), 'name_too_long'],
    ['geom missing', () => ({ name: 'Rule' }), 'geom_not_feature'],
    ['geom a string', () => ({ name: 'Rule', geom: 'POLYGON((0 0, 1 0, 1 1, 0 0))' }), 'geom_not_feature'],
    ['geom a bare geometry', () => ({ name: 'Rule', geom: { type: 'Polygon', coordinates: [ring] } }), 'geom_not_feature'],
    ['geom a FeatureCollection', () => ({ name: 'Rule', geom: { type: 'FeatureCollection', features: [] } }), 'geom_not_feature'],
    ['geom.geometry missing', () => ({ name: 'Rule', geom: { type: 'Feature', properties: {} } }), 'geom_not_feature'],
    ['geometry MultiPolygon', () => ({ name: 'Rule', geom: { type: 'Feature', properties: {}, geometry: { type: 'MultiPolygon', coordinates: [[ring]] } } }), 'geometry_type'],
    ['geometry LineString', () => ({ name: 'Rule', geom: { type: 'Feature', properties: {}, geometry: { type: 'LineString', coordinates: ring } } }), 'geometry_type'],
    ['ring not closed', () => withCoords([[sw, se, ne, nw]]), 'ring_not_closed'],
    ['ring of 3 positions', () => withCoords([[sw, se, sw]]), 'ring_too_short'],
    ['no rings', () => withCoords([]), 'ring_too_short'],
    ['position with 1 number', () => withCoords([[sw, [se[0]!], ne, nw, sw]]), 'position_invalid'],
    ['position with 4 numbers', () => withCoords([[sw, [se[0]!, se[1]!, 0, 0], ne, nw, sw]]), 'position_invalid'],
    ['position with a string', () => withCoords([[sw, [String(se[0]), se[1]!], ne, nw, sw]]), 'position_invalid'],
    ['position with null', () => withCoords([[sw, [se[0]!, null], ne, nw, sw]]), 'position_invalid'],
    ['longitude 181', () => withCoords([[[181, 37.88], [181.001, 37.88], [181.001, 37.881], [181, 37.88]]]), 'longitude_out_of_range'],
    ['latitude -91', () => withCoords([[[-4.78, -91], [-4.77, -91], [-4.77, -90.99], [-4.78, -91]]]), 'latitude_out_of_range'],
    ['bow-tie self-intersection', () => withCoords([[sw, ne, se, nw, sw]]), 'self_intersection'],
    ['zero-area polygon', () => withCoords([[sw, se, sw, se, sw].map((p) => [...p])]), 'self_intersection|area_not_positive'],
    ['metadata value null', () => ({ ...base(), metadata: { region: null } }), 'metadata_invalid'],
    ['metadata value object', () => ({ ...base(), metadata: { region: { a: 1 } } }), 'metadata_invalid'],
    ['metadata value array', () => ({ ...base(), metadata: { region: ['a'] } }), 'metadata_invalid'],
    ['metadata an array', () => ({ ...base(), metadata: ['a'] }), 'metadata_invalid'],
    ['metadata a string', () => ({ ...base(), metadata: 'region=north' }), 'metadata_invalid'],
    ['unknown parcel field', () => ({ ...base(), area: 3 }), 'unknown_field'],
    ['parcel not an object', () => 'parcel', 'not_object'],
  ];
  for (const [label, make, code] of cases) {
    it(`${label} → 400 ${code}`, async () => {
      const farm = await farmOf();
      const b = await rejected(h, { farm: { id: farm }, parcels: [polygonParcel('Valid neighbour', -4.7, 37.9), make()] });
      expect(b.code).toBe('invalid_parcels');
      expect(b.detail).toBe(b.message);
      const codes = codesAt(b, 1);
      expect(codes.some((c) => new RegExp(`^(${code})$`).test(c)), `${JSON.stringify(b.errors)}`).toBe(true);
      for (const e of b.errors!) {
        expect(e.index).toBe(1);
        expect(e.path === 'parcels/1' || e.path.startsWith('parcels/1/')).toBe(true);
        expect(typeof e.message).toBe('string');
      }
    });
  }

  it('accepts 3-number positions, string/number/boolean metadata values and keys with spaces', async () => {
    const farm = await farmOf();
    const ring3 = square(-4.78, 37.88, 100)[0]!.map(([x, y]) => [x!, y!, 12.5]);
    const [f] = await create(h, farm, [{
      name: '  Trimmed  ', metadata: { 'Supplier ID': 'S-1', contract_year: 2024, certified: true },
      geom: { type: 'Feature', properties: null, geometry: { type: 'Polygon', coordinates: [ring3] } },
    }]);
    expect(f!.properties.name).toBe('Trimmed');
    expect(f!.properties.metadata).toEqual({ 'Supplier ID': 'S-1', contract_year: 2024, certified: true });
  });

  it('rejects an unknown top-level field of the request', async () => {
    const farm = await farmOf();
    const b = await rejected(h, { farm: { id: farm }, parcels: [polygonParcel('x')], dry_run: true });
    expect(b.errors?.[0]?.code).toBe('unknown_field');
  });
});

describe('GET /api/parcels/', () => {
  let lister: Account;
  let lh: Headers;
  let farmA: number;
  let farmB: number;
  let byName: Map<string, ParcelFeature>;

  beforeAll(async () => {
    lister = await newAccount(svc, org);
    lh = asAccount(org, lister);
    farmA = await farmOf(lister, org, 'A');
    farmB = await farmOf(lister, org, 'B');
    const a = await create(lh, farmA, [
      polygonParcel('North Field', 10.0, 45.0, 100, { region: 'north', 'Supplier ID': 'S-12', contract_year: 2024, certified: true }),
      polygonParcel('South Field', 10.0, 44.0, 100, { region: 'south', 'Supplier ID': 'S-12', contract_year: '2025' }),
      polygonParcel('100% organic', 10.5, 44.5, 100, { region: 'north', 'Supplier ID': 'S-13', contract_year: 2025 }),
    ]);
    const b = await create(lh, farmB, [
      polygonParcel('north_east', 11.0, 45.0, 100, { region: 'north', contract_year: 2024.5 }),
      pointParcel('Orchard', 2, 11.0, 44.0),
    ]);
    byName = new Map([...a, ...b].map((f) => [f.properties.name, f]));
  });

  const names = (c: ParcelCollection) => c.features.map((f) => f.properties.name).sort();
  const list = async (query: string): Promise<ParcelCollection> => {
    const res = await get(lh, `/api/parcels/${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as ParcelCollection;
  };

  it("returns a FeatureCollection of the account's parcels with count and next", async () => {
    const c = await list('');
    expect(c.type).toBe('FeatureCollection');
    expect(names(c)).toEqual(['100% organic', 'North Field', 'Orchard', 'South Field', 'north_east']);
    expect(c.count).toBe(5);
    expect(c.next).toBeNull();
    for (const f of c.features) {
      expect(f.type).toBe('Feature');
      expect(f.properties.key).toMatch(UUID);
      expect(f.bbox).toHaveLength(4);
    }
  });

  it('filters by farm', async () => {
    expect(names(await list(`?farm=${farmA}`))).toEqual(['100% organic', 'North Field', 'South Field']);
    const b = await list(`?farm=${farmB}`);
    expect(names(b)).toEqual(['Orchard', 'north_east']);
    expect(b.count).toBe(2);
    // Another account's farm is not a filter the caller may use.
    expect((await get(lh, `/api/parcels/?farm=${await farmOf()}`)).statusCode).toBe(404);
  });

  it('searches names (substring, case-insensitive, wildcards taken literally)', async () => {
    expect(names(await list('?search=field'))).toEqual(['North Field', 'South Field']);
    expect(names(await list('?search=NORTH'))).toEqual(['North Field', 'north_east']);
    expect(names(await list('?search=%25'))).toEqual(['100% organic']);
    expect(names(await list('?search=h_e'))).toEqual(['north_east']);
    expect((await list('?search=nothing-like-this')).count).toBe(0);
  });

  it('filters by bbox (minLon,minLat,maxLon,maxLat)', async () => {
    expect(names(await list('?bbox=9.9,44.9,10.1,45.1'))).toEqual(['North Field']);
    expect(names(await list('?bbox=9.5,43.5,11.5,44.2'))).toEqual(['Orchard', 'South Field']);
    expect((await list('?bbox=0,0,1,1')).count).toBe(0);
    expect((await get(lh, '/api/parcels/?bbox=10,45,9,44')).statusCode).toBe(400);
    expect((await get(lh, '/api/parcels/?bbox=1,2,3')).statusCode).toBe(400);
  });

  it('filters by metadata[<key>]=<value>, including a key with a space sent as Supplier+ID', async () => {
    expect(names(await list('?metadata%5Bregion%5D=north'))).toEqual(['100% organic', 'North Field', 'north_east']);
    expect(names(await list('?metadata%5BSupplier+ID%5D=S-12'))).toEqual(['North Field', 'South Field']);
    expect(names(await list('?metadata%5BSupplier%20ID%5D=S-13'))).toEqual(['100% organic']);
    // Unencoded brackets are read the same way.
    expect(names(await list('?metadata[Supplier+ID]=S-12'))).toEqual(['North Field', 'South Field']);
  });

  it('matches numeric and boolean metadata values by their text', async () => {
    expect(names(await list('?metadata%5Bcontract_year%5D=2024'))).toEqual(['North Field']);
    expect(names(await list('?metadata%5Bcontract_year%5D=2025'))).toEqual(['100% organic', 'South Field']);
    expect(names(await list('?metadata%5Bcontract_year%5D=2024.5'))).toEqual(['north_east']);
    expect(names(await list('?metadata%5Bcertified%5D=true'))).toEqual(['North Field']);
  });

  it('ANDs several metadata filters, and combines them with the other filters', async () => {
    const c = await list('?metadata%5Bregion%5D=north&metadata%5BSupplier+ID%5D=S-12');
    expect(names(c)).toEqual(['North Field']);
    expect(c.count).toBe(1);
    expect(names(await list('?metadata%5Bregion%5D=south&metadata%5BSupplier+ID%5D=S-13'))).toEqual([]);
    expect(names(await list(`?metadata%5Bregion%5D=north&farm=${farmB}`))).toEqual(['north_east']);
    expect(names(await list('?metadata%5Bregion%5D=north&search=organic'))).toEqual(['100% organic']);
  });

  it('returns zero parcels for an unknown metadata key or value', async () => {
    const c = await list('?metadata%5Bno_such_key%5D=north');
    expect(c.features).toEqual([]);
    expect(c.count).toBe(0);
    expect(c.next).toBeNull();
    expect((await list('?metadata%5Bregion%5D=west')).count).toBe(0);
  });

  it('paginates with limit/after: following next returns every parcel exactly once', async () => {
    const pager = await newAccount(svc, org);
    const ph = asAccount(org, pager);
    const farm = await farmOf(pager);
    const made = await create(ph, farm, Array.from({ length: 23 }, (_, i) => polygonParcel(`Page ${i}`, 5 + i * 0.01, 45, 50, { even: i % 2 === 0 ? 'yes' : 'no' })));
    const seen: number[] = [];
    let url: string | null = '/api/parcels/?limit=5';
    let pages = 0;
    while (url !== null) {
      const res = await get(ph, url);
      expect(res.statusCode, res.body).toBe(200);
      const c = res.json() as ParcelCollection;
      expect(c.count).toBe(23);
      expect(c.features.length).toBeLessThanOrEqual(5);
      seen.push(...c.features.map((f) => f.id));
      url = c.next;
      if (url !== null) expect(url.startsWith('/api/parcels/')).toBe(true);
      pages++;
      expect(pages).toBeLessThan(10);
    }
    expect(pages).toBe(5);
    expect(seen).toEqual(made.map((f) => f.id));

    // next keeps the filters, including a metadata filter.
    const filtered: number[] = [];
    url = '/api/parcels/?limit=4&metadata%5Beven%5D=yes';
    while (url !== null) {
      const c = (await get(ph, url)).json() as ParcelCollection;
      expect(c.count).toBe(12);
      filtered.push(...c.features.map((f) => f.id));
      url = c.next;
    }
    expect(filtered).toEqual(made.filter((_, i) => i % 2 === 0).map((f) => f.id));

    // after= alone skips to the parcels after that id.
    const rest = (await get(ph, `/api/parcels/?after=${made[20]!.id}`)).json() as ParcelCollection;
    expect(rest.features.map((f) => f.id)).toEqual([made[21]!.id, made[22]!.id]);
    expect(rest.count).toBe(23);
  });

  it('rejects a limit outside 1..10000 and a non-numeric cursor', async () => {
    for (const q of ['limit=0', 'limit=10001', 'limit=abc', 'after=-1', 'after=x', 'farm=abc']) {
      const res = await get(lh, `/api/parcels/?${q}`);
      expect(res.statusCode, q).toBe(400);
    }
  });

  it('returns one parcel as a Feature with bbox and its properties', async () => {
    const made = byName.get('North Field')!;
    const res = await get(lh, `/api/parcels/${made.id}/`);
    expect(res.statusCode).toBe(200);
    const f = res.json() as ParcelFeature;
    expect(f.type).toBe('Feature');
    expect(f.id).toBe(made.id);
    expect(f.geometry).toEqual(made.geometry);
    const xs = f.geometry.coordinates[0]!.map((p) => p[0]!);
    const ys = f.geometry.coordinates[0]!.map((p) => p[1]!);
    expect(f.bbox).toEqual([Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)]);
    expect(f.properties.key).toBe(made.properties.key);
    expect(f.properties.name).toBe('North Field');
    expect(f.properties.farm).toBe(farmA);
    expect(f.properties.hectares).toBe(made.properties.hectares);
    expect(f.properties.metadata).toEqual({ region: 'north', 'Supplier ID': 'S-12', contract_year: 2024, certified: true });
    expect(f.properties.created).toMatch(ISO);
    expect(f.properties.modified).toMatch(ISO);
    // Without the trailing slash too.
    expect((await get(lh, `/api/parcels/${made.id}`)).statusCode).toBe(200);
    expect((await get(lh, '/api/parcels/99999999/')).statusCode).toBe(404);
  });
});

describe('PATCH /api/parcels/{id}/', () => {
  async function fresh(metadata: Record<string, string | number | boolean> = { a: '1', b: '2' }): Promise<ParcelFeature> {
    const farm = await farmOf();
    const [f] = await create(h, farm, [polygonParcel('Patchable', -4.78, 37.88, 100, metadata)]);
    return f!;
  }
  const read = async (id: number) => (await get(h, `/api/parcels/${id}/`)).json() as ParcelFeature;

  it('replaces the whole metadata object: a key not sent is gone', async () => {
    const p = await fresh({ a: '1', b: '2', 'Supplier ID': 'S-1' });
    const res = await patch(h, p.id, { id: p.id, metadata: { a: 'x', c: 3 } });
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json() as ParcelFeature).properties.metadata).toEqual({ a: 'x', c: 3 });
    const after = await read(p.id);
    expect(after.properties.metadata).toEqual({ a: 'x', c: 3 });
    expect(after.properties.name).toBe('Patchable');
    expect(after.geometry).toEqual(p.geometry);
    // An empty object clears it.
    expect((await patch(h, p.id, { metadata: {} })).statusCode).toBe(200);
    expect((await read(p.id)).properties.metadata).toEqual({});
    // The metadata filter follows the replacement.
    const filtered = (await get(h, '/api/parcels/?metadata%5BSupplier+ID%5D=S-1')).json() as ParcelCollection;
    expect(filtered.features.map((f) => f.id)).not.toContain(p.id);
  });

  it('patches the name alone and leaves metadata untouched', async () => {
    const p = await fresh();
    const res = await patch(h, p.id, { name: 'Renamed' });
    expect(res.statusCode).toBe(200);
    const after = await read(p.id);
    expect(after.properties.name).toBe('Renamed');
    expect(after.properties.metadata).toEqual({ a: '1', b: '2' });
    expect(after.properties.key).toBe(p.properties.key);
  });

  it('patches the geometry: hectares and bbox are recomputed', async () => {
    const p = await fresh();
    const coords = square(6.1, 46.2, 250);
    const res = await patch(h, p.id, { geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: coords } } });
    expect(res.statusCode, res.body).toBe(200);
    const after = await read(p.id);
    expect(after.geometry.coordinates).toEqual(coords);
    expect(Math.abs(after.properties.hectares - polygonHectares(coords)) / polygonHectares(coords)).toBeLessThan(1e-9);
    expect(after.properties.hectares).toBeGreaterThan(6);
    expect(after.bbox[0]).toBeCloseTo(coords[0]![0]![0]!, 12);
    // The spatial index follows the new place.
    const near = (await get(h, '/api/parcels/?bbox=6.09,46.19,6.11,46.21')).json() as ParcelCollection;
    expect(near.features.map((f) => f.id)).toContain(p.id);
    const old = (await get(h, '/api/parcels/?bbox=-4.79,37.87,-4.77,37.89')).json() as ParcelCollection;
    expect(old.features.map((f) => f.id)).not.toContain(p.id);
    // A point with hectares becomes a square there.
    const pt = await patch(h, p.id, { geom: pointParcel('x', 7, 6.2, 46.3).geom });
    expect(pt.statusCode).toBe(200);
    const asPoint = pt.json() as ParcelFeature;
    expect(asPoint.properties.hectares).toBe(7);
    expect(asPoint.properties.source_type).toBe('Point');
    expect(asPoint.properties.point).toEqual([6.2, 46.3]);
  });

  it('revalidates the geometry: over the limit or invalid → 400 and nothing changes', async () => {
    const p = await fresh();
    const before = await read(p.id);
    const cases: unknown[] = [
      { geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: hectareSquare(-4.78, 37.88, 100.5) } } },
      { geom: pointParcel('x', 120).geom },
      { geom: pointParcel('x', undefined).geom },
      { geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [square(-4.78, 37.88)[0]!.slice(0, 4)] } } },
      { name: 'Ok name', geom: { type: 'Feature', properties: {}, geometry: { type: 'MultiPolygon', coordinates: [] } } },
      { name: '' },
      { metadata: { a: null } },
    ];
    const expectedCodes = ['area_over_limit', 'area_over_limit', 'hectares_missing', 'ring_not_closed', 'geometry_type', 'name_missing', 'metadata_invalid'];
    for (let i = 0; i < cases.length; i++) {
      const res = await patch(h, p.id, cases[i]);
      expect(res.statusCode, res.body).toBe(400);
      const b = res.json() as ErrorJson;
      expect(b.errors?.map((e) => e.code), JSON.stringify(b)).toContain(expectedCodes[i]);
    }
    expect(await read(p.id)).toEqual(before);
  });

  it('rejects a body id different from the path id, an unknown field and an empty body', async () => {
    const p = await fresh();
    const before = await read(p.id);
    const mismatch = await patch(h, p.id, { id: p.id + 1, metadata: { z: '1' } });
    expect(mismatch.statusCode).toBe(400);
    expect((mismatch.json() as ErrorJson).errors?.map((e) => e.code)).toContain('id_mismatch');
    expect((await patch(h, p.id, { id: String(p.id), metadata: { z: '1' } })).statusCode).toBe(400);
    const unknown = await patch(h, p.id, { metadata: { z: '1' }, hectares: 5 });
    expect(unknown.statusCode).toBe(400);
    expect((unknown.json() as ErrorJson).errors?.map((e) => e.code)).toContain('unknown_field');
    const empty = await patch(h, p.id, {});
    expect(empty.statusCode).toBe(400);
    expect((empty.json() as ErrorJson).errors?.map((e) => e.code)).toContain('empty_patch');
    expect((await patch(h, p.id, { id: p.id })).statusCode).toBe(400);
    expect((await patch(h, p.id, [])).statusCode).toBe(400);
    expect(await read(p.id)).toEqual(before);
    // The matching id is accepted.
    expect((await patch(h, p.id, { id: p.id, name: 'Same id' })).statusCode).toBe(200);
  });

  it('advances modified on every patch and keeps created', async () => {
    const p = await fresh();
    await sleep(5);
    const res = await patch(h, p.id, { name: 'Later' });
    const a = res.json() as ParcelFeature;
    expect(a.properties.created).toBe(p.properties.created);
    expect(Date.parse(a.properties.modified)).toBeGreaterThan(Date.parse(p.properties.modified));
    await sleep(5);
    const b = (await patch(h, p.id, { metadata: { n: 1 } })).json() as ParcelFeature;
    expect(Date.parse(b.properties.modified)).toBeGreaterThan(Date.parse(a.properties.modified));
    expect((await read(p.id)).properties.modified).toBe(b.properties.modified);
  });

  it('returns 404 for an unknown parcel', async () => {
    expect((await patch(h, 99999999, { name: 'x' })).statusCode).toBe(404);
  });
});

describe('DELETE /api/parcels/{id}/', () => {
  it('answers 204 with no body, then 404', async () => {
    const farm = await farmOf();
    const [p, keep] = await create(h, farm, [polygonParcel('Doomed'), polygonParcel('Kept', -4.7, 37.9)]);
    const res = await del(h, `/api/parcels/${p!.id}/`);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await get(h, `/api/parcels/${p!.id}/`)).statusCode).toBe(404);
    expect((await del(h, `/api/parcels/${p!.id}/`)).statusCode).toBe(404);
    expect((await patch(h, p!.id, { name: 'ghost' })).statusCode).toBe(404);
    const listed = (await get(h, `/api/farms/${farm}/parcels/`)).json() as ParcelCollection;
    expect(listed.features.map((f) => f.id)).toEqual([keep!.id]);
    // Gone from the spatial index as well.
    expect((svc.db.prepare('SELECT COUNT(*) AS n FROM parcels_rtree WHERE id = ?').get(p!.id) as { n: number }).n).toBe(0);
  });

  it('deletes the parcel with its crops and plants', async () => {
    const farm = await farmOf();
    const [p, other] = await create(h, farm, [polygonParcel('With crops', 3.0, 40.0, 200), polygonParcel('Neighbour', 3.1, 40.0, 200)]);
    const cropIds: number[] = [];
    for (const name of ['Wheat', 'Barley']) {
      const c = await svc.app.inject({ method: 'POST', url: '/api/crops/', headers: h, payload: { name, parcel: p!.id } });
      expect(c.statusCode, c.body).toBe(201);
      cropIds.push((c.json() as { id: number }).id);
    }
    const otherCrop = (await svc.app.inject({ method: 'POST', url: '/api/crops/', headers: h, payload: { name: 'Oats', parcel: other!.id } })).json() as { id: number };
    importPlants(svc.db, org.organization_id, acc.id, {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', geometry: { type: 'Point', coordinates: [3.0, 40.0] }, properties: { info: 'in doomed' } },
        { type: 'Feature', geometry: { type: 'Point', coordinates: [3.0001, 40.0001] }, properties: { info: 'in doomed too' } },
        { type: 'Feature', geometry: { type: 'Point', coordinates: [3.1, 40.0] }, properties: { info: 'in neighbour' } },
      ],
    });
    const plantsOf = (id: number) => (svc.db.prepare('SELECT COUNT(*) AS n FROM plants WHERE parcel_id = ?').get(id) as { n: number }).n;
    expect(plantsOf(p!.id)).toBe(2);
    const before = storeCounts(svc.db);
    expect((await del(h, `/api/parcels/${p!.id}/`)).statusCode).toBe(204);
    const after = storeCounts(svc.db);
    expect(after.parcels).toBe(before.parcels! - 1);
    expect(after.crops).toBe(before.crops! - 2);
    expect(after.plants).toBe(before.plants! - 2);
    for (const id of cropIds) expect((await get(h, `/api/crops/${id}/`)).statusCode).toBe(404);
    expect((await get(h, `/api/crops/${otherCrop.id}/`)).statusCode).toBe(200);
    expect(plantsOf(p!.id)).toBe(0);
    expect(plantsOf(other!.id)).toBe(1);
  });
});

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
    const org2 = newOrg(svc, 'Snoop Org');
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
    const total = (svc.db.prepare(`SELECT COUNT(*) AS n FROM parcels p JOIN farms f ON f.id = p.farm_id JOIN accounts a ON a.id = f.account_id
      WHERE a.organization_id = ? AND a.state = 'active'`).get(org.organization_id) as { n: number }).n;
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
