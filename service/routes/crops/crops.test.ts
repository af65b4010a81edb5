// Crops (rotation entries) and crop families through the HTTP API (spec: "Crop", "Crops").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import {
  asAccount, asBearer, newAccount, newFarm, newOrg, polygonParcel, startService, storeCounts,
  type Account, type Org, type TestService,
} from '../../../test/helpers/service.ts';
import type { Crop, CropFamily } from '../../../core/schemas/crops.ts';
import { useManualClock } from '../../../test/helpers/clock.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

interface ErrorJson { code: string; message: string; detail: string; errors?: { path: string; code: string; message: string }[] }
interface CropPage { count: number; next: string | null; previous: string | null; results: Crop[] }
type Headers = Record<string, string>;

let svc: TestService;
let org: Org;
let acc: Account;
let h: Headers;
let parcelId: number;

beforeAll(async () => {
  svc = await startService();
  org = await newOrg(svc, 'Crops Org');
  acc = await newAccount(svc, org);
  h = asAccount(org, acc);
  parcelId = await newParcel(acc);
});
afterAll(async () => {
  await svc.close();
});

async function newParcel(account: Account, o: Org = org): Promise<number> {
  const farm = await newFarm(svc, o, account, 'Crop farm', [polygonParcel('Crop parcel', -4.78, 37.88, 100)]);
  return farm.parcels[0]!.id;
}

const inject = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, headers: Headers, payload?: unknown): Promise<LightMyRequestResponse> =>
  svc.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

