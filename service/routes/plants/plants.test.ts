// Plants: the detection import (Store.plants.import) and the read API (spec: "Plant (GeoJSON Feature)", "Plants").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import {
  asAccount, asBearer, newAccount, newFarm, newOrg, polygonParcel, startService, storeCounts,
  type Account, type Org, type TestService,
} from '../../../test/helpers/service.ts';
import { ApiError } from '../../errors.ts';
import { polygonAreaM2 } from '../../../core/geo/area.ts';
import { hectareSquare } from '../../../core/geo/square.ts';
import type { PlantCollection } from '../../../core/schemas/plants.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
type Headers = Record<string, string>;

let svc: TestService;
let org: Org;
let acc: Account;

beforeAll(async () => {
  svc = await startService();
  org = await newOrg(svc, 'Plants Org');
  acc = await newAccount(svc, org);
});
afterAll(async () => {
  await svc.close();
});

const get = (headers: Headers, url: string): Promise<LightMyRequestResponse> => svc.app.inject({ method: 'GET', url, headers });

/** A small tree crown: a closed ring of 5 positions around lon/lat, `r` degrees across. */
function crown(lon: number, lat: number, r = 0.00002, z?: number): number[][][] {
  const p = (x: number, y: number) => (z === undefined ? [x, y] : [x, y, z]);
  return [[p(lon - r, lat - r), p(lon + r, lat - r), p(lon + r, lat + r), p(lon - r, lat + r), p(lon - r, lat - r)]];
}

function plant(lon: number, lat: number, props: Record<string, unknown> = {}, coordinates: number[] = [lon, lat]) {
  return { type: 'Feature', geometry: { type: 'Point', coordinates }, properties: props };
}

const collection = (features: unknown[]) => ({ type: 'FeatureCollection', features });

/** The account's plants as the store has them, by id. */
const plantsOf = async (a: Account, o: Org = org) =>
  (await svc.store.plants.list({ organizationId: o.organization_id, accountId: a.id, via: 'api_key' }, { limit: 1_000_000 })).rows;

/** Two adjacent parcels of `account` (west one with a hole in its middle); returns their ids. */
async function parcelsOf(account: Account, o: Org = org, lon = -4.78, lat = 37.88): Promise<{ west: number; east: number; farm: number }> {
  const outer = hectareSquare(lon, lat, 4)[0]!;
  const hole = [...hectareSquare(lon, lat, 0.25)[0]!].reverse();
  const farm = await newFarm(svc, o, account, 'Orchard farm', [
    { name: 'West', geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [outer, hole] } } },
    polygonParcel('East', lon + 0.01, lat, 150),
  ]);
  return { west: farm.parcels[0]!.id, east: farm.parcels[1]!.id, farm: farm.id };
}

