// Bearer account_access tokens: every bad one (expired, malformed, forged, wrong algorithm, type, key id or lifetime) is
// the spec's exact 'Invalid token', and POST /api/accounts/{id}/token/ issues fresh ones. Revocation: auth.revocation.test.ts.
import { beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import {
  newOrg, newAccount, newFarm, asBearer, polygonParcel, storeCounts, body,
  type Org, type Account,
} from '../test/helpers/service.ts';
import { signAccountAccess, ACCESS_TOKEN_TTL_SECONDS } from './store/tokens.ts';
import {
  svc, useServicePerTest, get, expectInvalidToken, expectAccountNotFound, b64url, nowS, accountPayload, bearer, farmNames, signAs,
} from './auth.test-helpers.ts';

useServicePerTest();

describe("'Invalid token'", () => {
  let org: Org;
  let acc: Account;
  let secret: Uint8Array;
  let kid: string;
  beforeEach(async () => {
    org = await newOrg(svc);
    acc = await newAccount(svc, org);
    await newFarm(svc, org, acc, 'Secret farm');
    ({ secret, kid } = await svc.store.signingKeys.current(org.organization_id));
  });

  it('the token from account creation works as Bearer (the control for every case below)', async () => {
    const res = await get('/api/farms/', asBearer(acc));
    expect(res.statusCode).toBe(200);
    expect(farmNames(res)).toEqual(['Secret farm']);
  });

  it('an expired token (issued more than 3 hours ago)', async () => {
    const { token } = await signAccountAccess(svc.store, acc.id, { nowSeconds: nowS() - ACCESS_TOKEN_TTL_SECONDS - 5 });
    expectInvalidToken(await get('/api/farms/', bearer(token)));
    const long = await signAccountAccess(svc.store, acc.id, { nowSeconds: nowS() - 24 * 3600 });
    expectInvalidToken(await get('/api/farms/', bearer(long.token)));
  });

  it('a token issued just under 3 hours ago still works', async () => {
    const { token } = await signAccountAccess(svc.store, acc.id, { nowSeconds: nowS() - ACCESS_TOKEN_TTL_SECONDS + 60 });
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

  it('a token forged with another secret, under the real kid or none', async () => {
    const other = new TextEncoder().encode('not-the-service-secret-0123456789abcdef');
    for (const header of [{ alg: 'HS256', typ: 'JWT', kid }, { alg: 'HS256', typ: 'JWT' }]) {
      const forged = await new SignJWT(accountPayload(acc, org)).setProtectedHeader(header).sign(other);
      expectInvalidToken(await get('/api/farms/', bearer(forged)));
    }
  });

  it('a token from before per-organization keys: the single secret, no kid (refused since migration 005)', async () => {
    const legacy = await new SignJWT({ org: org.organization_id, typ: 'account_access' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject(acc.id).setIssuedAt().setExpirationTime('1h').sign(secret);
    expectInvalidToken(await get('/api/farms/', bearer(legacy)));
    // Even with the real secret and every current claim, a token without its kid is refused.
    expectInvalidToken(await get('/api/farms/', bearer(await new SignJWT(accountPayload(acc, org)).setProtectedHeader({ alg: 'HS256' }).sign(secret))));
  });

  it("alg 'none', HS512 and RS256-looking headers are all refused, with the real kid", async () => {
    const payload = accountPayload(acc, org);
    // The control: the same payload, properly signed, is accepted.
    expect((await get('/api/farms/', bearer(await signAs(org.organization_id, payload)))).statusCode).toBe(200);
    const none = `${b64url({ alg: 'none', typ: 'JWT', kid })}.${b64url(payload)}.`;
    expectInvalidToken(await get('/api/farms/', bearer(none)));
    const noneWithSig = `${b64url({ alg: 'none', typ: 'JWT', kid })}.${b64url(payload)}.${acc.account_access.split('.')[2]}`;
    expectInvalidToken(await get('/api/farms/', bearer(noneWithSig)));

    // Signed with the real secret but another HMAC algorithm.
    expectInvalidToken(await get('/api/farms/', bearer(await signAs(org.organization_id, payload, { alg: 'HS512' }))));

    // Algorithm confusion: an RS256 header over an HMAC-SHA256 signature made with the real secret.
    const { createHmac } = await import('node:crypto');
    const head = `${b64url({ alg: 'RS256', typ: 'JWT', kid })}.${b64url(payload)}`;
    const rs256 = `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
    expectInvalidToken(await get('/api/farms/', bearer(rs256)));
    // An HS256 signature under a header claiming another type.
    expectInvalidToken(await get('/api/farms/', bearer(await signAs(org.organization_id, payload, { typ: 'at+jwt' }))));
  });

  it('a correctly signed token with a wrong typ, or a claim missing or of the wrong type', async () => {
    const good = accountPayload(acc, org);
    const variants: Array<[string, Record<string, unknown>]> = [
      ['typ refresh', { ...good, typ: 'refresh' }], ['typ missing', { ...good, typ: undefined }],
      ['exp missing', { ...good, exp: undefined }], ['iat missing', { ...good, iat: undefined }], ['sub missing', { ...good, sub: undefined }],
      ['org missing', { ...good, org: undefined }], ['ep missing', { ...good, ep: undefined }], ['ep text', { ...good, ep: '0' }],
      ['ep negative', { ...good, ep: -1 }], ['ep fractional', { ...good, ep: 0.5 }], ['iat fractional', { ...good, iat: nowS() + 0.5 }],
      ['sub a number', { ...good, sub: 7 }], ['key zero', { ...good, key: 0 }], ['key text', { ...good, key: '1' }],
    ];
    for (const [label, payload] of variants) {
      const res = await get('/api/farms/', bearer(await signAs(org.organization_id, JSON.parse(JSON.stringify(payload)) as Record<string, unknown>)));
      expect(res.statusCode, label).toBe(401);
      expectInvalidToken(res);
    }
  });

  it('a lifetime over 3 hours, an exp not after iat, an iat more than 60 s ahead', async () => {
    const t = nowS();
    const ok = async (iat: number, exp: number) => (await get('/api/farms/', bearer(await signAs(org.organization_id, { ...accountPayload(acc, org), iat, exp })))).statusCode;
    expect(await ok(t, t + ACCESS_TOKEN_TTL_SECONDS)).toBe(200); // exactly 3 hours
    expect(await ok(t, t + ACCESS_TOKEN_TTL_SECONDS + 1)).toBe(401);
    expect(await ok(t - 60, t + 30 * 24 * 3600)).toBe(401); // a 30-day token
    expect(await ok(t + 30, t + 30)).toBe(401); // exp = iat
    expect(await ok(t + 40, t + 20)).toBe(401); // exp before iat
    expect(await ok(t + 30, t + 3600)).toBe(200); // 30 s of clock skew
    expect(await ok(t + 90, t + 3600)).toBe(401); // issued 90 s from now
    expect(await ok(t + 24 * 3600, t + 24 * 3600 + 60)).toBe(401);
  });

  it("the kid of another organization, an unknown kid, or another organization's key under this one's kid", async () => {
    const other = await newOrg(svc, 'Other');
    const otherKey = await svc.store.signingKeys.current(other.organization_id);
    expect(otherKey.kid).not.toBe(kid);
    expect(Buffer.from(otherKey.secret).equals(Buffer.from(secret))).toBe(false);
    const payload = accountPayload(acc, org);
    // Signed by the other organization's key, claiming this organization's account.
    expectInvalidToken(await get('/api/farms/', bearer(await signAs(other.organization_id, payload))));
    // This organization's secret under the other's kid, and the other's secret under this kid.
    expectInvalidToken(await get('/api/farms/', bearer(await signAs(org.organization_id, payload, { kid: otherKey.kid }))));
    expectInvalidToken(await get('/api/farms/', bearer(await new SignJWT(payload).setProtectedHeader({ alg: 'HS256', kid }).sign(otherKey.secret))));
    for (const unknown of ['sk_nope', '', 'x'.repeat(300), "' OR 1=1 --"]) {
      expectInvalidToken(await get('/api/farms/', bearer(await signAs(org.organization_id, payload, { kid: unknown }))));
    }
    expectInvalidToken(await get('/api/farms/', bearer(await signAs(org.organization_id, payload, { kid: 7 }))));
  });

  it('the account_access JWT sent as x-api-key is an error, with or without the account header', async () => {
    expectInvalidToken(await get('/api/farms/', { 'x-api-key': acc.account_access }));
    expectInvalidToken(await get('/api/farms/', { 'x-api-key': acc.account_access, 'service-account': acc.id }));
    const create = await svc.app.inject({ method: 'POST', url: '/api/accounts/', headers: { 'x-api-key': acc.account_access }, payload: { account_email: 'n@example.com' } });
    expectInvalidToken(create);
    expect((await storeCounts(svc)).accounts).toBe(1);
  });

  it('a bad token on a write creates nothing', async () => {
    const before = await storeCounts(svc);
    const res = await svc.app.inject({ method: 'POST', url: '/api/farms/', headers: bearer('abc.def.ghi'), payload: { farm: { name: 'X' }, parcels: [polygonParcel('p')] } });
    expectInvalidToken(res);
    expect(await storeCounts(svc)).toEqual(before);
  });
});

describe('POST /api/accounts/{id}/token/', () => {
  it('issues a fresh account_access valid exactly 3 hours, usable as Bearer', async () => {
    const org = await newOrg(svc);
    const acc = await newAccount(svc, org);
    await newFarm(svc, org, acc, 'Mine');
    const before = nowS();
    const res = await svc.app.inject({ method: 'POST', url: `/api/accounts/${acc.id}/token/`, headers: { 'x-api-key': org.api_key } });
    expect(res.statusCode).toBe(200);
    const { account_access, expires_at } = res.json() as { account_access: string; expires_at: string };
    const claims = decodeJwt(account_access);
    const header = decodeProtectedHeader(account_access);
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT', kid: (await svc.store.signingKeys.current(org.organization_id)).kid });
    expect(claims.exp! - claims.iat!).toBe(10_800);
    // Bound to the account's epoch and to the API key that asked for it.
    expect(claims.ep).toBe(0);
    expect(claims.key).toBe((await svc.store.apiKeys.findActive(org.api_key))!.id);
    expect(claims.org).toBe(org.organization_id);
    expect(claims.typ).toBe('account_access');
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
    const org = await newOrg(svc);
    const acc = await newAccount(svc, org);
    const own = await svc.app.inject({ method: 'POST', url: `/api/accounts/${acc.id}/token/`, headers: asBearer(acc) });
    expect(own.statusCode).toBe(403);
    expect(body(own).code).toBe('forbidden');
    expect(JSON.stringify(own.json())).not.toMatch(/eyJ/);

    const other = await newOrg(svc, 'Other');
    expectAccountNotFound(await svc.app.inject({ method: 'POST', url: `/api/accounts/${acc.id}/token/`, headers: { 'x-api-key': other.api_key } }));
    expectAccountNotFound(await svc.app.inject({ method: 'POST', url: `/api/accounts/acc-${randomUUID()}/token/`, headers: { 'x-api-key': org.api_key } }));

    expect((await svc.app.inject({ method: 'DELETE', url: `/api/accounts/${acc.id}/`, headers: { 'x-api-key': org.api_key } })).statusCode).toBe(204);
    expectAccountNotFound(await svc.app.inject({ method: 'POST', url: `/api/accounts/${acc.id}/token/`, headers: { 'x-api-key': org.api_key } }));
  });
});
