// The headers every response carries (service/headers.ts): X-Content-Type-Options: nosniff everywhere, and
// Cache-Control: no-store on everything that may hold account data or tokens, errors and 404s included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InjectOptions } from 'fastify';
import { asAccount, asBearer, newAccount, newFarm, newOrg, startService, type Account, type Org, type TestService } from '../test/helpers/service.ts';
import { rawRequest } from '../test/helpers/raw-http.ts';

let svc: TestService;
let port: number;
let org: Org;
let acc: Account;
let farmId: number;

beforeAll(async () => {
  // The gateway on (a short limit) and the fault switch, for the gateway's own 504 below.
  svc = await startService({ faults: true, gatewayTimeoutMs: 400 });
  await svc.app.listen({ host: '127.0.0.1', port: 0 });
  port = (svc.app.server.address() as { port: number }).port;
  org = await newOrg(svc);
  acc = await newAccount(svc, org);
  farmId = (await newFarm(svc, org, acc, 'Headers farm')).id;
});
afterAll(async () => {
  await svc.close();
});

type Headers = Record<string, string | string[] | number | undefined>;
const json = { 'content-type': 'application/json' };

function expectPrivate(headers: Headers, label: string): void {
  expect(headers['x-content-type-options'], label).toBe('nosniff');
  expect(headers['cache-control'], label).toBe('no-store');
}

describe('API responses', () => {
  it('successes, with account data or a token: nosniff and no-store', async () => {
    const h = asAccount(org, acc);
    const cases: Array<[string, () => Promise<{ statusCode: number; headers: Headers }>, number]> = [
      ['GET /api/farms/', () => svc.app.inject({ method: 'GET', url: '/api/farms/', headers: h }), 200],
      ['GET /api/farms/ (bearer)', () => svc.app.inject({ method: 'GET', url: '/api/farms/', headers: asBearer(acc) }), 200],
      ['GET /api/accounts/', () => svc.app.inject({ method: 'GET', url: '/api/accounts/', headers: { 'x-api-key': org.api_key } }), 200],
      ['POST /api/accounts/', () => svc.app.inject({ method: 'POST', url: '/api/accounts/', headers: { 'x-api-key': org.api_key }, payload: { account_email: 'h2@example.com' } }), 201],
      ['POST token', () => svc.app.inject({ method: 'POST', url: `/api/accounts/${acc.id}/token/`, headers: { 'x-api-key': org.api_key } }), 200],
      ['PATCH farm', () => svc.app.inject({ method: 'PATCH', url: `/api/farms/${farmId}/`, headers: h, payload: { name: 'Renamed' } }), 200],
      ['GET billing', () => svc.app.inject({ method: 'GET', url: '/api/billing/', headers: { 'x-api-key': org.api_key } }), 200],
      ['HEAD /api/farms/', () => svc.app.inject({ method: 'HEAD', url: '/api/farms/', headers: h }), 200],
    ];
    for (const [label, send, status] of cases) {
      const res = await send();
      expect(res.statusCode, label).toBe(status);
      expectPrivate(res.headers, label);
    }
    const gone = await svc.app.inject({ method: 'DELETE', url: `/api/farms/${(await newFarm(svc, org, acc, 'Doomed')).id}/`, headers: h });
    expect(gone.statusCode).toBe(204);
    expectPrivate(gone.headers, 'DELETE 204');
  });

  it('errors of every kind: nosniff and no-store', async () => {
    const h = asAccount(org, acc);
    const cases: Array<[string, InjectOptions, number]> = [
      ['no credentials', { method: 'GET', url: '/api/farms/' }, 401],
      ['bad token', { method: 'GET', url: '/api/farms/', headers: { authorization: 'Bearer a.b.c' } }, 401],
      ['unknown account', { method: 'GET', url: '/api/farms/', headers: { 'x-api-key': org.api_key, 'service-account': 'acc-nobody' } }, 403],
      ['bearer on billing', { method: 'GET', url: '/api/billing/', headers: asBearer(acc) }, 403],
      ['missing farm', { method: 'GET', url: '/api/farms/424242/', headers: h }, 404],
      ['bad id', { method: 'GET', url: '/api/farms/abc/', headers: h }, 400],
      ['bad JSON', { method: 'POST', url: '/api/farms/', headers: { ...h, ...json }, payload: '{"farm":' }, 400],
      ['wrong media type', { method: 'POST', url: '/api/farms/', headers: { ...h, 'content-type': 'text/plain' }, payload: 'farm' }, 415],
      ['conflict', { method: 'POST', url: '/api/accounts/', headers: { 'x-api-key': org.api_key }, payload: { account_email: acc.account_email } }, 409],
    ];
    for (const [label, opts, status] of cases) {
      const res = await svc.app.inject(opts);
      expect(res.statusCode, label).toBe(status);
      expectPrivate(res.headers, label);
    }
  });

  it('a body over the limit (413), the 404 of an unknown path, and a malformed request line, over a real socket', async () => {
    const big = await rawRequest(port, 'POST', '/api/farms/', { ...asAccount(org, acc), 'Content-Type': 'application/json' }, `{"farm":{"name":"${'x'.repeat(svc.app.initialConfig.bodyLimit! * 32 + 1)}"}}`);
    expect(big.status).toBe(413);
    expectPrivate(big.headers, '413');
    for (const target of ['/nowhere', '/api/nowhere/', '/%61pi/nowhere/']) {
      const res = await rawRequest(port, 'GET', target);
      expect(res.status, target).toBe(404);
      expectPrivate(res.headers, target);
    }
    const garbled = await rawRequest(port, 'GET', '/api/farms/ with spaces');
    expect(garbled.status).toBe(400);
    expectPrivate(garbled.headers, 'client error');
    expect(JSON.parse(garbled.body)).toMatchObject({ code: 'validation_failed' });
  });

  it("what the router refuses before any route runs (a path that does not percent-decode, an over-long path segment): the service's error format, nosniff, no-store", async () => {
    const cases: Array<[string, number, string]> = [
      ['/%ZZ', 400, 'validation_failed'],
      ['/api/farms/%C0%AE/', 400, 'validation_failed'],
      [`/api/accounts/${'a'.repeat(300)}/`, 414, 'validation_failed'],
    ];
    for (const [target, status, code] of cases) {
      const res = await rawRequest(port, 'GET', target, asAccount(org, acc));
      expect(res.status, target).toBe(status);
      expectPrivate(res.headers, target);
      expect(res.headers['content-type'], target).toMatch(/^application\/json/);
      const body = JSON.parse(res.body) as { code: string; message: string; detail: string };
      expect(body, target).toMatchObject({ code });
      expect(body.detail, target).toBe(body.message);
      expect(res.body, target).not.toContain('FST_ERR');
    }
  });

  it("the gateway's own 504 (written raw) and an auth error on a service with the gateway on", async () => {
    const fault = await svc.app.inject({ method: 'POST', url: '/__faults__', payload: { match: 'GET /api/farms/', mode: 'delay', ms: 1500 } });
    expect(fault.statusCode).toBe(200);
    const slow = await rawRequest(port, 'GET', '/api/farms/', asAccount(org, acc));
    expect(slow.status).toBe(504);
    expectPrivate(slow.headers, '504');
    // Refused before the gateway's hooks ran: still the auth error, not a 504.
    const refused = await rawRequest(port, 'GET', '/api/farms/', { 'x-api-key': org.api_key, 'Service-Account': 'acc-nobody' });
    expect(refused.status).toBe(403);
    expectPrivate(refused.headers, '403 behind the gateway');
  });
});

