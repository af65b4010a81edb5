// Hostile and broken requests: never a 500, always an error body with code/message/detail, and nothing written.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { DEFAULT_BODY_LIMIT_BYTES, DEFAULT_PARCEL_BODY_LIMIT_BYTES } from './config.ts';
import {
  accountScope, asAccount, newAccount, newFarm, newOrg, polygonParcel, startService, storeCounts,
  type Account, type Org, type TestService,
} from '../test/helpers/service.ts';

interface ErrorJson { code: string; message: string; detail: string; errors?: { index?: number; path: string; code: string; message: string }[] }
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

let svc: TestService;
let org: Org;
let acc: Account;
let h: Record<string, string>;
let farmId: number;
let parcelId: number;
let cropId: number;
let plantId: number;

beforeAll(async () => {
  svc = await startService();
  org = await newOrg(svc, 'Bad Input Org');
  acc = await newAccount(svc, org);
  h = asAccount(org, acc);
  const farm = await newFarm(svc, org, acc, 'Target farm', [polygonParcel('Target parcel')]);
  farmId = farm.id;
  parcelId = farm.parcels[0]!.id;
  const crop = await svc.app.inject({ method: 'POST', url: '/api/crops/', headers: h, payload: { parcel: parcelId, name: 'Target crop' } });
  cropId = (crop.json() as { id: number }).id;
  await svc.store.plants.import(org.organization_id, acc.id, { type: 'FeatureCollection', features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [-4.78, 37.88] }, properties: {} }] });
  plantId = (await svc.store.plants.list(accountScope(org, acc), { limit: 10 })).rows.at(-1)!.id;
});
afterAll(async () => {
  await svc.close();
});

/** A fingerprint of every row of every data table: any write at all changes it. */
async function snapshot(): Promise<string> {
  return createHash('sha256').update(JSON.stringify(await svc.probe.snapshot())).digest('hex');
}

/** Sends a request that must be refused with `status` (and `code` when given), writing nothing. */
async function refused(opts: InjectOptions, status: number, code?: string): Promise<ErrorJson> {
  const before = await snapshot();
  const counts = await storeCounts(svc);
  const res: LightMyRequestResponse = await svc.app.inject(opts);
  const label = `${opts.method} ${opts.url} → ${res.statusCode} ${res.body.slice(0, 300)}`;
  expect(res.statusCode, label).toBeLessThan(500);
  expect(res.statusCode, label).toBe(status);
  expect(res.headers['content-type'], label).toMatch(/^application\/json/);
  const b = res.json() as ErrorJson;
  expect(typeof b.code, label).toBe('string');
  expect(typeof b.message, label).toBe('string');
  expect(typeof b.detail, label).toBe('string');
  expect(b.message.length, label).toBeGreaterThan(0);
  if (code !== undefined) expect(b.code, label).toBe(code);
  if (b.errors !== undefined) {
    for (const e of b.errors) {
      expect(typeof e.code, label).toBe('string');
      expect(typeof e.path, label).toBe('string');
      expect(typeof e.message, label).toBe('string');
    }
  }
  expect(await storeCounts(svc), label).toEqual(counts);
  expect(await snapshot(), label).toBe(before);
  return b;
}

const json = { 'content-type': 'application/json' };

/** Every route that takes a JSON body, with a body it would accept. */
function bodyRoutes(): Array<{ method: Method; url: string; headers: Record<string, string>; valid: Record<string, unknown> }> {
  return [
    { method: 'POST', url: '/api/parcels/', headers: h, valid: { farm: { id: farmId }, parcels: [polygonParcel('New')] } },
    { method: 'PATCH', url: `/api/parcels/${parcelId}/`, headers: h, valid: { name: 'Renamed' } },
    { method: 'POST', url: '/api/farms/', headers: h, valid: { farm: { name: 'Another farm' } } },
    { method: 'PATCH', url: `/api/farms/${farmId}/`, headers: h, valid: { name: 'Renamed farm' } },
    { method: 'POST', url: '/api/crops/', headers: h, valid: { parcel: parcelId, name: 'Another crop' } },
    { method: 'PATCH', url: `/api/crops/${cropId}/`, headers: h, valid: { name: 'Renamed crop' } },
    { method: 'POST', url: '/api/crop-families/', headers: h, valid: { name: 'Brand new family' } },
    { method: 'POST', url: '/api/accounts/', headers: { 'x-api-key': org.api_key }, valid: { account_email: 'new-grower@example.com' } },
  ];
}

