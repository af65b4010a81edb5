// The admin panel in a real browser (Debian's Chromium through playwright-core) against the real service on
// a socket, with the API checked at each step: members (deactivate, reactivate, permanent delete), data
// management (unlink, orphans, delete), billing, API keys, account limits, and the security measures
// (wrong password, CSRF, another organization, rate limit, sign-out, cookie flags, CSP).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../service/app.ts';
import type { Store } from '../../service/store/store.ts';
import { createAdmin } from '../../service/store/admins.ts';
import { openTestStore } from '../helpers/store.ts';
import { wrongLastChar } from '../helpers/wrong-secret.ts';
import { ROOT, serviceCli } from '../helpers/process.ts';
import { pointParcel, polygonParcel } from '../helpers/service.ts';

const SHOTS = join(ROOT, 'test/e2e/screenshots');
const PASSWORD = 'correct horse battery';
const CHROMIUM = { executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] };

interface Org { organization_id: string; api_key: string }
interface Acc { id: string; account_email: string }
interface FarmOut { id: number; name: string; hectares: number }

let dir: string;
let store: Store;
let app: FastifyInstance;
let base: string;
let browser: Browser;
let a: Org;
let b: Org;
const acc: Record<'ana' | 'pedro' | 'lucia' | 'marta', Acc> = {} as never;
const farms: Record<string, FarmOut> = {};
let rival: Acc;

async function api(method: string, path: string, headers: Record<string, string>, payload?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, {
    method, headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
const as = (o: Org, x: Acc) => ({ 'x-api-key': o.api_key, 'service-account': x.id });
async function account(o: Org, email: string): Promise<Acc> {
  const r = await api('POST', '/api/accounts/', { 'x-api-key': o.api_key }, { account_email: email });
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return r.json as unknown as Acc;
}
async function farm(o: Org, x: Acc, name: string, sides: number[], lon: number): Promise<FarmOut> {
  const parcels = sides.map((side, i) => polygonParcel(`${name} ${i + 1}`, lon + i * 0.02, 37.88, side));
  const r = await api('POST', '/api/farms/', as(o, x), { farm: { name }, parcels });
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return (farms[name] = r.json as unknown as FarmOut);
}
const HA = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const ha = (n: number) => `${HA.format(n)} ha`;

/** Runs an action that navigates and resolves with the final document's status once it has loaded. */
async function navigate(page: Page, action: () => Promise<unknown>): Promise<number> {
  const response = page.waitForResponse((r) => r.request().isNavigationRequest() && r.frame() === page.mainFrame() && (r.status() < 300 || r.status() >= 400));
  const committed = page.waitForEvent('framenavigated', { predicate: (f) => f === page.mainFrame() });
  await action();
  const [r] = await Promise.all([response, committed]);
  await page.waitForLoadState('load');
  return r.status();
}
const click = (page: Page, target: Locator) => navigate(page, () => target.click());
const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `admin-${name}.png`), fullPage: true });
const row = (page: Page, text: string) => page.locator('tbody tr', { hasText: text });
const flash = (page: Page) => page.locator('.alert-success').innerText();
// DOM text, not innerText: the badges' CSS capitalizes what they show.
const cells = async (r: Locator) => (await r.locator('td').allTextContents()).map((t) => t.trim());
const badgeOf = async (r: Locator) => (await r.locator('.badge').textContent())?.trim();

