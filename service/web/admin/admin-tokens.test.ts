// The admin panel's account-token actions (API keys page): rotate the signing key, revoke every token. Through
// the real routes with a real session and CSRF token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeProtectedHeader } from 'jose';
import { asBearer, newAccount, newOrg, startService, type Account, type Org, type TestService } from '../../../test/helpers/service.ts';
import { createAdmin } from '../../store/admins.ts';

let svc: TestService;
let org: Org;
let acc: Account;
let cookie: string;

const form = (fields: Record<string, string>) => ({ 'content-type': 'application/x-www-form-urlencoded', payload: new URLSearchParams(fields).toString() });

beforeAll(async () => {
  svc = await startService();
  org = await newOrg(svc);
  acc = await newAccount(svc, org);
  await createAdmin(svc.store, org.organization_id, 'boss@example.com', 'a long admin passphrase');
  const { payload, ...headers } = form({ email: 'boss@example.com', password: 'a long admin passphrase' });
  const res = await svc.app.inject({ method: 'POST', url: '/admin/login', headers, payload });
  expect(res.statusCode).toBe(303);
  cookie = String(res.headers['set-cookie']).split(';')[0]!;
});
afterAll(async () => {
  await svc.close();
});

async function csrf(): Promise<string> {
  const page = await svc.app.inject({ method: 'GET', url: '/admin/api-keys', headers: { cookie } });
  expect(page.statusCode).toBe(200);
  return /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
}
async function post(url: string, fields: Record<string, string>) {
  const { payload, ...headers } = form(fields);
  return svc.app.inject({ method: 'POST', url, headers: { ...headers, cookie }, payload });
}
const farms = async (headers: Record<string, string>) => (await svc.app.inject({ method: 'GET', url: '/api/farms/', headers })).statusCode;

describe('account tokens in the admin panel', () => {
  it('the API keys page lists the signing key; rotating keeps issued tokens working and signs new ones with a new kid', async () => {
    const kid = (await svc.store.signingKeys.current(org.organization_id)).kid;
    const page = await svc.app.inject({ method: 'GET', url: '/admin/api-keys', headers: { cookie } });
    expect(page.body).toContain(kid);
    // Without the CSRF token nothing happens.
    expect((await post('/admin/tokens/rotate', {})).statusCode).toBe(403);
    expect((await svc.store.signingKeys.current(org.organization_id)).kid).toBe(kid);

    const res = await post('/admin/tokens/rotate', { _csrf: await csrf() });
    expect(res.statusCode).toBe(303);
    const next = (await svc.store.signingKeys.current(org.organization_id)).kid;
    expect(next).not.toBe(kid);
    expect((await svc.app.inject({ method: 'GET', url: '/admin/api-keys', headers: { cookie } })).body).toContain(`New signing key ${next}`);
    expect(await farms(asBearer(acc))).toBe(200);
    const fresh = await svc.app.inject({ method: 'POST', url: `/api/accounts/${acc.id}/token/`, headers: { 'x-api-key': org.api_key } });
    expect(decodeProtectedHeader((fresh.json() as { account_access: string }).account_access).kid).toBe(next);
  });

  it('revoking every token asks first, then refuses all of them; the API key keeps working', async () => {
    const confirm = await svc.app.inject({ method: 'GET', url: '/admin/tokens/revoke', headers: { cookie } });
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('Revoke every account token?');
    expect(await farms(asBearer(acc))).toBe(200); // the GET changed nothing

    expect((await post('/admin/tokens/revoke', { _csrf: await csrf() })).statusCode).toBe(303);
    expect(await farms(asBearer(acc))).toBe(401);
    expect(await farms({ 'x-api-key': org.api_key })).toBe(200);
  });
});