async function createCrop(payload: Record<string, unknown>, headers: Headers = h): Promise<Crop> {
  const res = await inject('POST', '/api/crops/', headers, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Crop;
}

/** Expects 400 and no row written anywhere; returns the error body. */
async function rejected(method: 'POST' | 'PATCH', url: string, payload: unknown, headers: Headers = h): Promise<ErrorJson> {
  const before = await storeCounts(svc);
  const res = await inject(method, url, headers, payload);
  expect(res.statusCode, res.body).toBe(400);
  expect(await storeCounts(svc)).toEqual(before);
  const b = res.json() as ErrorJson;
  expect(typeof b.code).toBe('string');
  expect(typeof b.message).toBe('string');
  expect(b.detail).toBe(b.message);
  return b;
}

describe('POST /api/crops/', () => {
  it('creates a crop: 201 with every Crop field', async () => {
    const c = await createCrop({
      name: 'Durum wheat', campaign: '2024/25', area: 12.5, variety: 'Simeto', harvested_qty: 48.25,
      sowing: '2024-11-02', closure: '2025-06-30', is_active: true, parcel: parcelId,
    });
    expect(Object.keys(c).sort()).toEqual(
      ['area', 'campaign', 'closure', 'created', 'family', 'harvested_qty', 'id', 'is_active', 'key', 'modified', 'name', 'parcel', 'sowing', 'variety'],
    );
    expect(Number.isInteger(c.id)).toBe(true);
    expect(c.key).toMatch(UUID);
    expect(c.family).toBeNull();
    expect(c).toMatchObject({
      name: 'Durum wheat', campaign: '2024/25', area: 12.5, variety: 'Simeto', harvested_qty: 48.25,
      sowing: '2024-11-02', closure: '2025-06-30', is_active: true, parcel: parcelId,
    });
    expect(c.created).toMatch(ISO);
    expect(c.modified).toMatch(ISO);
    // It reads back the same.
    const again = await inject('GET', `/api/crops/${c.id}/`, h);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(c);
  });

  it('defaults is_active to true and every optional field to null', async () => {
    const c = await createCrop({ parcel: parcelId });
    expect(c.is_active).toBe(true);
    expect(c).toMatchObject({ name: null, campaign: null, area: null, variety: null, harvested_qty: null, sowing: null, closure: null, family: null });
    const past = await createCrop({ parcel: parcelId, is_active: false });
    expect(past.is_active).toBe(false);
  });

  it('accepts explicit nulls for the nullable fields', async () => {
    const c = await createCrop({ parcel: parcelId, name: null, area: null, sowing: null, family: null });
    expect(c).toMatchObject({ name: null, area: null, sowing: null, family: null });
  });

  it('takes a family by id (an existing one)', async () => {
    const families = (await inject('GET', '/api/crop-families/', h)).json() as CropFamily[];
    const poaceae = families.find((f) => f.name === 'Poaceae')!;
    expect(poaceae).toBeDefined();
    const c = await createCrop({ parcel: parcelId, name: 'Barley', family: { id: poaceae.id } });
    expect(c.family).toEqual(poaceae);
    expect(c.family!.key).toMatch(UUID);
  });

  it('takes a family by name: found case-insensitively, or created and then listed', async () => {
    const before = ((await inject('GET', '/api/crop-families/', h)).json() as CropFamily[]);
    const fab = before.find((f) => f.name === 'Fabaceae')!;
    const c = await createCrop({ parcel: parcelId, name: 'Chickpea', family: { name: 'fABACEAE', observation: 'ignored when found' } });
    expect(c.family).toEqual(fab);
    expect(((await inject('GET', '/api/crop-families/', h)).json() as CropFamily[]).length).toBe(before.length);

    const familiesBefore = (await storeCounts(svc)).crop_families!;
    const made = await createCrop({ parcel: parcelId, name: 'Quinoa', family: { name: 'Pseudocereals', observation: 'quinoa, amaranth, buckwheat' } });
    expect(made.family).toMatchObject({ name: 'Pseudocereals', observation: 'quinoa, amaranth, buckwheat' });
    expect(made.family!.key).toMatch(UUID);
    expect((await storeCounts(svc)).crop_families).toBe(familiesBefore + 1);
    const listed = (await inject('GET', '/api/crop-families/', h)).json() as CropFamily[];
    expect(listed).toContainEqual(made.family);
    // Found again by another spelling; no second family.
    const again = await createCrop({ parcel: parcelId, family: { name: 'PSEUDOCEREALS' } });
    expect(again.family!.id).toBe(made.family!.id);
    expect((await storeCounts(svc)).crop_families).toBe(familiesBefore + 1);
  });

  it("does not share an organization's own families with another organization", async () => {
    const org2 = await newOrg(svc, 'Other crops org');
    const acc2 = await newAccount(svc, org2);
    const mine = await createCrop({ parcel: parcelId, family: { name: 'Secret family' } });
    const theirs = (await inject('GET', '/api/crop-families/', asAccount(org2, acc2))).json() as CropFamily[];
    expect(theirs.map((f) => f.id)).not.toContain(mine.family!.id);
    const p2 = await newParcel(acc2, org2);
    await rejected('POST', '/api/crops/', { parcel: p2, family: { id: mine.family!.id } }, asAccount(org2, acc2));
  });

  it('rejects an unknown family id with 400 and creates nothing', async () => {
    const b = await rejected('POST', '/api/crops/', { parcel: parcelId, family: { id: 999999 } });
    expect(b.errors?.[0]?.path).toBe('body/family/id');
  });

  it('rejects closure before sowing', async () => {
    const b = await rejected('POST', '/api/crops/', { parcel: parcelId, sowing: '2024-05-01', closure: '2024-04-30' });
    expect(b.errors?.map((e) => e.code)).toContain('closure_before_sowing');
    // Same day is fine.
    await createCrop({ parcel: parcelId, sowing: '2024-05-01', closure: '2024-05-01' });
  });

  const invalid: Array<[string, Record<string, unknown>]> = [
    ['an impossible date 2024-02-30', { sowing: '2024-02-30' }],
    ['a date with a time', { closure: '2024-02-03T00:00:00Z' }],
    ['a date in another format', { sowing: '03/02/2024' }],
    ['a negative area', { area: -1 }],
    ['a negative harvested_qty', { harvested_qty: -0.5 }],
    ['a string area (no coercion)', { area: '12' }],
    ['a string is_active', { is_active: 'true' }],
    ['a string parcel id', { parcel: String(1) }],
    ['a number for name', { name: 5 }],
    ['an unknown field', { irrigation_type: 'drip' }],
    ['read-only id', { id: 5 }],
    ['read-only key', { key: '9b2f7a3e-6f0e-4b4a-9e53-0d6f1f0f6b1a' }],
    ['a family with both id and name', { family: { id: 1, name: 'Poaceae' } }],
    ['a family with an empty name', { family: { name: '' } }],
  ];
  for (const [label, extra] of invalid) {
    it(`rejects ${label} with 400`, async () => {
      const b = await rejected('POST', '/api/crops/', { parcel: parcelId, ...extra });
      expect(b.code).toBe('validation_failed');
      if (label.includes('unknown') || label.includes('read-only')) expect(b.errors?.map((e) => e.code)).toContain('unknown_field');
    });
  }

  it("rejects a parcel the caller cannot see (400) and a crop of another account's parcel", async () => {
    const other = await newAccount(svc, org);
    const theirs = await newParcel(other);
    await rejected('POST', '/api/crops/', { parcel: theirs, name: 'Trespass' });
    await rejected('POST', '/api/crops/', { parcel: 99999999, name: 'Nowhere' });
  });
});

describe('PATCH /api/crops/{id}/ and DELETE', () => {
  it('updates any single field and leaves the others as they were', async () => {
    const c = await createCrop({ parcel: parcelId, name: 'Maize', campaign: '2024', area: 3, variety: 'X', harvested_qty: 1, sowing: '2024-04-01', closure: '2024-09-30' });
    const changes: Array<Record<string, unknown>> = [
      { name: 'Sweet corn' }, { campaign: '2024 spring' }, { area: 4.5 }, { variety: 'Y' }, { harvested_qty: 9.75 },
      { sowing: '2024-03-15' }, { closure: '2024-10-01' }, { is_active: false }, { name: null }, { area: null },
    ];
    let expected: Crop = c;
    for (const change of changes) {
      const res = await inject('PATCH', `/api/crops/${c.id}/`, h, change);
      expect(res.statusCode, res.body).toBe(200);
      const got = res.json() as Crop;
      expected = { ...expected, ...change, modified: got.modified } as Crop;
      expect(got).toEqual(expected);
    }
    expect((await inject('GET', `/api/crops/${c.id}/`, h)).json()).toEqual(expected);
  });

  it('patches the family by id and by name, and clears it with null', async () => {
    const c = await createCrop({ parcel: parcelId, name: 'Beans' });
    const byName = (await inject('PATCH', `/api/crops/${c.id}/`, h, { family: { name: 'fabaceae' } })).json() as Crop;
    expect(byName.family!.name).toBe('Fabaceae');
    const families = (await inject('GET', '/api/crop-families/', h)).json() as CropFamily[];
    const sol = families.find((f) => f.name === 'Solanaceae')!;
    const byId = (await inject('PATCH', `/api/crops/${c.id}/`, h, { family: { id: sol.id } })).json() as Crop;
    expect(byId.family).toEqual(sol);
    const cleared = (await inject('PATCH', `/api/crops/${c.id}/`, h, { family: null })).json() as Crop;
    expect(cleared.family).toBeNull();
  });

  it('advances modified and keeps created, key and id', async () => {
    const clock = useManualClock('2026-03-01T08:00:00.000Z');
    const c = await createCrop({ parcel: parcelId, name: 'Oats' });
    expect(c).toMatchObject({ created: '2026-03-01T08:00:00.000Z', modified: '2026-03-01T08:00:00.000Z' });
    clock.advance(1);
    const p = (await inject('PATCH', `/api/crops/${c.id}/`, h, { variety: 'Avena' })).json() as Crop;
    expect(p.id).toBe(c.id);
    expect(p.key).toBe(c.key);
    expect(p.created).toBe('2026-03-01T08:00:00.000Z');
    expect(p.modified).toBe('2026-03-01T08:00:00.001Z');
  });

  it('revalidates a patch: closure before the stored sowing, bad dates, negative area, strings, unknown fields → 400, nothing changed', async () => {
    const c = await createCrop({ parcel: parcelId, name: 'Rye', sowing: '2024-10-01', area: 2 });
    const url = `/api/crops/${c.id}/`;
    expect((await rejected('PATCH', url, { closure: '2024-09-01' })).errors?.map((e) => e.code)).toContain('closure_before_sowing');
    await rejected('PATCH', url, { sowing: '2025-01-01', closure: '2024-12-31' });
    await rejected('PATCH', url, { sowing: '2024-02-30' });
    await rejected('PATCH', url, { area: -3 });
    await rejected('PATCH', url, { area: '3' });
    await rejected('PATCH', url, { family: { id: 999999 } });
    await rejected('PATCH', url, { parcel: 99999999 });
    // A family created by name is rolled back when the rest of the patch fails.
    await rejected('PATCH', url, { family: { name: 'Never created' }, closure: '2020-01-01' });
    expect(((await inject('GET', '/api/crop-families/', h)).json() as CropFamily[]).map((f) => f.name)).not.toContain('Never created');
    const unknown = await rejected('PATCH', url, { soil_type: 'clay' });
    expect(unknown.errors?.map((e) => e.code)).toContain('unknown_field');
    expect((await inject('GET', url, h)).json()).toEqual(c);
  });

  it('returns 404 when patching an unknown crop', async () => {
    expect((await inject('PATCH', '/api/crops/99999999/', h, { name: 'x' })).statusCode).toBe(404);
  });

  it('deletes: 204 without a body, then 404', async () => {
    const c = await createCrop({ parcel: parcelId, name: 'Short lived' });
    const res = await inject('DELETE', `/api/crops/${c.id}/`, h);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await inject('GET', `/api/crops/${c.id}/`, h)).statusCode).toBe(404);
    expect((await inject('DELETE', `/api/crops/${c.id}/`, h)).statusCode).toBe(404);
    expect((await inject('PATCH', `/api/crops/${c.id}/`, h, { name: 'ghost' })).statusCode).toBe(404);
    const history = (await inject('GET', `/api/parcels/${parcelId}/crops/`, h)).json() as Crop[];
    expect(history.map((x) => x.id)).not.toContain(c.id);
  });
});

