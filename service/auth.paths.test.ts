// Authentication is decided by the route the router matched, never by the text of the URL. The request lines
// go out over a bare socket (test/helpers/raw-http.ts) because inject() and fetch() would normalize them first.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asAccount, newAccount, newFarm, newOrg, startService, storeCounts, type Account, type Org, type TestService } from '../test/helpers/service.ts';
import { rawRequest, type RawResponse } from '../test/helpers/raw-http.ts';
import { registeredRoutes } from '../test/helpers/routes.ts';

let svc: TestService;
let port: number;
let org: Org;
let acc: Account;
const lines: string[] = [];

beforeAll(async () => {
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  svc = await startService({ logLevel: 'info' }, { logger: true, logStream: stream });
  await svc.app.listen({ host: '127.0.0.1', port: 0 });
  port = (svc.app.server.address() as { port: number }).port;
  org = await newOrg(svc);
  acc = await newAccount(svc, org);
  await newFarm(svc, org, acc, 'Secret farm');
});
afterAll(async () => {
  await svc.close();
});

/** Request targets that all name GET /api/farms/ (or nothing) once decoded, normalized or read leniently. */
const farmTargets = () => [
  '/%61pi/farms/', '/%61%70%69/farms/', '/api/%66arms/', '/%2561pi/farms/', '/api/farms%2F', '/api/farms%252F', '/api%2Ffarms/', '/api%2ffarms%2f',
  '//api/farms/', '/./api/farms/', '/api/./farms/', '/api/../api/farms/', '/embed/../api/farms/', '/api/farms/%2e/', '/api/farms/%2E%2E/farms/',
  '/API/farms/', '/Api/Farms/', '/api/farms;x/', '/api/farms/?', '/api/farms/#x',
  `http://127.0.0.1:${port}/api/farms/`, 'http://other.example/api/farms/', `HTTP://127.0.0.1:${port}/%61pi/farms/`,
];

function expectRefused(res: RawResponse, label: string): void {
  expect([401, 404], `${label} → ${res.status} ${res.body.slice(0, 200)}`).toContain(res.status);
  const body = JSON.parse(res.body) as { code: string };
  expect(body.code, label).toBe(res.status === 401 ? 'not_authenticated' : 'not_found');
  expect(res.body, label).not.toContain('Secret farm');
}

describe('a request line that names an /api route in another spelling', () => {
  it('GET without credentials: 401 or 404, never 200 or 500', async () => {
    for (const target of farmTargets()) expectRefused(await rawRequest(port, 'GET', target), `GET ${target}`);
    for (const target of ['/%61pi/billing/', '/%61pi/accounts/', `/%61pi/accounts/${acc.id}/`, '/%61pi/crop-families/', `http://127.0.0.1:${port}/api/billing/`]) {
      expectRefused(await rawRequest(port, 'GET', target), `GET ${target}`);
    }
  });

  it('writes without credentials change nothing', async () => {
    const before = await storeCounts(svc);
    const json = { 'Content-Type': 'application/json' };
    for (const target of ['/%61pi/farms/', `http://127.0.0.1:${port}/api/farms/`, '/api/farms%2F']) {
      expectRefused(await rawRequest(port, 'POST', target, json, '{"farm":{"name":"Sneaked in"}}'), `POST ${target}`);
    }
    expectRefused(await rawRequest(port, 'POST', '/%61pi/crop-families/', json, '{"name":"Sneakaceae"}'), 'POST crop-families');
    expectRefused(await rawRequest(port, 'POST', '/%61pi/accounts/', json, '{"account_email":"sneak@example.com"}'), 'POST accounts');
    expectRefused(await rawRequest(port, 'DELETE', `/%61pi/accounts/${acc.id}/`), 'DELETE account');
    expect(await storeCounts(svc)).toEqual(before);
  });

  it('the same spellings with credentials reach the route: authentication follows the matched route', async () => {
    for (const target of ['/%61pi/farms/', `http://127.0.0.1:${port}/api/farms/`, '/api/%66arms/']) {
      const res = await rawRequest(port, 'GET', target, asAccount(org, acc));
      expect(res.status, target).toBe(200);
      expect((JSON.parse(res.body) as { name: string }[]).map((f) => f.name)).toEqual(['Secret farm']);
    }
    // The public document stays public in any spelling.
    expect((await rawRequest(port, 'GET', '/%61pi/openapi.json')).status).toBe(200);
  });

  it('nothing was logged at error level, and no stack trace', () => {
    const log = lines.join('');
    expect(log).toContain('incoming request'); // the capture works
    const errors = lines.filter((l) => (JSON.parse(l) as { level: number }).level >= 50);
    expect(errors).toEqual([]);
    expect(log).not.toMatch(/"stack"|\n\s+at /);
  });
});