async function signIn(context: BrowserContext, email: string, password = PASSWORD): Promise<{ page: Page; status: number }> {
  const page = await context.newPage();
  await page.goto(`${base}/admin/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  const status = await click(page, page.getByRole('button', { name: 'Sign in' }));
  return { page, status };
}
const newContext = () => browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: base });

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), 'furrow-admin-e2e-'));
  ({ store } = await openTestStore(dir));
  app = await buildApp({ store, config: { dataDir: dir, publicUrl: 'http://127.0.0.1:8080', gatewayTimeoutMs: 0, faults: false } });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
  a = await store.organizations.create('Campo Verde Cooperative');
  b = await store.organizations.create('Rival Agro');
  // The operator's command, run as operators run it, on the same database the service has open.
  const cli = serviceCli(dir, ['create-admin', '--org', a.organization_id, '--email', 'admin@campoverde.es', '--password', PASSWORD]);
  expect(cli.status, cli.stderr).toBe(0);
  expect(cli.json).toMatchObject({ organization_id: a.organization_id, email: 'admin@campoverde.es' });
  await createAdmin(store, a.organization_id, 'ops@campoverde.es', PASSWORD);
  await createAdmin(store, b.organization_id, 'admin@rivalagro.test', PASSWORD);

  acc.ana = await account(a, 'ana@cortijonorte.es');
  acc.pedro = await account(a, 'pedro@almendrosur.es');
  acc.lucia = await account(a, 'lucia@olivarhedge.es');
  acc.marta = await account(a, 'marta@bodegasrio.es');
  await farm(a, acc.ana, 'Cortijo Norte', [450, 320, 600], -4.78);
  await farm(a, acc.ana, 'La Vega', [380, 250], -4.70);
  await farm(a, acc.pedro, 'Almond Orchard', [500, 420], -4.60);
  await farm(a, acc.pedro, 'Finca Alta', [550, 350, 300], -4.50);
  await farm(a, acc.lucia, 'Olive Grove', [400], -4.40);
  await farm(a, acc.marta, 'Viña del Río', [300, 280], -4.30);
  // Deactivated through the CLI: the panel must show what the operator's twin command did.
  const off = serviceCli(dir, ['deactivate-account', '--account', acc.marta.id]);
  expect(off.status, off.stderr).toBe(0);
  rival = await account(b, 'grower@rivalagro.test');
  // The API's schema refuses this address; the CLI's create-account (the store) takes it: the panel must show it as text.
  await store.accounts.create(b.organization_id, '<b>bold</b>"@rivalagro.test');
  browser = await chromium.launch(CHROMIUM);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the admin panel', () => {
  let ctx: BrowserContext;
  let page: Page;

  it('sends a visitor to sign-in and refuses a wrong password', async () => {
    ctx = await newContext();
    page = await ctx.newPage();
    expect(await navigate(page, () => page.goto(`${base}/admin/members`))).toBe(200);
    expect(new URL(page.url()).pathname).toBe('/admin/login');
    await shot(page, 'login');
    await page.getByLabel('Email').fill('admin@campoverde.es');
    await page.getByLabel('Password').fill('not the password');
    expect(await click(page, page.getByRole('button', { name: 'Sign in' }))).toBe(401);
    expect(await page.locator('.alert-error').innerText()).toContain('The email or password is not correct');
    expect(await ctx.cookies()).toEqual([]);
  });

  it('signs an admin in with an HttpOnly, SameSite=Strict cookie limited to /admin, under a strict CSP', async () => {
    await page.getByLabel('Password').fill(PASSWORD);
    expect(await click(page, page.getByRole('button', { name: 'Sign in' }))).toBe(200);
    expect(new URL(page.url()).pathname).toBe('/admin/members');
    const [cookie, ...others] = await ctx.cookies();
    expect(others).toEqual([]);
    expect(cookie).toMatchObject({ name: 'furrow_admin', httpOnly: true, sameSite: 'Strict', path: '/admin', secure: false });
    const res = await page.request.get(`${base}/admin/members`);
    expect(res.headers()['content-security-policy']).toContain("default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'");
    expect(res.headers()['cache-control']).toBe('no-store');
    const markup = await res.text();
    expect(markup).not.toMatch(/<script|\sstyle=|\son[a-z]+=/i);
    expect(await page.locator('.org').innerText()).toBe('Campo Verde Cooperative');
    // Every account of the organization with its parcel count and hectares; none of another organization.
    const ana = row(page, acc.ana.account_email);
    expect(await cells(ana)).toEqual(expect.arrayContaining(['active', '2', '5', ha(farms['Cortijo Norte']!.hectares + farms['La Vega']!.hectares)]));
    expect(await page.locator('tbody tr').count()).toBe(4);
    expect(await cells(row(page, acc.marta.account_email))).toEqual(expect.arrayContaining(['1', '2', ha(farms['Viña del Río']!.hectares)]));
    expect(await badgeOf(row(page, acc.marta.account_email))).toBe('deactivated');
    expect(await page.content()).not.toContain('rivalagro');
  });

  it('deactivates an account after warning that its farms stay billed; the API then answers Account not found', async () => {
    await click(page, row(page, acc.ana.account_email).getByRole('link', { name: 'Deactivate…' }));
    const warning = await page.locator('.alert-warning').innerText();
    expect(warning).toContain('This account still has 2 farms');
    expect(warning).toContain(`Its 2 farms (${ha(farms['Cortijo Norte']!.hectares + farms['La Vega']!.hectares)}) stay billed`);
    expect(warning).toContain('DELETE /api/farms/{id}/');
    await shot(page, 'deactivate');
    expect(await click(page, page.getByRole('button', { name: 'Deactivate account' }))).toBe(200);
    expect(await flash(page)).toContain('ana@cortijonorte.es is deactivated');
    expect(await badgeOf(row(page, acc.ana.account_email))).toBe('deactivated');
    const r = await api('GET', '/api/farms/', as(a, acc.ana));
    expect(r).toMatchObject({ status: 403, json: { message: 'Account not found' } });
  });

  it('reactivates it with all its data', async () => {
    await click(page, row(page, acc.ana.account_email).getByRole('button', { name: 'Reactivate' }));
    expect(await flash(page)).toContain('is active again');
    const r = await api('GET', '/api/farms/', as(a, acc.ana));
    expect(r.status).toBe(200);
    expect((r.json as unknown as FarmOut[]).map((f) => [f.name, f.hectares])).toEqual([
      ['Cortijo Norte', farms['Cortijo Norte']!.hectares], ['La Vega', farms['La Vega']!.hectares]]);
  });

  it('deletes a deactivated account permanently only with its email typed; the email is then reusable', async () => {
    await click(page, row(page, acc.lucia.account_email).getByRole('link', { name: 'Deactivate…' }));
    await click(page, page.getByRole('button', { name: 'Deactivate account' }));
    await shot(page, 'members');
    expect((await api('POST', '/api/accounts/', { 'x-api-key': a.api_key }, { account_email: acc.lucia.account_email })).status).toBe(409);
    await click(page, row(page, acc.lucia.account_email).getByRole('link', { name: 'Delete permanently…' }));
    expect(await page.locator('.alert-error').innerText()).toContain('1 farm, 1 parcel');
    await page.getByLabel(/Type .* to confirm/).fill('lucia@olivarhedge.es');
    await shot(page, 'delete');
    await page.getByLabel(/Type .* to confirm/).fill('lucia@olivar.es');
    expect(await click(page, page.getByRole('button', { name: 'Delete permanently' }))).toBe(400);
    expect(await page.locator('.alert-error').first().innerText()).toContain('does not match');
    expect((await store.accounts.get(acc.lucia.id))?.state).toBe('deactivated');
    await page.getByLabel(/Type .* to confirm/).fill('Lucia@OlivarHedge.es');
    expect(await click(page, page.getByRole('button', { name: 'Delete permanently' }))).toBe(200);
    expect(await flash(page)).toContain('permanently deleted');
    expect(await row(page, acc.lucia.account_email).count()).toBe(0);
    expect(await store.farms.organizationOf(farms['Olive Grove']!.id)).toBeUndefined();
    expect((await api('GET', '/api/farms/', as(a, acc.lucia))).json).toMatchObject({ message: 'Account not found' });
    const again = await api('POST', '/api/accounts/', { 'x-api-key': a.api_key }, { account_email: acc.lucia.account_email });
    expect(again.status).toBe(201);
    expect(again.json.id).not.toBe(acc.lucia.id);
  });

  it('unlinks a farm into an orphan that billing counts, then deletes the orphan', async () => {
    const alta = farms['Finca Alta']!;
    const totalBefore = ((await api('GET', '/api/billing/', { 'x-api-key': a.api_key })).json.total_hectares as number);
    await click(page, page.getByRole('link', { name: 'Data Management' }));
    expect(await page.locator('.empty', { hasText: 'No orphan farms' }).count()).toBe(1);
    await click(page, row(page, 'Finca Alta').getByRole('link', { name: 'Unlink…' }));
    expect(await page.locator('.card-body').innerText()).toContain('becomes an orphan');
    await shot(page, 'unlink');
    await click(page, page.getByRole('button', { name: 'Unlink farm' }));
    expect(await flash(page)).toContain('is now an orphan');
    const orphan = page.locator('.card', { hasText: 'Orphan farms' }).locator('tbody tr', { hasText: 'Finca Alta' });
    expect(await cells(orphan)).toEqual(expect.arrayContaining(['3', ha(alta.hectares)]));
    await shot(page, 'data');
    expect((await api('GET', `/api/farms/${alta.id}/`, { 'x-api-key': a.api_key })).status).toBe(404);

    await click(page, page.getByRole('link', { name: 'Billing' }));
    expect(await page.locator('[data-test="orphan-hectares"]').innerText()).toBe(ha(alta.hectares));
    expect(await page.locator('[data-test="total-hectares"]').innerText()).toBe(ha(totalBefore));
    await shot(page, 'billing');

    await click(page, page.getByRole('link', { name: 'Data Management' }));
    await click(page, orphan.getByRole('link', { name: 'Delete…' }));
    await click(page, page.getByRole('button', { name: 'Delete farm' }));
    expect(await flash(page)).toContain('Finca Alta');
    expect(await orphan.count()).toBe(0);
    const bill = (await api('GET', '/api/billing/', { 'x-api-key': a.api_key })).json;
    expect(bill.orphans).toEqual({ farms: 0, parcels: 0, hectares: 0 });
    expect(bill.total_hectares).toBeCloseTo(totalBefore - alta.hectares, 6);
    await click(page, page.getByRole('link', { name: 'Billing' }));
    expect(await page.locator('[data-test="orphan-hectares"]').innerText()).toBe(ha(0));
  });

  it('creates an API key shown once, which works until it is revoked', async () => {
    await click(page, page.getByRole('link', { name: 'API keys' }));
    await page.getByLabel(/Label/).fill('ERP integration');
    expect(await click(page, page.getByRole('button', { name: 'Create API key' }))).toBe(201);
    const key = await page.locator('[data-test="new-api-key"]').inputValue();
    expect(key).toMatch(/^fk_[0-9a-f]{8}_/);
    await shot(page, 'api-keys');
    expect((await api('GET', '/api/accounts/', { 'x-api-key': key })).status).toBe(200);
    // Shown once: the listing has only its prefix, and reloading does not bring the key back.
    await click(page, page.getByRole('link', { name: 'API keys' }));
    expect(await page.content()).not.toContain(key);
    const prefix = key.slice(0, 11);
    expect(await row(page, 'ERP integration').locator('td').first().innerText()).toBe(`${prefix}…`);
    await click(page, row(page, 'ERP integration').getByRole('link', { name: 'Revoke…' }));
    await click(page, page.getByRole('button', { name: 'Revoke key' }));
    expect(await flash(page)).toContain(`${prefix}… is revoked`);
    expect(await badgeOf(row(page, 'ERP integration'))).toBe('revoked');
    expect((await api('GET', '/api/accounts/', { 'x-api-key': key })).status).toBe(401);
    expect((await api('GET', '/api/accounts/', { 'x-api-key': a.api_key })).status).toBe(200);
  });

  it('sets an account limit the API then applies, and restores the default', async () => {
    const big = { farm: { id: farms['La Vega']!.id }, parcels: [pointParcel('Big field', 150)] };
    const refused = await api('POST', '/api/parcels/', as(a, acc.ana), big);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.json)).toContain('area_over_limit');
    await click(page, page.getByRole('link', { name: 'Account limits' }));
    await row(page, acc.ana.account_email).getByRole('spinbutton').fill('250');
    await click(page, row(page, acc.ana.account_email).getByRole('button', { name: 'Save' }));
    expect(await flash(page)).toContain('up to 250 ha');
    expect(await cells(row(page, acc.ana.account_email))).toEqual(expect.arrayContaining(['250.00 ha', 'agreed']));
    await shot(page, 'limits');
    expect((await api('POST', '/api/parcels/', as(a, acc.ana), big)).status).toBe(201);
    await click(page, row(page, acc.ana.account_email).getByRole('button', { name: 'Restore default' }));
    expect(await cells(row(page, acc.ana.account_email))).toEqual(expect.arrayContaining(['100.00 ha', 'default']));
    expect((await api('POST', '/api/parcels/', as(a, acc.ana), big)).status).toBe(400);
  });

  it('refuses a POST without its CSRF token, with a wrong one, or from another site, and changes nothing', async () => {
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    const post = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      page.request.post(`${base}/admin/members/deactivate`, { form, headers, maxRedirects: 0 });
    const missing = await post({ account: acc.ana.id });
    expect(missing.status()).toBe(403);
    expect(await missing.text()).toContain('security token');
    expect((await post({ account: acc.ana.id, _csrf: wrongLastChar(csrf) })).status()).toBe(403);
    expect((await post({ account: acc.ana.id, _csrf: csrf }, { 'sec-fetch-site': 'cross-site' })).status()).toBe(403);
    expect((await api('GET', '/api/farms/', as(a, acc.ana))).status).toBe(200);
    // The token is the session's: the same request with it goes through (and is undone).
    expect((await post({ account: acc.ana.id, _csrf: csrf })).status()).toBe(303);
    expect((await api('GET', '/api/farms/', as(a, acc.ana))).status).toBe(403);
    expect((await page.request.post(`${base}/admin/members/reactivate`, { form: { account: acc.ana.id, _csrf: csrf }, maxRedirects: 0 })).status()).toBe(303);
    expect((await api('GET', '/api/farms/', as(a, acc.ana))).status).toBe(200);
  });

  it("keeps another organization's admin to their own organization: our accounts and farms are 404 there", async () => {
    const other = await newContext();
    const { page: theirs } = await signIn(other, 'admin@rivalagro.test');
    expect(await theirs.locator('.org').innerText()).toBe('Rival Agro');
    const content = await theirs.content();
    expect(content).toContain('grower@rivalagro.test');
    expect(content).not.toContain('cortijonorte');
    // Markup in an account email is shown as text.
    expect(await theirs.locator('.who-main', { hasText: '<b>bold</b>"@rivalagro.test' }).count()).toBe(1);
    expect(await theirs.locator('main b').count()).toBe(0);
    const csrf = await theirs.locator('input[name="_csrf"]').first().inputValue();
    const post = (path: string, form: Record<string, string>) => theirs.request.post(`${base}${path}`, { form: { ...form, _csrf: csrf }, maxRedirects: 0 });
    expect((await post('/admin/members/deactivate', { account: acc.ana.id })).status()).toBe(404);
    expect((await post('/admin/members/reactivate', { account: acc.marta.id })).status()).toBe(404);
    expect((await post('/admin/data/unlink', { farm: String(farms['Cortijo Norte']!.id) })).status()).toBe(404);
    expect((await post('/admin/limits', { account: acc.ana.id, hectares: '999', action: 'set' })).status()).toBe(404);
    expect((await post('/admin/api-keys/revoke', { prefix: a.api_key.slice(0, 11) })).status()).toBe(404);
    expect(await navigate(theirs, () => theirs.goto(`${base}/admin/members/deactivate?account=${acc.ana.id}`))).toBe(404);
    expect(await theirs.locator('.alert-warning').innerText()).toContain('Account not found');
    await shot(theirs, 'not-found');
    expect((await theirs.request.get(`${base}/admin/data/unlink?farm=${farms['Cortijo Norte']!.id}`)).status()).toBe(404);
    expect((await api('GET', '/api/farms/', as(a, acc.ana))).status).toBe(200);
    expect((await store.accounts.get(acc.marta.id))?.state).toBe('deactivated');
    expect((await store.farms.listLinked(a.organization_id, acc.ana.id)).map((f) => f.id)).toContain(farms['Cortijo Norte']!.id);
    expect((await store.accounts.get(acc.ana.id))?.max_parcel_hectares).toBeNull();
    expect((await api('GET', '/api/accounts/', { 'x-api-key': a.api_key })).status).toBe(200);
    expect((await api('GET', '/api/farms/', as(b, rival))).status).toBe(200);
    await other.close();
  });

  it('signs out: the session is deleted, and its cookie no longer opens anything', async () => {
    const [cookie] = await ctx.cookies();
    await click(page, page.getByRole('button', { name: 'Sign out' }));
    expect(new URL(page.url()).pathname).toBe('/admin/login');
    expect(await ctx.cookies()).toEqual([]);
    const replay = await fetch(`${base}/admin/members`, { headers: { cookie: `furrow_admin=${cookie!.value}` }, redirect: 'manual' });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toBe('/admin/login');
    await ctx.close();
  });

  it('pauses sign-in for an email after 5 failures from one address, even with the right password', async () => {
    const c = await newContext();
    const p = await c.newPage();
    await p.goto(`${base}/admin/login`);
    for (let i = 0; i < 5; i++) {
      await p.getByLabel('Email').fill('ops@campoverde.es');
      await p.getByLabel('Password').fill(`guess number ${i}`);
      expect(await click(p, p.getByRole('button', { name: 'Sign in' }))).toBe(401);
    }
    await p.getByLabel('Password').fill(PASSWORD);
    expect(await click(p, p.getByRole('button', { name: 'Sign in' }))).toBe(429);
    expect(await p.locator('.alert-warning').innerText()).toMatch(/Too many failed sign-in attempts.*try again in 15 minutes/s);
    expect(await c.cookies()).toEqual([]);
    await shot(p, 'login-rate-limited');
    // Another admin from the same address is not locked out.
    expect((await signIn(c, 'admin@campoverde.es')).status).toBe(200);
    await c.close();
  });

  it('marks the cookie Secure when the service is public over HTTPS', async () => {
    const https = await buildApp({ store, config: { dataDir: dir, publicUrl: 'https://farms.example.com', gatewayTimeoutMs: 0, faults: false } });
    try {
      const res = await https.inject({ method: 'POST', url: '/admin/login', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `email=admin%40campoverde.es&password=${encodeURIComponent(PASSWORD)}` });
      expect(res.statusCode).toBe(303);
      expect(String(res.headers['set-cookie'])).toMatch(/^furrow_admin=[\w-]{43}; Path=\/admin; HttpOnly; SameSite=Strict; Max-Age=43200; Secure$/);
    } finally {
      await https.close();
    }
  });
});
