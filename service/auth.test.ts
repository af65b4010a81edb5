// Authentication and isolation: API key (organization scope), API key + Service-Account (one account),
// Bearer account_access (one account), the spec's exact messages 'Invalid token' and 'Account not found',
// and that credentials are stored hashed and never logged.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync, existsSync } from 'node:fs';
import { Writable } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import type { LightMyRequestResponse } from 'fastify';
import {
  startService, newOrg, newAccount, newFarm, asAccount, asBearer, polygonParcel, storeCounts, body,
  type TestService, type Org, type Account,
} from '../test/helpers/service.ts';
import { buildApp } from './app.ts';
import { dbFile } from './config.ts';
import { jwtSecret, signAccountAccess, ACCESS_TOKEN_TTL_SECONDS } from './store/tokens.ts';
import { createApiKey, listApiKeys, revokeApiKey } from './store/organizations.ts';
import { purgeAccount } from './store/accounts.ts';
import { importPlants } from './store/plants.ts';

let svc: TestService;
beforeEach(async () => {
  svc = await startService();
});
afterEach(async () => {
  await svc.close();
});

const get = (url: string, headers: Record<string, string> = {}) => svc.app.inject({ method: 'GET', url, headers });

function expectInvalidToken(res: LightMyRequestResponse): void {
  expect(res.statusCode).toBe(401);
  const b = body(res);
  expect(b.message).toBe('Invalid token');
  expect(b.detail).toBe('Invalid token');
  expect(b.code).toBe('invalid_token');
}
function expectAccountNotFound(res: LightMyRequestResponse): void {
  expect(res.statusCode).toBe(403);
  const b = body(res);
  expect(b.message).toBe('Account not found');
  expect(b.detail).toBe('Account not found');
  expect(b.code).toBe('account_not_found');
}

const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const nowS = () => Math.floor(Date.now() / 1000);
const accountPayload = (acc: Account, org: Org) => ({ org: org.organization_id, typ: 'account_access', sub: acc.id, iat: nowS(), exp: nowS() + 3600 });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const farmNames = (res: LightMyRequestResponse) => (res.json() as { name: string }[]).map((f) => f.name).sort();