async function expectImportError(fn: () => Promise<unknown>, code: string): Promise<ApiError> {
  let caught: unknown;
  try {
    await fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(ApiError);
  const err = caught as ApiError;
  expect(err.status).toBe(400);
  expect(err.errors?.map((e) => e.code)).toContain(code);
  return err;
}

describe('importPlants', () => {
  it('imports a valid FeatureCollection with shapes, placing a plant without parcel in the parcel containing it', async () => {
    const { west, east } = await parcelsOf(acc);
    const before = await storeCounts(svc);
    const r = await svc.store.plants.import(org.organization_id, acc.id, collection([
      plant(-4.78 + 0.0007, 37.88, { shape: { type: 'Polygon', coordinates: crown(-4.78 + 0.0007, 37.88) }, info: { species: 'olive' } }),
      plant(-4.78 + 0.01, 37.88, { shape: null, info: 'east tree' }),
      plant(-4.78, 37.88, { info: 'in the hole' }),
      plant(10, 10, { info: 'far away' }),
      plant(-4.78 + 0.0007, 37.88, { parcel: east, info: 'told where it is' }),
    ]));
    expect(r.imported).toBe(5);
    expect((await storeCounts(svc)).plants).toBe(before.plants! + 5);
    const rows = (await plantsOf(acc)).slice(-5);
    expect(rows.map((x) => x.parcel_id)).toEqual([west, east, null, null, east]);
  });

  const invalid: Array<[string, unknown, string]> = [
    ['a shape ring of 3 positions', { shape: { type: 'Polygon', coordinates: [crown(1, 1)[0]!.slice(0, 2).concat([crown(1, 1)[0]![0]!])] } }, 'ring_too_short'],
    ['a shape position of 4 numbers', { shape: { type: 'Polygon', coordinates: [crown(1, 1)[0]!.map((p, i) => (i === 1 ? [p[0]!, p[1]!, 0, 0] : p))] } }, 'position_invalid'],
    ['a shape ring not closed', { shape: { type: 'Polygon', coordinates: [crown(1, 1)[0]!.slice(0, 4)] } }, 'ring_not_closed'],
    ['a shape that is a MultiPolygon', { shape: { type: 'MultiPolygon', coordinates: [crown(1, 1)] } }, 'shape_invalid'],
  ];
  for (const [label, props, code] of invalid) {
    it(`rejects ${label} (${code}) and imports nothing of the file`, async () => {
      const before = await storeCounts(svc);
      await expectImportError(() => svc.store.plants.import(org.organization_id, acc.id, collection([plant(1, 1, { info: 'fine' }), plant(1, 1, props as Record<string, unknown>)])), code);
      expect(await storeCounts(svc)).toEqual(before);
    });
  }

  it('rejects a point of 4 numbers, a point out of range, and a file that is not a FeatureCollection', async () => {
    const before = await storeCounts(svc);
    await expectImportError(() => svc.store.plants.import(org.organization_id, acc.id, collection([plant(1, 1, {}, [1, 1, 0, 0])])), 'position_invalid');
    await expectImportError(() => svc.store.plants.import(org.organization_id, acc.id, collection([plant(1, 1, {}, [181, 1])])), 'longitude_out_of_range');
    await expectImportError(() => svc.store.plants.import(org.organization_id, acc.id, [plant(1, 1)]), 'not_collection');
    await expectImportError(() => svc.store.plants.import(org.organization_id, acc.id, collection([{ type: 'Feature', geometry: { type: 'Polygon', coordinates: crown(1, 1) } }])), 'geometry_type');
    expect(await storeCounts(svc)).toEqual(before);
  });

  it("refuses a parcel or crop that is not the account's, importing nothing", async () => {
    const other = await newAccount(svc, org);
    const theirs = await parcelsOf(other, org, 20, 40);
    const crop = await svc.app.inject({ method: 'POST', url: '/api/crops/', headers: asAccount(org, other), payload: { parcel: theirs.east, name: 'Theirs' } });
    expect(crop.statusCode).toBe(201);
    const cropId = (crop.json() as { id: number }).id;
    const before = await storeCounts(svc);
    await expect(svc.store.plants.import(org.organization_id, acc.id, collection([plant(1, 1), plant(20, 40, { parcel: theirs.west })]))).rejects.toThrow(ApiError);
    await expect(svc.store.plants.import(org.organization_id, acc.id, collection([plant(1, 1), plant(1, 1, { crop: cropId })]))).rejects.toThrow(ApiError);
    await expect(svc.store.plants.import(org.organization_id, acc.id, collection([plant(1, 1), plant(1, 1, { crop: 99999999 })]))).rejects.toThrow(ApiError);
    expect(await storeCounts(svc)).toEqual(before);
    // Points inside another account's parcel are not placed there.
    await svc.store.plants.import(org.organization_id, acc.id, collection([plant(20, 40, { info: 'over the fence' })]));
    expect((await plantsOf(acc)).at(-1)!.parcel_id).toBeNull();
  });
});

describe('GET /api/plants/', () => {
  let reader: Account;
  let rh: Headers;
  let west: number;
  let east: number;
  let cropId: number;
  let shape: number[][][];

  beforeAll(async () => {
    reader = await newAccount(svc, org);
    rh = asAccount(org, reader);
    ({ west, east } = await parcelsOf(reader, org, 5, 45));
    const crop = await svc.app.inject({ method: 'POST', url: '/api/crops/', headers: rh, payload: { parcel: west, name: 'Olive grove' } });
    cropId = (crop.json() as { id: number }).id;
    // West is a 4 ha square (~200 m) centred on (5, 45) with a 0.25 ha hole; East a 150 m square at (5.01, 45).
    shape = crown(5.0007, 45, 0.00003, 212.5);
    await svc.store.plants.import(org.organization_id, reader.id, collection([
      plant(5.0007, 45, { shape: { type: 'Polygon', coordinates: shape }, info: { species: 'Olea europaea', note: 'Picual olive' }, crop: cropId }, [5.0007, 45, 212.5]),
      plant(5.0008, 45.0004, { info: 'Arbequina olive, young' }),
      plant(5.01, 45, { info: 'Almond tree' }),
      plant(5.0101, 45.0001, { info: null }),
    ]));
  });

  const list = async (query = '', headers: Headers = rh): Promise<PlantCollection> => {
    const res = await get(headers, `/api/plants/${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as PlantCollection;
  };

  it("returns a FeatureCollection of Plant features with the spec's fields", async () => {
    const c = await list();
    expect(c.type).toBe('FeatureCollection');
    expect(c.features).toHaveLength(4);
    for (const f of c.features) {
      expect(f.type).toBe('Feature');
      expect(Number.isInteger(f.id)).toBe(true);
      expect(f.geometry.type).toBe('Point');
      expect([2, 3]).toContain(f.geometry.coordinates.length);
      expect(typeof f.properties.area).toBe('string');
      expect(Number.isFinite(Number(f.properties.area))).toBe(true);
      expect(f.properties.key).toMatch(UUID);
      expect(f.properties.created).toMatch(ISO);
      expect(f.properties.modified).toMatch(ISO);
      expect(Object.keys(f.properties).sort()).toEqual(['area', 'created', 'crop', 'info', 'key', 'modified', 'parcel', 'shape']);
    }
    const [withShape, young, almond, bare] = c.features;
    expect(withShape!.geometry.coordinates).toEqual([5.0007, 45, 212.5]);
    expect(withShape!.properties.shape).toEqual({ type: 'Polygon', coordinates: shape });
    expect(Number(withShape!.properties.area)).toBeCloseTo(polygonAreaM2(shape), 1);
    expect(Number(withShape!.properties.area)).toBeGreaterThan(10);
    expect(withShape!.properties.info).toEqual({ species: 'Olea europaea', note: 'Picual olive' });
    expect(withShape!.properties.crop).toBe(cropId);
    expect(withShape!.properties.parcel).toBe(west);
    expect(young!.properties.shape).toBeNull();
    expect(Number(young!.properties.area)).toBe(0);
    expect(young!.properties.info).toBe('Arbequina olive, young');
    expect(young!.properties.crop).toBeNull();
    expect(almond!.properties.parcel).toBe(east);
    expect(bare!.properties.info).toBeNull();
  });

  it('?search= matches text inside info, case-insensitively', async () => {
    const olive = await list('?search=olive');
    expect(olive.features.map((f) => f.properties.info)).toEqual([{ species: 'Olea europaea', note: 'Picual olive' }, 'Arbequina olive, young']);
    expect((await list('?search=ALMOND')).features).toHaveLength(1);
    expect((await list('?search=europaea')).features).toHaveLength(1);
    expect((await list('?search=walnut')).features).toEqual([]);
    expect((await list('?search=%25')).features).toEqual([]);
    // A plant's key finds it too.
    const one = (await list()).features[2]!;
    expect((await list(`?search=${one.properties.key}`)).features.map((f) => f.id)).toEqual([one.id]);
  });

  it('?parcel= and GET /api/parcels/{id}/plants/ limit the list to one parcel', async () => {
    const byQuery = await list(`?parcel=${west}`);
    expect(byQuery.features).toHaveLength(2);
    expect(byQuery.features.every((f) => f.properties.parcel === west)).toBe(true);
    const res = await get(rh, `/api/parcels/${east}/plants/`);
    expect(res.statusCode).toBe(200);
    const byPath = res.json() as PlantCollection;
    expect(byPath.type).toBe('FeatureCollection');
    expect(byPath.features.map((f) => f.properties.info)).toEqual(['Almond tree', null]);
    expect((await list(`?parcel=${east}&search=almond`)).features).toHaveLength(1);
    expect((await get(rh, '/api/parcels/99999999/plants/')).statusCode).toBe(404);
    expect((await get(rh, '/api/plants/?parcel=99999999')).statusCode).toBe(404);
  });

  it('GET /api/plants/{id}/ returns one plant feature', async () => {
    const all = await list();
    const first = all.features[0]!;
    const res = await get(rh, `/api/plants/${first.id}/`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(first);
    expect((await get(rh, '/api/plants/99999999/')).statusCode).toBe(404);
  });

  it('rejects query parameters of the wrong type or unknown', async () => {
    for (const q of ['parcel=abc', 'parcel=0', 'limit=0', 'after=-2', 'species=olive']) {
      expect((await get(rh, `/api/plants/?${q}`)).statusCode, q).toBe(400);
    }
  });

  it('is isolated between accounts', async () => {
    const intruder = await newAccount(svc, org);
    const mine = (await list()).features;
    for (const ih of [asAccount(org, intruder), asBearer(intruder)]) {
      const theirs = await list('', ih);
      expect(theirs.features.map((f) => f.id)).not.toEqual(expect.arrayContaining([mine[0]!.id]));
      expect(theirs.features).toHaveLength(0);
      expect((await list('?search=olive', ih)).features).toHaveLength(0);
      expect((await get(ih, `/api/plants/${mine[0]!.id}/`)).statusCode).toBe(404);
      expect((await get(ih, `/api/plants/${mine[3]!.id}/`)).statusCode).toBe(404);
      expect((await get(ih, `/api/parcels/${west}/plants/`)).statusCode).toBe(404);
      expect((await get(ih, `/api/plants/?parcel=${west}`)).statusCode).toBe(404);
    }
    expect((await get({ 'x-api-key': (await newOrg(svc, 'Elsewhere')).api_key }, `/api/plants/${mine[0]!.id}/`)).statusCode).toBe(404);
    // The owner's bearer token and the organization's key see them.
    expect((await list('', asBearer(reader))).features).toHaveLength(4);
    const orgWide = await list('?limit=50000', { 'x-api-key': org.api_key });
    expect(orgWide.features.map((f) => f.id)).toEqual(expect.arrayContaining(mine.map((f) => f.id)));
  });

  it("a plant without a parcel follows its account's visibility", async () => {
    const loner = await newAccount(svc, org);
    await svc.store.plants.import(org.organization_id, loner.id, collection([plant(-100, 40, { info: 'no parcel here' })]));
    const own = await list('', asAccount(org, loner));
    expect(own.features).toHaveLength(1);
    expect(own.features[0]!.properties.parcel).toBeNull();
    expect((await list('?search=no+parcel+here')).features).toHaveLength(0);
  });
});
