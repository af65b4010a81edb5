// Query parameters an operation does not declare are refused (400 validation_failed, errors[].code unknown_field
// naming the parameter), as unknown body fields are: an ignored parameter, a misspelt filter above all, would be
// answered as if the client had asked for everything. Every route the app registers is tried, so a route added
// later with a query schema that lets unknown parameters through fails here.
import Fastify from 'fastify';
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asAccount, newAccount, newFarm, newOrg, polygonParcel, startService, storeCounts, type Account, type Org, type TestService,
} from '../test/helpers/service.ts';
import { registeredRoutes } from '../test/helpers/routes.ts';
import { strictQueries, validatorCompiler } from './validation.ts';

interface ErrorJson { code: string; message: string; errors?: { path: string; code: string; message: string }[] }

let svc: TestService;
let org: Org;
let acc: Account;
let authId: string;

beforeAll(async () => {
  svc = await startService();
  org = await newOrg(svc);
  acc = await newAccount(svc, org);
  authId = new URL(acc.embedded_url).searchParams.get('auth_id')!;
  await newFarm(svc, org, acc, 'Strict', [
    polygonParcel('S-12 field', -4.78, 37.88, 100, { 'Supplier ID': 'S-12' }),
    polygonParcel('S-13 field', -4.77, 37.88, 100, { 'Supplier ID': 'S-13', 'two\nlines': 'y' }),
  ]);
});
afterAll(async () => {
  await svc.close();
});

/** A body each write route accepts, so that what it answers is about the query (fastify checks the body first). */
const VALID_BODY: Record<string, unknown> = {
  'POST /api/accounts': { account_email: 'never-created@example.com' },
  'POST /api/farms': { farm: { name: 'Never created' } },
  'PATCH /api/farms/:id': { name: 'Never renamed' },
  'POST /api/parcels': { farm: { id: 1 }, parcels: [polygonParcel('Never created')] },
  'PATCH /api/parcels/:id': { name: 'Never renamed' },
  'POST /api/crops': {},
  'PATCH /api/crops/:id': {},
  'POST /api/crop-families': { name: 'Neveraceae' },
};

/** The routes whose query is checked: the API's operations and the embedded map's page and data. */
const checked = (route: string) => / \/api\//.test(route) && route !== 'GET /api/openapi.json' && route !== 'HEAD /api/openapi.json'
  || / \/embed(\/data\/\w+)?$/.test(route);