describe('malformed JSON → 400 malformed_json', () => {
  const bodies: Array<[string, string]> = [
    ['truncated', '{"farm": {"id": 1}, "parcels": ['],
    ['trailing comma', '{"name": "x",}'],
    ['NaN', '{"area": NaN}'],
    ['Infinity literal', '{"area": Infinity}'],
    ['single quotes', "{'name': 'x'}"],
    ['unquoted key', '{name: "x"}'],
    ['comment', '{"name": "x" /* hi */}'],
    ['two documents', '{"name": "x"}{"name": "y"}'],
    ['empty', ''],
    ['whitespace only', '   \n'],
    ['invalid escape', '{"name": "\\x41"}'],
  ];
  for (const [label, payload] of bodies) {
    it(`${label}`, async () => {
      for (const r of bodyRoutes()) {
        await refused({ method: r.method, url: r.url, headers: { ...r.headers, ...json }, payload }, 400, 'malformed_json');
      }
    });
  }
  it('is answered before a query parameter the route does not take', async () => {
    // POST /api/parcels/ reads its body after the query string is checked (raw-body.ts): answered as when parsed first.
    for (const r of bodyRoutes()) {
      await refused({ method: r.method, url: `${r.url}?unknown=1`, headers: { ...r.headers, ...json }, payload: '{"farm": {"id": 1}, "parcels": [' }, 400, 'malformed_json');
    }
  });
});

