// GET /: a start page pointing at the embedded map, the admin panel and the OpenAPI document, under the admin
// panel's strict CSP, with nothing of any account in it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asAccount, newAccount, newOrg, startService, type Account, type Org, type TestService } from '../../../test/helpers/service.ts';

let svc: TestService;
let org: Org;
let acc: Account;
beforeAll(async () => {
  svc = await startService();
  org = await newOrg(svc, 'Landing Org');
  acc = await newAccount(svc, org, 'grower@landing.example');
});
afterAll(async () => {
  await svc.close();
});

const get = (url: string) => svc.app.inject({ method: 'GET', url });

describe('GET /', () => {
  it('serves an HTML start page linking the embedded map, the admin panel and the OpenAPI document', async () => {
    const res = await get('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const body = res.body;
    expect(body).toContain('<form class="stack" method="get" action="/embed/">');
    expect(body).toContain('name="auth_id"');
    expect(body).toContain('href="/admin/"');
    expect(body).toContain('href="/api/openapi.json"');
    // Every same-origin URL the page names answers (the admin panel by sending to its sign-in).
    const targets = [...body.matchAll(/(?:href|action)="(\/[^"]*)"/g)].map((m) => m[1]!);
    expect(targets.sort()).toEqual(['/admin/', '/admin/admin.css', '/api/openapi.json', '/embed/', '/favicon.svg', '/healthz', '/landing.css']);
    for (const url of targets.filter((u) => u !== '/embed/')) expect([200, 303], url).toContain((await get(url)).statusCode);
    expect((await get('/landing.css')).headers['content-type']).toMatch(/^text\/css/);
    // The form's request, with an account's auth_id, opens that account's map.
    const authId = new URL(acc.embedded_url).searchParams.get('auth_id')!;
    expect(authId).toMatch(new RegExp(`^${/pattern="([^"]+)"/.exec(body)![1]!}$`));
    expect((await get(`/embed/?auth_id=${authId}`)).statusCode).toBe(200);
    expect((await svc.app.inject({ method: 'HEAD', url: '/' })).statusCode).toBe(200);
    // Every page's automatic /favicon.ico request finds the leaf instead of a 404.
    const ico = await get('/favicon.ico');
    expect([ico.statusCode, ico.headers.location]).toEqual([301, '/favicon.svg']);
    const svg = await get('/favicon.svg');
    expect(svg.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(svg.body).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" viewBox="0 0 24 24"><path fill="#2f7d4f" d="M4 20/);
  });

  it('runs no script, loads nothing from elsewhere, cannot be framed, and holds no credential', async () => {
    const res = await get('/');
    const csp = String(res.headers['content-security-policy']);
    for (const d of ["default-src 'none'", "style-src 'self'", "form-action 'self'", "frame-ancestors 'none'"]) expect(csp).toContain(d);
    expect(csp).not.toMatch(/script-src|unsafe/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).not.toMatch(/<script|\sstyle=|<style|https?:\/\//);
    for (const secret of [org.api_key, org.organization_id, acc.id, acc.account_email, new URL(acc.embedded_url).searchParams.get('auth_id')!]) {
      expect(res.body).not.toContain(secret);
    }
    // Nothing else moved: the API still needs its credentials, an unknown path is still the JSON 404.
    expect((await get('/api/farms/')).statusCode).toBe(401);
    expect((await svc.app.inject({ method: 'GET', url: '/api/farms/', headers: asAccount(org, acc) })).statusCode).toBe(200);
    const missing = await get('/no-such-page');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/json/);
  });
});