async function unknownParameter(method: string, path: string, query: string, expectName: string): Promise<string | null> {
  const embed = path.startsWith('/embed');
  const body = VALID_BODY[`${method} ${path}`];
  const res = await svc.app.inject({
    method: method as 'GET',
    url: `${path.replace(/:id/g, '1')}/?${embed ? `auth_id=${authId}&` : ''}${query}`,
    headers: { 'x-api-key': org.api_key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  if (res.statusCode !== 400) return `${method} ${path}?${query} → ${res.statusCode} ${res.body.slice(0, 200)}`;
  if (method === 'HEAD') return null;
  if (path === '/embed') return res.body.includes('Map link not understood') ? null : `${method} ${path}: ${res.body.slice(0, 200)}`;
  const b = res.json() as ErrorJson;
  const named = b.errors?.find((e) => e.path === `querystring/${expectName}`);
  if (b.code !== 'validation_failed' || named?.code !== 'unknown_field') return `${method} ${path}?${query} → ${res.body.slice(0, 300)}`;
  return null;
}

describe('an unknown query parameter', () => {
  it('is refused on every API operation and by the embedded map, and nothing is written', async () => {
    const routes = registeredRoutes(svc.app).filter(checked);
    expect(routes.length).toBeGreaterThan(40);
    for (const must of ['GET /api/parcels', 'GET /api/farms', 'GET /api/crop-families', 'GET /api/accounts', 'POST /api/parcels', 'GET /embed/data/parcels', 'GET /embed']) {
      expect(routes).toContain(must);
    }
    const before = await storeCounts(svc);
    const wrong: string[] = [];
    for (const route of routes) {
      const [method, path] = route.split(' ') as [string, string];
      for (const [query, name] of [['furrow_unknown=1', 'furrow_unknown'], ['offset=1e20', 'offset'], ['x', 'x']] as const) {
        // offset is a real parameter of GET /api/crops/ (where 1e20 is refused as not an integer).
        if (name === 'offset' && path === '/api/crops') continue;
        const problem = await unknownParameter(method, path, query, name);
        if (problem) wrong.push(problem);
      }
    }
    expect(wrong).toEqual([]);
    expect(await storeCounts(svc)).toEqual(before);
  });

  it('is named in the answer, with each one when there are several', async () => {
    const res = await svc.app.inject({ method: 'GET', url: '/api/parcels/?foo=1&limit=5&bar=2', headers: asAccount(org, acc) });
    expect(res.statusCode).toBe(400);
    const b = res.json() as ErrorJson;
    expect(b.code).toBe('validation_failed');
    expect(b.errors).toEqual([
      { path: 'querystring/foo', code: 'unknown_field', message: "unknown query parameter 'foo'" },
      { path: 'querystring/bar', code: 'unknown_field', message: "unknown query parameter 'bar'" },
    ]);
    // A name as long as a URL allows is named cut short.
    const long = await svc.app.inject({ method: 'GET', url: `/api/farms/?${'y'.repeat(5000)}=1`, headers: asAccount(org, acc) });
    expect((long.json() as ErrorJson).errors![0]!.path).toBe(`querystring/${'y'.repeat(60)}…`);
  });

  it('is refused by the embedded map only once its auth_id is known: an unknown link is 404 first', async () => {
    for (const path of ['/embed/', '/embed/data/parcels', '/embed/data/plants']) {
      expect((await svc.app.inject({ method: 'GET', url: `${path}?auth_id=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA&foo=1` })).statusCode, path).toBe(404);
      expect((await svc.app.inject({ method: 'GET', url: `${path}?foo=1` })).statusCode, path).toBe(400);
    }
    const page = await svc.app.inject({ method: 'GET', url: `/embed/?auth_id=${authId}&metdata[Supplier+ID]=S-12` });
    expect(page.statusCode).toBe(400);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('Map link not understood');
    expect(page.body).not.toContain('metdata');
  });
});

describe('metadata filters', () => {
  const names = async (url: string) => {
    const res = await svc.app.inject({ method: 'GET', url, headers: asAccount(org, acc) });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const b = res.json() as { features: { properties: { name: string } }[] };
    return b.features.map((f) => f.properties.name).sort();
  };
  const embedNames = async (query: string) => names(`/embed/data/parcels?auth_id=${authId}&${query}`);

  it('metadata[<key>] is still a filter, on the API and the embedded map alike, newlines in the key included', async () => {
    expect(await names('/api/parcels/?metadata[Supplier+ID]=S-12')).toEqual(['S-12 field']);
    expect(await names('/api/parcels/?metadata[Supplier+ID]=S-12&metadata[Supplier+ID]=S-13')).toEqual(['S-12 field', 'S-13 field']);
    expect(await names('/api/parcels/?metadata%5Btwo%0Alines%5D=y')).toEqual(['S-13 field']);
    expect(await embedNames('metadata[Supplier+ID]=S-13')).toEqual(['S-13 field']);
  });

  it("metadata[] (no key), a bare metadata or a misspelt one is 400, never a filter that matches everything", async () => {
    for (const [query, name] of [['metadata[]=S-12', 'metadata[]'], ['metadata=S-12', 'metadata'], ['metdata[Supplier+ID]=S-12', 'metdata[Supplier ID]'],
      ['metadata[Supplier+ID]=S-12&metadata[]=x', 'metadata[]'], ['metadata[a][]=1&metadata[]=2', 'metadata[]']] as const) {
      for (const url of [`/api/parcels/?${query}`, `/embed/data/parcels?auth_id=${authId}&${query}`]) {
        const res = await svc.app.inject({ method: 'GET', url, headers: asAccount(org, acc) });
        expect(res.statusCode, `${url} → ${res.body.slice(0, 200)}`).toBe(400);
        const b = res.json() as ErrorJson;
        expect(b.code, url).toBe('validation_failed');
        expect(b.errors, url).toContainEqual({ path: `querystring/${name}`, code: 'unknown_field', message: `unknown query parameter '${name}'` });
      }
    }
  });
});

describe('strictQueries', () => {
  it('stops at start-up a route whose query schema would let unknown parameters through', async () => {
    const app = Fastify();
    // The service's compiler: fastify's own Ajv would strip an unknown parameter (removeAdditional) instead.
    app.setValidatorCompiler(validatorCompiler);
    strictQueries(app);
    expect(() => app.get('/lax', { schema: { querystring: Type.Object({ a: Type.Optional(Type.String()) }) } }, async () => ({})))
      .toThrow(/GET \/lax: its query schema must refuse unknown parameters/);
    app.get('/strict', { schema: { querystring: Type.Object({ a: Type.Optional(Type.String()) }, { additionalProperties: false }) } }, async () => ({}));
    app.get('/none', async () => ({}));
    expect((await app.inject({ method: 'GET', url: '/strict?a=1' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/none?a=1' })).statusCode).toBe(400);
    await app.close();
  });
});