describe('GET /api/parcels/{id}/crops/ — rotation history', () => {
  it('returns past (is_active=false) and current entries, newest sowing first', async () => {
    const p = await newParcel(acc);
    // Created out of order on purpose.
    const mid = await createCrop({ parcel: p, name: '2023 sunflower', sowing: '2023-04-10', closure: '2023-09-01', is_active: false });
    const current = await createCrop({ parcel: p, name: '2024 wheat', sowing: '2024-11-02', is_active: true });
    const oldest = await createCrop({ parcel: p, name: '2021 barley', sowing: '2021-11-20', closure: '2022-06-10', is_active: false });
    const undated = await createCrop({ parcel: p, name: 'undated note', is_active: false });
    const res = await inject('GET', `/api/parcels/${p}/crops/`, h);
    expect(res.statusCode).toBe(200);
    const list = res.json() as Crop[];
    expect(Array.isArray(list)).toBe(true);
    expect(list.map((c) => c.id)).toEqual([current.id, mid.id, oldest.id, undated.id]);
    expect(list.map((c) => c.is_active)).toEqual([true, false, false, false]);
    expect(list[1]).toEqual(mid);
    // Another parcel's crops are not in it.
    expect(list.every((c) => c.parcel === p)).toBe(true);
  });

  it('returns an empty array for a parcel without crops, and 404 for a parcel the caller cannot see', async () => {
    const p = await newParcel(acc);
    const res = await inject('GET', `/api/parcels/${p}/crops/`, h);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([]);
    const other = await newAccount(svc, org);
    const theirs = await newParcel(other);
    expect((await inject('GET', `/api/parcels/${theirs}/crops/`, h)).statusCode).toBe(404);
    expect((await inject('GET', '/api/parcels/99999999/crops/', h)).statusCode).toBe(404);
  });
});

