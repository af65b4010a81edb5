// Query strings within documented maxima (docs/api.md, "Limits"): integers written only as decimal digits, offsets,
// cursors, page sizes, metadata filters and bbox bounded, each refused with 400 validation_failed and a stable
// errors[].code before any SQL runs. Over real HTTP (where the review saw the 500s) and through inject().
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asAccount, newAccount, newFarm, newOrg, polygonParcel, startHttpService, type Account, type Org, type TestService,
} from '../test/helpers/service.ts';
import {
  MAX_METADATA_FILTERS, MAX_METADATA_FILTER_KEY_LENGTH, MAX_METADATA_FILTER_VALUES, MAX_METADATA_FILTER_VALUE_LENGTH, MAX_OFFSET,
} from '../core/schemas/common.ts';

interface ErrorJson { code: string; message: string; detail: string; errors?: { path: string; code: string; message: string }[] }

let svc: TestService & { base: string };
let org: Org;
let acc: Account;
let h: Record<string, string>;
let farmId: number;
let embedData: string;

beforeAll(async () => {
  svc = await startHttpService();
  org = await newOrg(svc, 'Bounds Org');
  acc = await newAccount(svc, org);
  h = asAccount(org, acc);
  farmId = (await newFarm(svc, org, acc, 'Bounded', [polygonParcel('One', -4.78, 37.88, 100, { crop_type: 'olive' })])).id;
  const crop = await svc.app.inject({ method: 'POST', url: '/api/crops/', headers: h, payload: { name: 'Wheat' } });
  expect(crop.statusCode).toBe(201);
  await svc.store.plants.import(org.organization_id, acc.id, { type: 'FeatureCollection', features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [-4.78, 37.88] }, properties: {} }] });
  embedData = `/embed/data/parcels?auth_id=${new URL(acc.embedded_url).searchParams.get('auth_id')}&`;
});
afterAll(async () => {
  await svc.close();
});

/** The same request over the wire and through inject(): both must give the same status and body. */
async function both(path: string): Promise<{ status: number; body: unknown }> {
  const wire = await fetch(`${svc.base}${path}`, { headers: h });
  const text = await wire.text();
  const injected = await svc.app.inject({ method: 'GET', url: path, headers: h });
  expect(injected.statusCode, path.slice(0, 120)).toBe(wire.status);
  expect(injected.body, path.slice(0, 120)).toBe(text);
  return { status: wire.status, body: JSON.parse(text) as unknown };
}

async function refused(path: string, detailCode: string): Promise<ErrorJson> {
  const { status, body } = await both(path);
  const b = body as ErrorJson;
  const label = `${path.slice(0, 120)} → ${status} ${JSON.stringify(b).slice(0, 300)}`;
  expect(status, label).toBe(400);
  expect(b.code, label).toBe('validation_failed');
  expect(b.detail, label).toBe(b.message);
  expect(b.errors?.[0]?.code, label).toBe(detailCode);
  return b;
}

async function accepted(path: string): Promise<unknown> {
  const { status, body } = await both(path);
  expect(status, `${path.slice(0, 120)} → ${JSON.stringify(body).slice(0, 300)}`).toBe(200);
  return body;
}

const filters = (n: number, value = 'v', key = (i: number) => `k${i.toString(36)}`) =>
  Array.from({ length: n }, (_, i) => `metadata[${key(i)}]=${value}`).join('&');

describe('integers in query strings', () => {
  it("are decimal digits only: '1e20', '1e400', '+1', '0x10', ' 7', '1.0', '1e1' are 400 with errors[].code 'type'", async () => {
    const cases = [
      '/api/crops/?offset=1e20', '/api/crops/?offset=1e400', '/api/crops/?offset=+1', '/api/crops/?offset=0x10', '/api/crops/?limit=1e1',
      '/api/crops/?offset=%207', '/api/crops/?offset=1.0', '/api/crops/?parcel=1e3', '/api/parcels/?after=1e400', '/api/parcels/?limit=0x10',
      '/api/parcels/?farm=1e3', '/api/plants/?after=1e20', '/api/plants/?limit=+5', `/api/farms/${farmId}/parcels/?limit=1e1`,
      // More than 16 digits cannot be a safe integer.
      '/api/parcels/?after=12345678901234567',
    ];
    for (const path of cases) {
      const b = await refused(path, 'type');
      const name = /[?&]([a-z]+)=[^&]*$/.exec(path)![1]!;
      expect(b.errors![0]!.path, path).toBe(`querystring/${name}`);
      expect(b.message, path).toMatch(/integer written in decimal digits/);
    }
  });

  it('above their documented maximum are 400 with errors[].code maximum; at the maximum they work', async () => {
    await refused(`/api/crops/?offset=${MAX_OFFSET + 1}`, 'maximum');
    expect(await accepted(`/api/crops/?offset=${MAX_OFFSET}`)).toMatchObject({ count: 1, next: null, results: [] });
    await refused(`/api/parcels/?after=${Number.MAX_SAFE_INTEGER + 1}`, 'maximum');
    await refused(`/api/plants/?after=${Number.MAX_SAFE_INTEGER + 1}`, 'maximum');
    expect(await accepted(`/api/parcels/?after=${Number.MAX_SAFE_INTEGER}`)).toMatchObject({ features: [], count: 1, next: null });
    await refused('/api/parcels/?limit=10001', 'maximum');
    await refused(`/api/farms/${farmId}/parcels/?limit=10001`, 'maximum');
    await refused('/api/crops/?limit=1001', 'maximum');
  });
});