describe('missing and wrong credentials', () => {
  it('no credentials at all: 401 not_authenticated, on reads and writes', async () => {
    for (const [method, url] of [['GET', '/api/farms/'], ['GET', '/api/accounts/'], ['POST', '/api/accounts/'], ['GET', '/api/billing/'], ['GET', '/api/parcels/']] as const) {
      const res = await svc.app.inject({ method, url, ...(method === 'POST' ? { payload: { account_email: 'x@example.com' } } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(body(res).code).toBe('not_authenticated');
    }
    expect(storeCounts(svc.db).accounts).toBe(0);
  });

  it('an unknown API key: 401 invalid_api_key', async () => {
    newOrg(svc);
    for (const key of ['fk_00000000_nope', 'nope', ' ']) {
      const res = await get('/api/farms/', { 'x-api-key': key });
      expect(res.statusCode, key).toBe(401);
      expect(body(res).code).toBe('invalid_api_key');
    }
  });

  it('a revoked API key stops working at once; another key of the organization keeps working', async () => {
    const org = newOrg(svc);
    const second = createApiKey(svc.db, org.organization_id, 'second');
    expect((await get('/api/farms/', { 'x-api-key': second.api_key })).statusCode).toBe(200);
    const initial = listApiKeys(svc.db, org.organization_id).find((k) => k.label === 'initial')!;
    revokeApiKey(svc.db, org.organization_id, initial.prefix);
    const res = await get('/api/farms/', { 'x-api-key': org.api_key });
    expect(res.statusCode).toBe(401);
    expect(body(res).code).toBe('invalid_api_key');
    expect((await get('/api/farms/', { 'x-api-key': second.api_key })).statusCode).toBe(200);
  });

  it('API keys are stored hashed: the plaintext is in neither the database file nor its WAL', async () => {
    const org = newOrg(svc);
    const extra = createApiKey(svc.db, org.organization_id, 'extra');
    // Use the keys once so any lookup path has run too.
    expect((await get('/api/farms/', { 'x-api-key': org.api_key })).statusCode).toBe(200);
    expect((await get('/api/farms/', { 'x-api-key': extra.api_key })).statusCode).toBe(200);
    const rows = svc.db.prepare('SELECT * FROM api_keys').all() as Record<string, unknown>[];
    expect(rows).toHaveLength(2);
    for (const r of rows) for (const v of Object.values(r)) {
      expect(String(v)).not.toContain(org.api_key);
      expect(String(v)).not.toContain(extra.api_key);
    }
    const file = dbFile(svc.dir);
    for (const f of [file, `${file}-wal`]) {
      if (!existsSync(f)) continue;
      const bytes = readFileSync(f).toString('latin1');
      expect(bytes).not.toContain(org.api_key);
      expect(bytes).not.toContain(extra.api_key);
      // The secret half of the key must not be there on its own either.
      expect(bytes).not.toContain(org.api_key.split('_').slice(2).join('_'));
    }
    svc.db.pragma('wal_checkpoint(TRUNCATE)');
    expect(readFileSync(file).toString('latin1')).not.toContain(org.api_key);
  });

  it('sending both x-api-key and Authorization is refused, and nothing is created', async () => {
    const org = newOrg(svc);
    const acc = await newAccount(svc, org);
    const before = storeCounts(svc.db);
    const res = await svc.app.inject({
      method: 'POST', url: '/api/farms/', headers: { ...asAccount(org, acc), ...asBearer(acc) }, payload: { farm: { name: 'F' }, parcels: [] },
    });
    expect(res.statusCode).toBe(400);
    expect(storeCounts(svc.db)).toEqual(before);
  });
});

describe('the three ways to act', () => {
  it('x-api-key alone acts for the organization: sees every active account, but cannot create a farm without an account', async () => {
    const org = newOrg(svc);
    const a1 = await newAccount(svc, org);
    const a2 = await newAccount(svc, org);
    await newFarm(svc, org, a1, 'One');
    await newFarm(svc, org, a2, 'Two');
    const list = await get('/api/farms/', { 'x-api-key': org.api_key });
    expect(list.statusCode).toBe(200);
    expect(farmNames(list)).toEqual(['One', 'Two']);

    const accounts = await get('/api/accounts/', { 'x-api-key': org.api_key });
    expect((accounts.json() as { id: string }[]).map((a) => a.id).sort()).toEqual([a1.id, a2.id].sort());

    const before = storeCounts(svc.db);
    const res = await svc.app.inject({ method: 'POST', url: '/api/farms/', headers: { 'x-api-key': org.api_key }, payload: { farm: { name: 'X' }, parcels: [] } });
    expect(res.statusCode).toBe(400);
    expect(body(res).code).toBe('account_required');
    expect(storeCounts(svc.db)).toEqual(before);
  });

  it('x-api-key + Service-Account narrows to that one account, reads and writes', async () => {
    const org = newOrg(svc);
    const a1 = await newAccount(svc, org);
    const a2 = await newAccount(svc, org);
    const f1 = await newFarm(svc, org, a1, 'One', [polygonParcel('p1')]);
    const f2 = await newFarm(svc, org, a2, 'Two', [polygonParcel('p2')]);
    expect(farmNames(await get('/api/farms/', asAccount(org, a1)))).toEqual(['One']);
    expect(farmNames(await get('/api/farms/', asAccount(org, a2)))).toEqual(['Two']);
    expect((await get(`/api/farms/${f2.id}/`, asAccount(org, a1))).statusCode).toBe(404);
    expect((await get(`/api/parcels/${f2.parcels[0]!.id}/`, asAccount(org, a1))).statusCode).toBe(404);
    expect((await get(`/api/farms/${f1.id}/`, asAccount(org, a1))).statusCode).toBe(200);
    // The header name is case-insensitive like every HTTP header.
    expect(farmNames(await get('/api/farms/', { 'x-api-key': org.api_key, 'Service-Account': a2.id }))).toEqual(['Two']);
    const created = (await svc.app.inject({ method: 'POST', url: '/api/farms/', headers: asAccount(org, a2), payload: { farm: { name: 'Three' } } })).json() as { account: string };
    expect(created.account).toBe(a2.id);
  });

  it('Authorization: Bearer reaches only its own account\'s data', async () => {
    const org = newOrg(svc);
    const a1 = await newAccount(svc, org);
    const a2 = await newAccount(svc, org);
    const f1 = await newFarm(svc, org, a1, 'One', [polygonParcel('p1')]);
    const f2 = await newFarm(svc, org, a2, 'Two', [polygonParcel('p2')]);
    const crop2 = await svc.app.inject({ method: 'POST', url: '/api/crops/', headers: asAccount(org, a2), payload: { parcel: f2.parcels[0]!.id, name: 'Wheat' } });
    expect(crop2.statusCode).toBe(201);
    const crop2Id = (crop2.json() as { id: number }).id;

    expect(farmNames(await get('/api/farms/', asBearer(a1)))).toEqual(['One']);
    expect((await get(`/api/farms/${f1.id}/`, asBearer(a1))).statusCode).toBe(200);
    expect((await get(`/api/farms/${f1.id}/parcels/`, asBearer(a1))).statusCode).toBe(200);
    const parcels = (await get('/api/parcels/', asBearer(a1))).json() as { features: { id: number }[] };
    expect(parcels.features.map((f) => f.id)).toEqual([f1.parcels[0]!.id]);

    const before = storeCounts(svc.db);
    expect((await get(`/api/farms/${f2.id}/`, asBearer(a1))).statusCode).toBe(404);
    expect((await get(`/api/farms/${f2.id}/parcels/`, asBearer(a1))).statusCode).toBe(404);
    expect((await get(`/api/parcels/${f2.parcels[0]!.id}/`, asBearer(a1))).statusCode).toBe(404);
    expect((await get(`/api/crops/${crop2Id}/`, asBearer(a1))).statusCode).toBe(404);
    expect((await svc.app.inject({ method: 'PATCH', url: `/api/farms/${f2.id}/`, headers: asBearer(a1), payload: { name: 'Mine' } })).statusCode).toBe(404);
    expect((await svc.app.inject({ method: 'DELETE', url: `/api/farms/${f2.id}/`, headers: asBearer(a1) })).statusCode).toBe(404);
    expect((await svc.app.inject({ method: 'DELETE', url: `/api/parcels/${f2.parcels[0]!.id}/`, headers: asBearer(a1) })).statusCode).toBe(404);
    expect((await svc.app.inject({ method: 'DELETE', url: `/api/crops/${crop2Id}/`, headers: asBearer(a1) })).statusCode).toBe(404);
    const into = await svc.app.inject({ method: 'POST', url: '/api/parcels/', headers: asBearer(a1), payload: { farm: { id: f2.id }, parcels: [polygonParcel('intruder')] } });
    expect(into.statusCode).toBe(404);
    expect(storeCounts(svc.db)).toEqual(before);
    expect((await get(`/api/farms/${f2.id}/`, asAccount(org, a2))).json()).toMatchObject({ name: 'Two', parcel_count: 1 });

    // Accounts: the token sees itself only and cannot manage accounts.
    const accounts = (await get('/api/accounts/', asBearer(a1))).json() as { id: string }[];
    expect(accounts.map((a) => a.id)).toEqual([a1.id]);
    expectAccountNotFound(await get(`/api/accounts/${a2.id}/`, asBearer(a1)));
    const del = await svc.app.inject({ method: 'DELETE', url: `/api/accounts/${a2.id}/`, headers: asBearer(a1) });
    expect(del.statusCode).toBe(403);
    const create = await svc.app.inject({ method: 'POST', url: '/api/accounts/', headers: asBearer(a1), payload: { account_email: 'new@example.com' } });
    expect(create.statusCode).toBe(403);
    expect(body(create).code).toBe('forbidden');
    expect(storeCounts(svc.db).accounts).toBe(2);
  });

  it('a bearer token naming another account in Service-Account is refused with Account not found', async () => {
    const org = newOrg(svc);
    const a1 = await newAccount(svc, org);
    const a2 = await newAccount(svc, org);
    expectAccountNotFound(await get('/api/farms/', { ...asBearer(a1), 'service-account': a2.id }));
    expect((await get('/api/farms/', { ...asBearer(a1), 'service-account': a1.id })).statusCode).toBe(200);
  });
});

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

describe("'Account not found'", () => {
  let org: Org;
  let acc: Account;
  beforeEach(async () => {
    org = newOrg(svc);
    acc = await newAccount(svc, org);
    await newFarm(svc, org, acc, 'Kept', [polygonParcel('p')]);
  });

  it('an unknown id in the account header', async () => {
    for (const id of [`acc-${randomUUID()}`, 'nope', acc.id.toUpperCase(), `${acc.id}x`]) {
      expectAccountNotFound(await get('/api/farms/', { 'x-api-key': org.api_key, 'service-account': id }));
    }
    const before = storeCounts(svc.db);
    const res = await svc.app.inject({
      method: 'POST', url: '/api/farms/', headers: { 'x-api-key': org.api_key, 'service-account': `acc-${randomUUID()}` }, payload: { farm: { name: 'X' } },
    });
    expectAccountNotFound(res);
    expect(storeCounts(svc.db)).toEqual(before);
  });

  it("another organization's account in the header is indistinguishable from an unknown one", async () => {
    const other = newOrg(svc, 'Other');
    expectAccountNotFound(await get('/api/farms/', { 'x-api-key': other.api_key, 'service-account': acc.id }));
    const res = await svc.app.inject({ method: 'POST', url: '/api/farms/', headers: { 'x-api-key': other.api_key, 'service-account': acc.id }, payload: { farm: { name: 'X' } } });
    expectAccountNotFound(res);
    expect((svc.db.prepare('SELECT COUNT(*) AS n FROM farms').get() as { n: number }).n).toBe(1);
  });

  it('a deactivated account: with the header and with its bearer token', async () => {
    const del = await svc.app.inject({ method: 'DELETE', url: `/api/accounts/${acc.id}/`, headers: { 'x-api-key': org.api_key } });
    expect(del.statusCode).toBe(204);
    expectAccountNotFound(await get('/api/farms/', asAccount(org, acc)));
    expectAccountNotFound(await get('/api/farms/', asBearer(acc)));
    expectAccountNotFound(await svc.app.inject({ method: 'POST', url: '/api/farms/', headers: asBearer(acc), payload: { farm: { name: 'X' } } }));
    // A freshly signed, unexpired token for it is refused too.
    const { token } = await signAccountAccess(jwtSecret(svc.db), acc.id, org.organization_id);
    expectAccountNotFound(await get('/api/farms/', bearer(token)));
  });

  it('a deleted (purged) account: with the header and with its bearer token', async () => {
    expect((await svc.app.inject({ method: 'DELETE', url: `/api/accounts/${acc.id}/`, headers: { 'x-api-key': org.api_key } })).statusCode).toBe(204);
    purgeAccount(svc.db, org.organization_id, acc.id);
    expectAccountNotFound(await get('/api/farms/', asAccount(org, acc)));
    expectAccountNotFound(await get('/api/farms/', asBearer(acc)));
    expectAccountNotFound(await get(`/api/accounts/${acc.id}/`, { 'x-api-key': org.api_key }));
  });

  it('a token whose organization claim does not match its account is refused', async () => {
    const other = newOrg(svc, 'Other');
    const { token } = await signAccountAccess(jwtSecret(svc.db), acc.id, other.organization_id);
    expectAccountNotFound(await get('/api/farms/', bearer(token)));
  });
});

describe('organizations are fully isolated', () => {
  it("org B's key cannot read, change or delete org A's farms, parcels, crops, plants or accounts", async () => {
    const a = newOrg(svc, 'A');
    const b = newOrg(svc, 'B');
    const accA = await newAccount(svc, a, 'shared@example.com');
    const accB = await newAccount(svc, b, 'shared@example.com');
    await newFarm(svc, b, accB, 'B farm', [polygonParcel('b1', 2.0, 41.0)]);
    const farmA = await newFarm(svc, a, accA, 'A farm', [polygonParcel('a1'), polygonParcel('a2', -4.7, 37.9)]);
    const parcelA = farmA.parcels[0]!.id;
    const cropRes = await svc.app.inject({ method: 'POST', url: '/api/crops/', headers: asAccount(a, accA), payload: { parcel: parcelA, name: 'Olive' } });
    expect(cropRes.statusCode).toBe(201);
    const cropA = (cropRes.json() as { id: number }).id;
    importPlants(svc.db, a.organization_id, accA.id, {
      type: 'FeatureCollection', features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [-4.78, 37.88] }, properties: { info: { tag: 'A-tree' } } }],
    });
    const plantA = (svc.db.prepare('SELECT id, parcel_id FROM plants').get() as { id: number; parcel_id: number });
    expect(plantA.parcel_id).toBe(parcelA);
    // Org A itself sees all of it (the control).
    expect((await get(`/api/plants/${plantA.id}/`, { 'x-api-key': a.api_key })).statusCode).toBe(200);
    expect((await get(`/api/crops/${cropA}/`, { 'x-api-key': a.api_key })).statusCode).toBe(200);

    const before = storeCounts(svc.db);
    const snapshot = () => ({
      farms: svc.db.prepare('SELECT * FROM farms ORDER BY id').all(),
      parcels: svc.db.prepare('SELECT * FROM parcels ORDER BY id').all(),
      crops: svc.db.prepare('SELECT * FROM crops ORDER BY id').all(),
      accounts: svc.db.prepare('SELECT * FROM accounts ORDER BY id').all(),
    });
    const snap = snapshot();

    for (const headers of [{ 'x-api-key': b.api_key }, asAccount(b, accB), asBearer(accB)]) {
      const via = JSON.stringify(Object.keys(headers));
      const req = (method: 'GET' | 'PATCH' | 'DELETE' | 'POST', url: string, payload?: unknown) =>
        svc.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
      // Reads
      expect((await req('GET', `/api/farms/${farmA.id}/`)).statusCode, via).toBe(404);
      expect((await req('GET', `/api/farms/${farmA.id}/parcels/`)).statusCode, via).toBe(404);
      expect((await req('GET', `/api/parcels/${parcelA}/`)).statusCode, via).toBe(404);
      expect((await req('GET', `/api/parcels/${parcelA}/crops/`)).statusCode, via).toBe(404);
      expect((await req('GET', `/api/parcels/${parcelA}/plants/`)).statusCode, via).toBe(404);
      expect((await req('GET', `/api/crops/${cropA}/`)).statusCode, via).toBe(404);
      expect((await req('GET', `/api/plants/${plantA.id}/`)).statusCode, via).toBe(404);
      expect(farmNames(await req('GET', '/api/farms/'))).toEqual(['B farm']);
      const parcels = (await req('GET', '/api/parcels/')).json() as { features: { properties: { name: string } }[] };
      expect(parcels.features.map((f) => f.properties.name)).toEqual(['b1']);
      expect(((await req('GET', `/api/parcels/?farm=${farmA.id}`)).statusCode)).toBe(404);
      expect(((await req('GET', '/api/crops/')).json() as { count: number }).count).toBe(0);
      expect(((await req('GET', '/api/plants/')).json() as { features: unknown[] }).features).toEqual([]);
      expect(((await req('GET', '/api/plants/?search=A-tree')).json() as { features: unknown[] }).features).toEqual([]);
      const accounts = (await req('GET', '/api/accounts/')).json() as { id: string }[];
      expect(accounts.map((x) => x.id)).toEqual([accB.id]);
      expectAccountNotFound(await req('GET', `/api/accounts/${accA.id}/`));
      // Writes
      expect((await req('PATCH', `/api/farms/${farmA.id}/`, { name: 'Stolen' })).statusCode, via).toBe(404);
      expect((await req('DELETE', `/api/farms/${farmA.id}/`)).statusCode, via).toBe(404);
      expect((await req('PATCH', `/api/parcels/${parcelA}/`, { id: parcelA, metadata: { owner: 'B' } })).statusCode, via).toBe(404);
      expect((await req('DELETE', `/api/parcels/${parcelA}/`)).statusCode, via).toBe(404);
      expect((await req('PATCH', `/api/crops/${cropA}/`, { name: 'Stolen' })).statusCode, via).toBe(404);
      expect((await req('DELETE', `/api/crops/${cropA}/`)).statusCode, via).toBe(404);
      expect((await req('POST', '/api/parcels/', { farm: { id: farmA.id }, parcels: [polygonParcel('intruder')] })).statusCode, via).toBe(404);
      const cropOnA = await req('POST', '/api/crops/', { parcel: parcelA, name: 'Intruder' });
      expect(cropOnA.statusCode, via).toBeGreaterThanOrEqual(400);
      expect(cropOnA.statusCode, via).toBeLessThan(500);
      const delAcc = await req('DELETE', `/api/accounts/${accA.id}/`);
      expect(delAcc.statusCode, via).toBe(403);
      expect((await req('POST', `/api/accounts/${accA.id}/token/`)).statusCode, via).toBe(403);
      // Billing of B knows nothing of A.
      if (!('authorization' in headers)) {
        const bill = (await req('GET', '/api/billing/')).json() as { accounts: { account: string }[] };
        expect(bill.accounts.map((x) => x.account)).toEqual([accB.id]);
      }
    }
    // Org B acting as A's account through the header.
    expectAccountNotFound(await get(`/api/farms/${farmA.id}/`, { 'x-api-key': b.api_key, 'service-account': accA.id }));

    expect(storeCounts(svc.db)).toEqual(before);
    expect(snapshot()).toEqual(snap);
    expect(((await get(`/api/farms/${farmA.id}/`, asAccount(a, accA))).json() as { name: string }).name).toBe('A farm');
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

describe('credentials never reach the logs', () => {
  it('neither the API key nor a bearer token appears in any log line, even at trace level and on errors', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const app = await buildApp({
      db: svc.db, logger: true, logStream: stream,
      config: { dataDir: svc.dir, logLevel: 'trace', gatewayTimeoutMs: 0, faults: false, publicUrl: 'http://127.0.0.1:8080', embedUrl: 'http://127.0.0.1:8080/embed' },
    });
    const secrets: string[] = [];
    try {
      const org = newOrg(svc);
      const res = await app.inject({ method: 'POST', url: '/api/accounts/', headers: { 'x-api-key': org.api_key }, payload: { account_email: 'log@example.com' } });
      expect(res.statusCode).toBe(201);
      const acc = res.json() as Account;
      secrets.push(org.api_key, acc.account_access);
      const calls: Array<Record<string, string>> = [
        { 'x-api-key': org.api_key },
        asAccount(org, acc),
        asBearer(acc),
        { 'x-api-key': acc.account_access },
        { authorization: `Bearer ${acc.account_access}x` },
        { 'x-api-key': `${org.api_key}-wrong` },
        { ...asBearer(acc), 'x-api-key': org.api_key },
        { ...asBearer(acc), cookie: `session=${acc.account_access}` },
      ];
      for (const headers of calls) {
        await app.inject({ method: 'GET', url: '/api/farms/', headers });
        await app.inject({ method: 'POST', url: '/api/farms/', headers, payload: '{"farm":' });
        await app.inject({ method: 'GET', url: '/api/farms/abc/', headers });
      }
      const fresh = await app.inject({ method: 'POST', url: `/api/accounts/${acc.id}/token/`, headers: { 'x-api-key': org.api_key } });
      secrets.push((fresh.json() as { account_access: string }).account_access);
    } finally {
      await app.close();
    }
    const log = lines.join('');
    // The capture works: request lines were logged.
    expect(log).toContain('incoming request');
    expect(lines.length).toBeGreaterThan(20);
    expect(secrets).toHaveLength(3);
    for (const secret of secrets) {
      expect(log).not.toContain(secret);
      // Not even the signature or the random half on its own.
      expect(log).not.toContain(secret.includes('.') ? secret.split('.')[2]! : secret.split('_').slice(2).join('_'));
    }
    expect(log).not.toMatch(/fk_[0-9a-f]{8}_[A-Za-z0-9_-]{20,}/);
    expect(log).not.toMatch(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/);
  });
});