describe('GET /api/crops/ — paginated list', () => {
  let lister: Account;
  let lh: Headers;
  let p1: number;
  let p2: number;
  const made: Crop[] = [];

  beforeAll(async () => {
    lister = await newAccount(svc, org);
    lh = asAccount(org, lister);
    p1 = await newParcel(lister);
    p2 = await newParcel(lister);
    for (let i = 0; i < 7; i++) made.push(await createCrop({ parcel: p1, name: `P1-${i}`, is_active: i % 3 === 0 }, lh));
    for (let i = 0; i < 3; i++) made.push(await createCrop({ parcel: p2, name: `P2-${i}`, is_active: i === 0 }, lh));
  });

  it('has the shape {count, next, previous, results}', async () => {
    const res = await inject('GET', '/api/crops/', lh);
    expect(res.statusCode).toBe(200);
    const page = res.json() as CropPage;
    expect(Object.keys(page).sort()).toEqual(['count', 'next', 'previous', 'results']);
    expect(page.count).toBe(10);
    expect(page.next).toBeNull();
    expect(page.previous).toBeNull();
    expect(page.results.map((c) => c.id)).toEqual(made.map((c) => c.id));
  });

  it('pages with limit/offset: next and previous link every crop exactly once', async () => {
    const seen: number[] = [];
    let url: string | null = '/api/crops/?limit=3';
    let last: CropPage | null = null;
    let pages = 0;
    while (url !== null) {
      const res = await inject('GET', url, lh);
      expect(res.statusCode, res.body).toBe(200);
      last = res.json() as CropPage;
      expect(last.count).toBe(10);
      if (pages === 0) expect(last.previous).toBeNull();
      else expect(last.previous).not.toBeNull();
      seen.push(...last.results.map((c) => c.id));
      url = last.next;
      pages++;
      expect(pages).toBeLessThan(10);
    }
    expect(pages).toBe(4);
    expect(seen).toEqual(made.map((c) => c.id));
    // previous of the last page leads back to the third.
    const back = (await inject('GET', last!.previous!, lh)).json() as CropPage;
    expect(back.results.map((c) => c.id)).toEqual(made.slice(6, 9).map((c) => c.id));
  });

  it('filters by parcel and by is_active, and both together', async () => {
    const byParcel = (await inject('GET', `/api/crops/?parcel=${p2}`, lh)).json() as CropPage;
    expect(byParcel.results.map((c) => c.name)).toEqual(['P2-0', 'P2-1', 'P2-2']);
    expect(byParcel.count).toBe(3);
    const active = (await inject('GET', '/api/crops/?is_active=true', lh)).json() as CropPage;
    expect(active.results.map((c) => c.name)).toEqual(['P1-0', 'P1-3', 'P1-6', 'P2-0']);
    const past = (await inject('GET', '/api/crops/?is_active=false', lh)).json() as CropPage;
    expect(past.count).toBe(6);
    expect(past.results.every((c) => !c.is_active)).toBe(true);
    const both = (await inject('GET', `/api/crops/?parcel=${p1}&is_active=false`, lh)).json() as CropPage;
    expect(both.results.map((c) => c.name)).toEqual(['P1-1', 'P1-2', 'P1-4', 'P1-5']);
    // The filters survive in the next link.
    const paged = (await inject('GET', `/api/crops/?parcel=${p1}&is_active=false&limit=2`, lh)).json() as CropPage;
    const second = (await inject('GET', paged.next!, lh)).json() as CropPage;
    expect(second.results.map((c) => c.name)).toEqual(['P1-4', 'P1-5']);
  });

  it('rejects query parameters of the wrong type or unknown', async () => {
    for (const q of ['parcel=abc', 'is_active=maybe', 'limit=0', 'limit=1001', 'offset=-1', 'colour=red']) {
      const res = await inject('GET', `/api/crops/?${q}`, lh);
      expect(res.statusCode, q).toBe(400);
    }
  });
});