describe('metadata filters', () => {
  it(`at most ${MAX_METADATA_FILTERS} keys: 950 (the review's SQLite "expression tree too deep" 500) and ${MAX_METADATA_FILTERS + 1} are 400 too_many_filters`, async () => {
    await refused(`/api/parcels/?${filters(950)}`, 'too_many_filters');
    const b = await refused(`/api/parcels/?${filters(MAX_METADATA_FILTERS + 1)}`, 'too_many_filters');
    expect(b.message).toBe(`At most ${MAX_METADATA_FILTERS} metadata keys can be filtered on at once`);
    expect(await accepted(`/api/parcels/?${filters(MAX_METADATA_FILTERS)}`)).toMatchObject({ features: [], count: 0 });
    // The same key many times is many values, not many keys; values have their own bound.
    expect(await accepted(`/api/parcels/?${filters(MAX_METADATA_FILTER_VALUES, 'olive', () => 'crop_type')}`)).toMatchObject({ count: 1 });
    await refused(`/api/parcels/?${filters(MAX_METADATA_FILTER_VALUES + 1, 'olive', () => 'crop_type')}`, 'too_many_filters');
  });

  it('keys and values as long as stored metadata may be, and no longer', async () => {
    const key = 'k'.repeat(MAX_METADATA_FILTER_KEY_LENGTH);
    expect(await accepted(`/api/parcels/?metadata[${key}]=v`)).toMatchObject({ count: 0 });
    await refused(`/api/parcels/?metadata[${key}k]=v`, 'filter_key_too_long');
    // Counted in characters, not bytes or UTF-16 units: 200 emoji are 200 characters.
    expect(await accepted(`/api/parcels/?metadata[${encodeURIComponent('🌾'.repeat(MAX_METADATA_FILTER_KEY_LENGTH))}]=v`)).toMatchObject({ count: 0 });
    expect(await accepted(`/api/parcels/?metadata[crop_type]=${'v'.repeat(MAX_METADATA_FILTER_VALUE_LENGTH)}`)).toMatchObject({ count: 0 });
    await refused(`/api/parcels/?metadata[crop_type]=${'v'.repeat(MAX_METADATA_FILTER_VALUE_LENGTH + 1)}`, 'filter_value_too_long');
  });

  it('the embedded map, reached with nothing but an auth_id, has the same bounds', async () => {
    for (const [path, detail] of [[`${embedData}${filters(950)}`, 'too_many_filters'], [`${embedData}metadata[${'k'.repeat(201)}]=v`, 'filter_key_too_long']] as const) {
      const wire = await fetch(`${svc.base}${path}`);
      const b = await wire.json() as ErrorJson;
      expect(wire.status, JSON.stringify(b)).toBe(400);
      expect(b).toMatchObject({ code: 'validation_failed', errors: [{ code: detail }] });
      expect((await svc.app.inject({ method: 'GET', url: path })).statusCode).toBe(400);
    }
    const ok = await fetch(`${svc.base}${embedData}${filters(MAX_METADATA_FILTERS - 1)}&metadata[crop_type]=olive`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ count: 0, features: [] });
    const one = await fetch(`${svc.base}${embedData}metadata[crop_type]=olive`);
    expect(await one.json()).toMatchObject({ count: 1 });
  });
});

describe('bbox and search', () => {
  it('a bbox outside ±180/±90 or longer than 100 characters is 400; a world bbox works', async () => {
    await refused('/api/parcels/?bbox=-181,0,1,1', 'bbox_invalid');
    await refused('/api/parcels/?bbox=0,-90.5,1,1', 'bbox_invalid');
    await refused('/api/parcels/?bbox=0,0,1,1e5', 'pattern');
    await refused('/api/parcels/?bbox=3,2,1,4', 'bbox_invalid');
    await refused(`/api/parcels/?bbox=0.${'1'.repeat(100)},0,1,1`, 'maxLength');
    expect(await accepted('/api/parcels/?bbox=-180,-90,180,90')).toMatchObject({ count: 1 });
  });

  it('a search longer than 200 characters is 400 maxLength', async () => {
    await refused(`/api/parcels/?search=${'x'.repeat(201)}`, 'maxLength');
    await refused(`/api/plants/?search=${'x'.repeat(201)}`, 'maxLength');
    expect(await accepted(`/api/parcels/?search=${'x'.repeat(200)}`)).toMatchObject({ count: 0 });
  });
});
