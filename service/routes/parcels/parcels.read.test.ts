// GET /api/parcels/ and GET /api/parcels/{id}/: filters (farm, search, bbox, metadata), pagination and the single Feature
// (spec: "Parcels").
import { beforeAll, describe, expect, it } from 'vitest';
import { asAccount, newAccount, pointParcel, polygonParcel, type Account } from '../../../test/helpers/service.ts';
import type { ParcelCollection, ParcelFeature } from '../../../core/schemas/parcels.ts';
import { ISO, UUID, create, farmOf, get, org, svc, useParcelService, type Headers } from './parcels.test-helpers.ts';

useParcelService();

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
      // Absolute, from PUBLIC_URL (the test service's is http://127.0.0.1:8080).
      if (url !== null) expect(url.startsWith('http://127.0.0.1:8080/api/parcels/?')).toBe(true);
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