describe('isolation', () => {
  it("another account's crops are invisible (404) and cannot be changed", async () => {
    const owner = await newAccount(svc, org);
    const oh = asAccount(org, owner);
    const p = await newParcel(owner);
    const c = await createCrop({ parcel: p, name: 'Mine' }, oh);
    const intruder = await newAccount(svc, org);
    for (const ih of [asAccount(org, intruder), asBearer(intruder)]) {
      expect((await inject('GET', `/api/crops/${c.id}/`, ih)).statusCode).toBe(404);
      expect((await inject('PATCH', `/api/crops/${c.id}/`, ih, { name: 'Stolen' })).statusCode).toBe(404);
      expect((await inject('DELETE', `/api/crops/${c.id}/`, ih)).statusCode).toBe(404);
      const page = (await inject('GET', '/api/crops/?limit=1000', ih)).json() as CropPage;
      expect(page.results.map((x) => x.id)).not.toContain(c.id);
      expect((await inject('GET', `/api/crops/?parcel=${p}`, ih)).json()).toMatchObject({ count: 0, results: [] });
    }
    const org2 = await newOrg(svc, 'Far away');
    expect((await inject('GET', `/api/crops/${c.id}/`, { 'x-api-key': org2.api_key })).statusCode).toBe(404);
    // The owner (header or bearer) and the organization's key still see it, unchanged.
    expect((await inject('GET', `/api/crops/${c.id}/`, oh)).json()).toEqual(c);
    expect((await inject('GET', `/api/crops/${c.id}/`, asBearer(owner))).statusCode).toBe(200);
    expect((await inject('GET', `/api/crops/${c.id}/`, { 'x-api-key': org.api_key })).statusCode).toBe(200);
  });

  it('a crop cannot be moved onto a parcel of another account', async () => {
    const c = await createCrop({ parcel: parcelId, name: 'Stay home' });
    const other = await newAccount(svc, org);
    const theirs = await newParcel(other);
    await rejected('PATCH', `/api/crops/${c.id}/`, { parcel: theirs });
    expect(((await inject('GET', `/api/crops/${c.id}/`, h)).json() as Crop).parcel).toBe(parcelId);
  });
});