/**
 * Routes that take no API credential, each with the answer it gives a caller that sends none. Anything else the
 * app registers must answer 401: a route added later without authentication fails the test below.
 */
const PUBLIC: Record<string, number> = {
  // The OpenAPI document and the health check are public by design.
  'GET /api/openapi.json': 200, 'GET /healthz': 200,
  // The embedded map: the auth_id query parameter is its credential (400 without it); its code carries no data.
  'GET /embed': 400, 'GET /embed/data/parcels': 400, 'GET /embed/data/plants': 400, 'GET /embed/app.js': 200, 'GET /embed/app.css': 200,
  // The admin panel: its own session cookie. Pages redirect to sign-in, forms are refused.
  'GET /admin/login': 200, 'POST /admin/login': 401, 'GET /admin/admin.css': 200, 'POST /admin/logout': 403,
  ...Object.fromEntries(['', '/members', '/members/deactivate', '/members/delete', '/data', '/data/unlink', '/data/delete', '/billing', '/api-keys', '/api-keys/revoke',
    '/tokens/revoke', '/limits'].map((p) => [`GET /admin${p}`, 303])),
  ...Object.fromEntries(['/members/deactivate', '/members/delete', '/members/reactivate', '/data/unlink', '/data/delete', '/api-keys', '/api-keys/revoke',
    '/tokens/rotate', '/tokens/revoke', '/limits'].map((p) => [`POST /admin${p}`, 403])),
  // The start page, its stylesheet and icon: static, no account data.
  'GET /': 200, 'GET /landing.css': 200, 'GET /favicon.svg': 200, 'GET /favicon.ico': 301,
  // Fault injection: registered with FAULTS=1 only, which a deployment never sets.
  'GET /__faults__': 200, 'POST /__faults__': 400,
};

describe('every registered route', () => {
  it('answers 401 without credentials unless it is on the public list', async () => {
    const withFaults = await startService({ faults: true });
    try {
      const routes = registeredRoutes(withFaults.app);
      expect(routes.length).toBeGreaterThan(60);
      const unexpected: string[] = [];
      for (const route of routes) {
        const [method, path] = route.split(' ') as [string, string];
        const url = path.replace(/:id/g, '1') + (/\.\w+$/.test(path) ? '' : '/');
        const admin = path.startsWith('/admin');
        const hasBody = method === 'POST' || method === 'PATCH';
        const res = await withFaults.app.inject({
          method: method as 'GET', url,
          ...(hasBody ? { headers: { 'content-type': admin ? 'application/x-www-form-urlencoded' : 'application/json' }, payload: admin ? '' : '{}' } : {}),
        });
        const listed = PUBLIC[`${method === 'HEAD' ? 'GET' : method} ${path}`];
        const expected = listed ?? 401;
        if (res.statusCode !== expected) unexpected.push(`${route} → ${res.statusCode}, expected ${expected}`);
        else if (listed === undefined && method !== 'HEAD' && (res.json() as { code: string }).code !== 'not_authenticated') unexpected.push(`${route}: ${res.body}`);
      }
      expect(unexpected).toEqual([]);
      // The list has no stale entries: each is a route the app really has.
      for (const entry of Object.keys(PUBLIC)) expect(routes, entry).toContain(entry);
    } finally {
      await withFaults.close();
    }
  });
});