describe('responses outside the API', () => {
  it('the OpenAPI document may be cached; the health check may not', async () => {
    const doc = await svc.app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(doc.headers['x-content-type-options']).toBe('nosniff');
    expect(doc.headers['cache-control']).toBe('public, max-age=300');
    expectPrivate((await svc.app.inject({ method: 'GET', url: '/healthz' })).headers, 'healthz');
  });

  it('the embedded map: page and data no-store, its code revalidated, all nosniff', async () => {
    const authId = new URL(acc.embedded_url).searchParams.get('auth_id')!;
    expectPrivate((await svc.app.inject({ method: 'GET', url: `/embed/?auth_id=${authId}` })).headers, 'embed page');
    expectPrivate((await svc.app.inject({ method: 'GET', url: `/embed/data/parcels?auth_id=${authId}` })).headers, 'embed data');
    expectPrivate((await svc.app.inject({ method: 'GET', url: '/embed/?auth_id=unknown-auth-id-0000' })).headers, 'embed 404');
    const css = await svc.app.inject({ method: 'GET', url: '/embed/app.css' });
    expect(css.headers['x-content-type-options']).toBe('nosniff');
    expect(css.headers['cache-control']).toBe('no-cache');
  });

  it('the admin panel: pages no-store, its stylesheet cacheable, all nosniff', async () => {
    const login = await svc.app.inject({ method: 'GET', url: '/admin/login' });
    expect(login.statusCode).toBe(200);
    expectPrivate(login.headers, 'admin login');
    expectPrivate((await svc.app.inject({ method: 'GET', url: '/admin/members' })).headers, 'admin redirect');
    expectPrivate((await svc.app.inject({ method: 'GET', url: '/admin/nowhere' })).headers, 'admin 404');
    const css = await svc.app.inject({ method: 'GET', url: '/admin/admin.css' });
    expect(css.headers['x-content-type-options']).toBe('nosniff');
    expect(css.headers['cache-control']).toBe('public, max-age=300');
  });
});