describe('__proto__ and constructor keys', () => {
  it('are refused as unknown fields at the top level, and pollute nothing', async () => {
    for (const r of bodyRoutes()) {
      const payload = JSON.stringify(r.valid).replace(/^\{/, '{"__proto__": {"polluted": true, "id": 1, "name": "x"}, ');
      const b = await refused({ method: r.method, url: r.url, headers: { ...r.headers, ...json }, payload }, 400);
      expect(JSON.stringify(b)).toContain('__proto__');
      const ctor = JSON.stringify(r.valid).replace(/^\{/, '{"constructor": {"prototype": {"polluted": true}}, ');
      await refused({ method: r.method, url: r.url, headers: { ...r.headers, ...json }, payload: ctor }, 400);
    }
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('inside a nested object are refused or kept as plain data', async () => {
    await refused({ method: 'POST', url: '/api/crops/', headers: { ...h, ...json }, payload: `{"parcel": ${parcelId}, "family": {"__proto__": {"id": 1}}}` }, 400);
    await refused({ method: 'PATCH', url: `/api/parcels/${parcelId}/`, headers: { ...h, ...json }, payload: '{"metadata": {"__proto__": {"polluted": 1}}}' }, 400);
    // A metadata key spelled __proto__ with a plain value is only a key.
    const res = await svc.app.inject({ method: 'POST', url: '/api/parcels/', headers: { ...h, ...json }, payload:
      JSON.stringify({ farm: { id: farmId }, parcels: [polygonParcel('Proto key')] }).replace('"metadata":{}', '"metadata":{"__proto__":"plain","a":"b"}') });
    expect(res.statusCode, res.body).toBe(201);
    const [f] = res.json() as { properties: { metadata: Record<string, unknown> } }[];
    expect(Object.keys(f!.properties.metadata)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('wrong top-level types → 400', () => {
  for (const [label, payload] of [['an array', '[]'], ['an array of the valid body', 'VALID'], ['a string', '"parcels"'], ['a number', '12'], ['null', 'null'], ['true', 'true']] as const) {
    it(`a body that is ${label}`, async () => {
      for (const r of bodyRoutes()) {
        const body = payload === 'VALID' ? JSON.stringify([r.valid]) : payload;
        await refused({ method: r.method, url: r.url, headers: { ...r.headers, ...json }, payload: body }, 400);
      }
    });
  }
});

describe('body size', () => {
  it(`a body over the default limits (${DEFAULT_PARCEL_BODY_LIMIT_BYTES / 2 ** 20} MiB on the parcel routes, ${DEFAULT_BODY_LIMIT_BYTES / 2 ** 20} MiB elsewhere) → 413 payload_too_large`, async () => {
    const huge = JSON.stringify({ farm: { id: farmId }, parcels: [{ ...polygonParcel('Huge'), name: 'x'.repeat(DEFAULT_PARCEL_BODY_LIMIT_BYTES + 1024) }] });
    for (const r of bodyRoutes().slice(0, 3)) {
      await refused({ method: r.method, url: r.url, headers: { ...r.headers, ...json }, payload: huge }, 413, 'payload_too_large');
    }
    // A body the parcel routes take is too large for any other route: those are parsed on the request thread.
    const large = JSON.stringify({ name: 'x'.repeat(DEFAULT_BODY_LIMIT_BYTES + 1024) });
    for (const r of bodyRoutes().slice(3)) {
      await refused({ method: r.method, url: r.url, headers: { ...r.headers, ...json }, payload: large }, 413, 'payload_too_large');
    }
    const fits = await svc.app.inject({ method: 'POST', url: '/api/parcels/', headers: { ...h, ...json }, payload: JSON.stringify({ farm: { id: farmId }, parcels: [{ ...polygonParcel('Long name'), metadata: { note: 'x'.repeat(DEFAULT_BODY_LIMIT_BYTES) } }] }) });
    expect(fits.statusCode, fits.body).not.toBe(413);
  });

  it('a body over the limit sent to a path with no route, or to the admin sign-in, is refused before it is parsed', async () => {
    const large = JSON.stringify({ name: 'x'.repeat(DEFAULT_BODY_LIMIT_BYTES + 1024) });
    for (const url of ['/nowhere', '/api/nowhere/']) {
      const res = await svc.app.inject({ method: 'POST', url, headers: json, payload: large });
      expect(res.statusCode, url).toBe(413);
    }
  });

  it('a smaller BODY_LIMIT_BYTES is honoured', async () => {
    const small = await startService({ bodyLimitBytes: 2048 });
    try {
      const o = await newOrg(small);
      const res = await small.app.inject({ method: 'POST', url: '/api/accounts/', headers: { 'x-api-key': o.api_key, ...json }, payload: JSON.stringify({ account_email: `${'a'.repeat(3000)}@example.com` }) });
      expect(res.statusCode).toBe(413);
      expect((res.json() as ErrorJson).code).toBe('payload_too_large');
      const ok = await small.app.inject({ method: 'POST', url: '/api/accounts/', headers: { 'x-api-key': o.api_key, ...json }, payload: JSON.stringify({ account_email: 'fits@example.com' }) });
      expect(ok.statusCode).toBe(201);
    } finally {
      await small.close();
    }
  });

  it('a Content-Length that does not match the body → 400', async () => {
    await refused({ method: 'POST', url: '/api/crops/', headers: { ...h, ...json, 'content-length': '5' }, payload: `{"parcel": ${parcelId}}` }, 400);
  });
});

describe('unknown fields → 400 with an unknown_field error', () => {
  const cases = (): Array<[Method, string, Record<string, string>, unknown]> => [
    ['POST', '/api/parcels/', h, { farm: { id: farmId }, parcels: [polygonParcel('x')], extra: 1 }],
    ['POST', '/api/parcels/', h, { farm: { id: farmId, name: 'x' }, parcels: [polygonParcel('x')] }],
    ['POST', '/api/parcels/', h, { farm: { id: farmId }, parcels: [{ ...polygonParcel('x'), hectares: 1 }] }],
    ['POST', '/api/parcels/', h, { farm: { id: farmId }, parcels: [{ ...polygonParcel('x'), geom: { ...polygonParcel('x').geom, style: 'red' } }] }],
    ['PATCH', `/api/parcels/${parcelId}/`, h, { name: 'x', extra: 1 }],
    ['POST', '/api/farms/', h, { farm: { name: 'x' }, extra: 1 }],
    ['POST', '/api/farms/', h, { farm: { name: 'x', size: 3 } }],
    ['POST', '/api/farms/', h, { farm: { name: 'x' }, parcels: [{ ...polygonParcel('x'), colour: 'red' }] }],
    ['PATCH', `/api/farms/${farmId}/`, h, { name: 'x', extra: 1 }],
    ['POST', '/api/crops/', h, { parcel: parcelId, irrigation_type: 'drip' }],
    ['PATCH', `/api/crops/${cropId}/`, h, { soil_type: 'clay' }],
    ['POST', '/api/crop-families/', h, { name: 'x', colour: 'green' }],
    ['POST', '/api/accounts/', { 'x-api-key': org.api_key }, { account_email: 'x@example.com', role: 'admin' }],
  ];
  it('on every body route', async () => {
    for (const [method, url, headers, payload] of cases()) {
      const b = await refused({ method, url, headers, payload: payload as object }, 400);
      expect(b.errors?.map((e) => e.code), `${method} ${url} ${JSON.stringify(b)}`).toContain('unknown_field');
    }
  });
});

describe('content types', () => {
  const types = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'text/html', 'application/octet-stream'];
  it('a body that is not application/json → 415 unsupported_media_type', async () => {
    for (const r of bodyRoutes()) {
      for (const t of types) {
        await refused({ method: r.method, url: r.url, headers: { ...r.headers, 'content-type': t }, payload: JSON.stringify(r.valid) }, 415, 'unsupported_media_type');
      }
    }
  });

  it('a body without content-type → 415', async () => {
    for (const r of bodyRoutes()) {
      await refused({ method: r.method, url: r.url, headers: r.headers, payload: JSON.stringify(r.valid) }, 415, 'unsupported_media_type');
    }
  });

  it('application/json with a charset parameter is accepted', async () => {
    const res = await svc.app.inject({ method: 'POST', url: '/api/crops/', headers: { ...h, 'content-type': 'application/json; charset=utf-8' }, payload: JSON.stringify({ parcel: parcelId }) });
    expect(res.statusCode).toBe(201);
  });
});

describe('numbers JSON cannot hold', () => {
  it('a number that overflows to Infinity (1e400) is refused, not a 500 after the commit', async () => {
    const cases: Array<[Method, string, string]> = [
      ['POST', '/api/crops/', `{"parcel": ${parcelId}, "area": 1e400}`],
      ['POST', '/api/crops/', `{"parcel": ${parcelId}, "harvested_qty": 1e400}`],
      ['PATCH', `/api/crops/${cropId}/`, '{"area": 1e400}'],
      ['PATCH', `/api/crops/${cropId}/`, '{"harvested_qty": 1e999}'],
      ['POST', '/api/parcels/', `{"farm": {"id": 1e400}, "parcels": [${JSON.stringify(polygonParcel('x'))}]}`],
      ['POST', '/api/parcels/', `{"farm": {"id": ${farmId}}, "parcels": [${JSON.stringify(polygonParcel('x', -4.78, 37.88, 100, { big: 1 })).replace('"big":1', '"big":1e400')}]}`],
      ['POST', '/api/parcels/', `{"farm": {"id": ${farmId}}, "parcels": [{"name": "p", "geom": {"type": "Feature", "properties": {"metadata": {"hectares": 1e400}}, "geometry": {"type": "Point", "coordinates": [1, 2]}}}]}`],
      ['POST', '/api/parcels/', `{"farm": {"id": ${farmId}}, "parcels": [{"name": "p", "geom": {"type": "Feature", "properties": {"metadata": {"hectares": 1}}, "geometry": {"type": "Point", "coordinates": [1e400, 2]}}}]}`],
      ['PATCH', `/api/parcels/${parcelId}/`, '{"id": 1e400, "name": "x"}'],
    ];
    for (const [method, url, payload] of cases) {
      const b = await refused({ method, url, headers: { ...h, ...json }, payload }, 400);
      expect(b.code).not.toBe('internal_error');
    }
  });

  it('deep nesting is refused without a stack overflow', async () => {
    const deepArray = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const deepObject = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
    const cases: Array<[Method, string, string]> = [
      ['POST', '/api/parcels/', `{"farm": {"id": ${farmId}}, "parcels": [{"name": ${deepArray}, "geom": ${deepArray}, "metadata": {"a": ${deepArray}}}]}`],
      ['POST', '/api/parcels/', `{"farm": {"id": ${farmId}}, "parcels": [{"name": "x", "geom": {"type": "Feature", "geometry": {"type": "Polygon", "coordinates": ${deepArray}}}}]}`],
      ['PATCH', `/api/parcels/${parcelId}/`, `{"metadata": ${deepObject}}`],
      ['POST', '/api/crops/', `{"parcel": ${parcelId}, "family": ${deepObject}}`],
      ['POST', '/api/crops/', `{"parcel": ${parcelId}, "name": ${deepArray}}`],
      ['POST', '/api/farms/', `{"farm": {"name": ${deepArray}}}`],
    ];
    for (const [method, url, payload] of cases) await refused({ method, url, headers: { ...h, ...json }, payload }, 400);
  });
});

describe('path ids → 400 invalid_id', () => {
  const badIds = ['abc', '1.5', '-1', '0', '99999999999999999999', '1a', 'null', '%00', '1%2F2', '1e3', '%2B1', '0x10', '%201', '01'];
  const routes = (): Array<[Method, string, unknown?]> => [
    ['GET', '/api/parcels/:id/'], ['PATCH', '/api/parcels/:id/', { name: 'x' }], ['DELETE', '/api/parcels/:id/'],
    ['GET', '/api/parcels/:id/crops/'], ['GET', '/api/parcels/:id/plants/'],
    ['GET', '/api/farms/:id/'], ['PATCH', '/api/farms/:id/', { name: 'x' }], ['DELETE', '/api/farms/:id/'], ['GET', '/api/farms/:id/parcels/'],
    ['GET', '/api/crops/:id/'], ['PATCH', '/api/crops/:id/', { name: 'x' }], ['DELETE', '/api/crops/:id/'],
    ['GET', '/api/plants/:id/'],
  ];
  // 182 requests one after the other, each authenticated against the store: on PostgreSQL under the whole suite's
  // load this took over 30 s once (a few ms each on a quiet machine).
  it('on parcels, farms, crops and plants routes', async () => {
    for (const [method, template, payload] of routes()) {
      for (const id of badIds) {
        const b = await refused({ method, url: template.replace(':id', id), headers: h, ...(payload ? { payload: payload as object } : {}) }, 400, 'invalid_id');
        expect(b.errors?.[0]?.path).toBe('params/id');
      }
    }
  }, 120_000);

  it('the same routes with a valid id of a missing row → 404 not_found, not 400', async () => {
    for (const [method, template, payload] of routes()) {
      await refused({ method, url: template.replace(':id', '424242'), headers: h, ...(payload ? { payload: payload as object } : {}) }, 404, 'not_found');
    }
  });

  it('the target rows still exist after all that', async () => {
    for (const url of [`/api/parcels/${parcelId}/`, `/api/farms/${farmId}/`, `/api/crops/${cropId}/`, `/api/plants/${plantId}/`]) {
      expect((await svc.app.inject({ method: 'GET', url, headers: h })).statusCode, url).toBe(200);
    }
  });
});

describe('query parameters of the wrong type → 400', () => {
  it('on every listing', async () => {
    const urls = [
      '/api/parcels/?farm=abc', '/api/parcels/?farm=1.5', '/api/parcels/?farm=-2', '/api/parcels/?limit=abc', '/api/parcels/?limit=0',
      '/api/parcels/?limit=1&limit=2', '/api/parcels/?search=a&search=b', '/api/parcels/?after=x', '/api/parcels/?bbox=a,b,c,d',
      '/api/parcels/?bbox=1,2,3', '/api/parcels/?bbox=3,2,1,4', '/api/parcels/?search=' + 'x'.repeat(201),
      '/api/crops/?parcel=abc', '/api/crops/?is_active=maybe', '/api/crops/?limit=-1', '/api/crops/?offset=x', '/api/crops/?unknown=1',
      '/api/plants/?parcel=abc', '/api/plants/?limit=1.5', '/api/plants/?after=no', '/api/plants/?unknown=1',
    ];
    for (const url of urls) {
      const b = await refused({ method: 'GET', url, headers: h }, 400);
      expect(b.code, url).toBe('validation_failed');
    }
  });
});
