// Bearer account_access tokens: every bad one (expired, malformed, forged, wrong algorithm or type) is the spec's exact
// 'Invalid token', and POST /api/accounts/{id}/token/ issues fresh ones.
import { beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import {
  newOrg, newAccount, newFarm, asBearer, polygonParcel, storeCounts, body,
  type Org, type Account,
} from '../test/helpers/service.ts';
import { jwtSecret, signAccountAccess, ACCESS_TOKEN_TTL_SECONDS } from './store/tokens.ts';
import {
  svc, useServicePerTest, get, expectInvalidToken, expectAccountNotFound, b64url, nowS, accountPayload, bearer, farmNames,
} from './auth.test-helpers.ts';

useServicePerTest();

describe("'Invalid token'", () => {
  let org: Org;
  let acc: Account;
  let secret: Uint8Array;
  beforeEach(async () => {
    org = newOrg(svc);
    acc = await newAccount(svc, org);
    await newFarm(svc, org, acc, 'Secret farm');
    secret = jwtSecret(svc.db);
  });

  it('the token from account creation works as Bearer (the control for every case below)', async () => {
    const res = await get('/api/farms/', asBearer(acc));
    expect(res.statusCode).toBe(200);
    expect(farmNames(res)).toEqual(['Secret farm']);
  });

  it('an expired token (issued more than 3 hours ago)', async () => {
    const { token } = await signAccountAccess(secret, acc.id, org.organization_id, nowS() - ACCESS_TOKEN_TTL_SECONDS - 5);
    expectInvalidToken(await get('/api/farms/', bearer(token)));
    const long = await signAccountAccess(secret, acc.id, org.organization_id, nowS() - 24 * 3600);
    expectInvalidToken(await get('/api/farms/', bearer(long.token)));
  });

  it('a token issued just under 3 hours ago still works', async () => {
    const { token } = await signAccountAccess(secret, acc.id, org.organization_id, nowS() - ACCESS_TOKEN_TTL_SECONDS + 60);
    expect((await get('/api/farms/', bearer(token))).statusCode).toBe(200);
  });

  it('malformed tokens and malformed Authorization headers', async () => {
    const parts = acc.account_access.split('.');
    const tampered = `${parts[0]}.${b64url({ ...decodeJwt(acc.account_access), sub: 'acc-other' })}.${parts[2]}`;
    for (const token of ['abc', 'a.b.c', 'a.b', '...', `${acc.account_access}x`, `${parts[0]}.${parts[1]}`, tampered, `${parts[0]}.${parts[1]}.`]) {
      expectInvalidToken(await get('/api/farms/', bearer(token)));
    }
    for (const auth of ['Bearer', 'Bearer ', `Basic ${Buffer.from('u:p').toString('base64')}`, acc.account_access, `Token ${acc.account_access}`, `Bearer ${acc.account_access} extra`]) {
      expectInvalidToken(await get('/api/farms/', { authorization: auth }));
    }
  });

  it('a token forged with another secret', async () => {
    const forged = await new SignJWT({ org: org.organization_id, typ: 'account_access' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(acc.id).setIssuedAt().setExpirationTime('1h')
      .sign(new TextEncoder().encode('not-the-service-secret-0123456789abcdef'));
    expectInvalidToken(await get('/api/farms/', bearer(forged)));
  });

  it("alg 'none', HS512 and RS256-looking headers are all refused", async () => {
    const payload = accountPayload(acc, org);
    const none = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(payload)}.`;
    expectInvalidToken(await get('/api/farms/', bearer(none)));
    const noneWithSig = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(payload)}.${acc.account_access.split('.')[2]}`;
    expectInvalidToken(await get('/api/farms/', bearer(noneWithSig)));

    // Signed with the real secret but another HMAC algorithm.
    const hs512 = await new SignJWT({ org: org.organization_id, typ: 'account_access' })
      .setProtectedHeader({ alg: 'HS512', typ: 'JWT' }).setSubject(acc.id).setIssuedAt().setExpirationTime('1h').sign(secret);
    expectInvalidToken(await get('/api/farms/', bearer(hs512)));

    // Algorithm confusion: an RS256 header over an HMAC-SHA256 signature made with the real secret.
    const { createHmac } = await import('node:crypto');
    const head = `${b64url({ alg: 'RS256', typ: 'JWT' })}.${b64url(payload)}`;
    const rs256 = `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
    expectInvalidToken(await get('/api/farms/', bearer(rs256)));
  });

  it('a correctly signed token that is not an account_access token, or lacks exp', async () => {
    const wrongTyp = await new SignJWT({ org: org.organization_id, typ: 'refresh' })
      .setProtectedHeader({ alg: 'HS256' }).setSubject(acc.id).setIssuedAt().setExpirationTime('1h').sign(secret);
    expectInvalidToken(await get('/api/farms/', bearer(wrongTyp)));
    const noExp = await new SignJWT({ org: org.organization_id, typ: 'account_access' })
      .setProtectedHeader({ alg: 'HS256' }).setSubject(acc.id).setIssuedAt().sign(secret);
    expectInvalidToken(await get('/api/farms/', bearer(noExp)));
    const noSub = await new SignJWT({ org: org.organization_id, typ: 'account_access' })
      .setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('1h').sign(secret);
    expectInvalidToken(await get('/api/farms/', bearer(noSub)));
  });

  it('the account_access JWT sent as x-api-key is an error, with or without the account header', async () => {
    expectInvalidToken(await get('/api/farms/', { 'x-api-key': acc.account_access }));
    expectInvalidToken(await get('/api/farms/', { 'x-api-key': acc.account_access, 'service-account': acc.id }));
    const create = await svc.app.inject({ method: 'POST', url: '/api/accounts/', headers: { 'x-api-key': acc.account_access }, payload: { account_email: 'n@example.com' } });
    expectInvalidToken(create);
    expect(storeCounts(svc.db).accounts).toBe(1);
  });

  it('a bad token on a write creates nothing', async () => {
    const before = storeCounts(svc.db);
    const res = await svc.app.inject({ method: 'POST', url: '/api/farms/', headers: bearer('abc.def.ghi'), payload: { farm: { name: 'X' }, parcels: [polygonParcel('p')] } });
    expectInvalidToken(res);
    expect(storeCounts(svc.db)).toEqual(before);
  });
});

describe('POST /api/accounts/{id}/token/', () => {
  it('issues a fresh account_access valid exactly 3 hours, usable as Bearer', async () => {
    const org = newOrg(svc);
    const acc = await newAccount(svc, org);
    await newFarm(svc, org, acc, 'Mine');
    const before = nowS();
    const res = await svc.app.inject({ method: 'POST', url: `/api/accounts/${acc.id}/token/`, headers: { 'x-api-key': org.api_key } });
    expect(res.statusCode).toBe(200);
    const { account_access, expires_at } = res.json() as { account_access: string; expires_at: string };
    const claims = decodeJwt(account_access);
    expect(decodeProtectedHeader(account_access).alg).toBe('HS256');
    expect(claims.exp! - claims.iat!).toBe(10_800);
    expect(claims.iat!).toBeGreaterThanOrEqual(before - 1);
    expect(claims.iat!).toBeLessThanOrEqual(nowS() + 1);
    expect(claims.sub).toBe(acc.id);
    expect(new Date(expires_at).getTime()).toBe(claims.exp! * 1000);
    expect(farmNames(await get('/api/farms/', bearer(account_access)))).toEqual(['Mine']);
    // The token from account creation is 3 hours too.
    const first = decodeJwt(acc.account_access);
    expect(first.exp! - first.iat!).toBe(10_800);
  });

  it('is refused with a bearer token (even its own), for a deactivated account, and for another organization', async () => {
    const org = newOrg(svc);
    const acc = await newAccount(svc, org);
    const own = await svc.app.inject({ method: 'POST', url: `/api/accounts/${acc.id}/token/`, headers: asBearer(acc) });
    expect(own.statusCode).toBe(403);
    expect(body(own).code).toBe('forbidden');
    expect(JSON.stringify(own.json())).not.toMatch(/eyJ/);

    const other = newOrg(svc, 'Other');
    expectAccountNotFound(await svc.app.inject({ method: 'POST', url: `/api/accounts/${acc.id}/token/`, headers: { 'x-api-key': other.api_key } }));
    expectAccountNotFound(await svc.app.inject({ method: 'POST', url: `/api/accounts/acc-${randomUUID()}/token/`, headers: { 'x-api-key': org.api_key } }));

    expect((await svc.app.inject({ method: 'DELETE', url: `/api/accounts/${acc.id}/`, headers: { 'x-api-key': org.api_key } })).statusCode).toBe(204);
    expectAccountNotFound(await svc.app.inject({ method: 'POST', url: `/api/accounts/${acc.id}/token/`, headers: { 'x-api-key': org.api_key } }));
  });
});
