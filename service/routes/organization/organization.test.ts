// GET /api/organization/ (our extension): who the credential speaks for, and never another organization.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startService, newOrg, newAccount, asAccount, asBearer, body, type TestService, type Org } from '../../../test/helpers/service.ts';
import { wrongLastChar } from '../../../test/helpers/wrong-secret.ts';

let svc: TestService;
let org: Org;
beforeEach(async () => {
  svc = await startService();
  org = await newOrg(svc, 'Agro Consult Sur');
});
afterEach(async () => {
  await svc.close();
});

const get = (headers: Record<string, string>) => svc.app.inject({ method: 'GET', url: '/api/organization/', headers });

describe('GET /api/organization/', () => {
  it("answers the key's own organization, its id and name", async () => {
    const other = await newOrg(svc, 'Campo Norte');
    const res = await get({ 'x-api-key': org.api_key });
    expect(res.statusCode).toBe(200);
    expect(body(res)).toEqual({ id: org.organization_id, name: 'Agro Consult Sur' });
    expect(body(await get({ 'x-api-key': other.api_key }))).toEqual({ id: other.organization_id, name: 'Campo Norte' });
  });

  it("answers an account's credentials (the key with the account header, a bearer token) with the account's organization", async () => {
    const account = await newAccount(svc, org);
    expect(body(await get(asAccount(org, account)))).toEqual({ id: org.organization_id, name: 'Agro Consult Sur' });
    expect(body(await get(asBearer(account)))).toEqual({ id: org.organization_id, name: 'Agro Consult Sur' });
  });

  it('refuses a missing or unknown key as every endpoint does', async () => {
    const none = await get({});
    expect(none.statusCode).toBe(401);
    const wrong = await get({ 'x-api-key': wrongLastChar(org.api_key) });
    expect(wrong.statusCode).toBe(401);
    expect(body(wrong).code).toBe('invalid_api_key');
  });
});
