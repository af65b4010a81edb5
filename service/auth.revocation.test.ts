// Revoking account_access tokens: through the API key that asked for them, the account's epoch (deactivate,
// reactivate, revoke-tokens --account), and the organization's signing keys (rotation, revoke-all). Tokens signed
// before migration 005 are refused: store/sqlite/migration-005.test.ts.
import { describe, expect, it } from 'vitest';
import { SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { newOrg, newAccount, asBearer, type Org, type Account } from '../test/helpers/service.ts';
import { signAccountAccess } from './store/tokens.ts';
import { useManualClock } from '../test/helpers/clock.ts';
import { svc, useServicePerTest, get, expectInvalidToken, expectAccountNotFound, bearer, nowS, accountPayload, signAs } from './auth.test-helpers.ts';

useServicePerTest();

const works = async (token: string) => (await get('/api/farms/', bearer(token))).statusCode === 200;
async function issue(org: Org, acc: Account, apiKey = org.api_key): Promise<string> {
  const res = await svc.app.inject({ method: 'POST', url: `/api/accounts/${acc.id}/token/`, headers: { 'x-api-key': apiKey } });
  expect(res.statusCode).toBe(200);
  return (res.json() as { account_access: string }).account_access;
}
const deactivate = async (org: Org, acc: Account) =>
  expect((await svc.app.inject({ method: 'DELETE', url: `/api/accounts/${acc.id}/`, headers: { 'x-api-key': org.api_key } })).statusCode).toBe(204);

describe('bound to the API key that asked for it', () => {
  it("revoking the key refuses every token it issued; another key's tokens and the operator's keep working", async () => {
    const org = await newOrg(svc);
    const acc = await newAccount(svc, org); // its account_access was issued with org.api_key
    const second = (await svc.store.apiKeys.create(org.organization_id, 'second')).api_key;
    const viaFirst = await issue(org, acc);
    const viaSecond = await issue(org, acc, second);
    const operator = (await signAccountAccess(svc.store, acc.id)).token; // the CLI's: no key
    expect(decodeJwt(operator).key).toBeUndefined();
    for (const t of [acc.account_access, viaFirst, viaSecond, operator]) expect(await works(t)).toBe(true);

    await svc.store.apiKeys.revoke(org.organization_id, (await svc.store.apiKeys.list(org.organization_id))[0]!.prefix);
    expectInvalidToken(await get('/api/farms/', bearer(acc.account_access)));
    expectInvalidToken(await get('/api/farms/', bearer(viaFirst)));
    expect(await works(viaSecond)).toBe(true);
    expect(await works(operator)).toBe(true);
  });

  it("a key claim naming another organization's key, or a key that does not exist, is refused", async () => {
    const org = await newOrg(svc);
    const acc = await newAccount(svc, org);
    const other = await newOrg(svc, 'Other');
    const otherKeyId = (await svc.store.apiKeys.findActive(other.api_key))!.id;
    expectInvalidToken(await get('/api/farms/', bearer(await signAs(org.organization_id, { ...accountPayload(acc, org), key: otherKeyId }))));
    expectInvalidToken(await get('/api/farms/', bearer(await signAs(org.organization_id, { ...accountPayload(acc, org), key: 999_999 }))));
  });
});

describe("bound to the account's epoch", () => {
  it('deactivation then reactivation: no token issued before comes back; fresh ones work', async () => {
    const org = await newOrg(svc);
    const acc = await newAccount(svc, org);
    const issued = await issue(org, acc);
    await deactivate(org, acc);
    expectAccountNotFound(await get('/api/farms/', bearer(issued)));
    // A token signed while deactivated (the operator's CLI can) is dead after reactivation too.
    const whileDeactivated = (await signAccountAccess(svc.store, acc.id)).token;
    await svc.store.accounts.reactivate(org.organization_id, acc.id);
    for (const t of [acc.account_access, issued, whileDeactivated]) expectInvalidToken(await get('/api/farms/', bearer(t)));
    const fresh = await issue(org, acc);
    expect(decodeJwt(fresh).ep).toBe(2);
    expect(await works(fresh)).toBe(true);
  });

  it("revoke-tokens for one account refuses its tokens only; the account and its API-key access go on", async () => {
    const org = await newOrg(svc);
    const acc = await newAccount(svc, org);
    const neighbour = await newAccount(svc, org);
    await svc.store.accounts.revokeTokens(org.organization_id, acc.id);
    expectInvalidToken(await get('/api/farms/', asBearer(acc)));
    expect(await works(neighbour.account_access)).toBe(true);
    expect((await get('/api/farms/', { 'x-api-key': org.api_key, 'service-account': acc.id })).statusCode).toBe(200);
    expect(await works(await issue(org, acc))).toBe(true);
  });
});

describe("the organization's signing keys", () => {
  it("a rotation signs new tokens with a new kid; the previous key's tokens work until they expire", async () => {
    const org = await newOrg(svc);
    const acc = await newAccount(svc, org);
    const before = await svc.store.signingKeys.current(org.organization_id);
    expect(decodeProtectedHeader(acc.account_access).kid).toBe(before.kid);
    const { kid } = await svc.store.signingKeys.rotate(org.organization_id);
    expect(kid).not.toBe(before.kid);
    const fresh = await issue(org, acc);
    expect(decodeProtectedHeader(fresh).kid).toBe(kid);
    expect(await works(fresh)).toBe(true);
    expect(await works(acc.account_access)).toBe(true); // the grace: signed before the rotation
    const keys = await svc.store.signingKeys.list(org.organization_id);
    expect(keys.map((k) => k.kid)).toEqual([kid, before.kid]);
    expect(Date.parse(keys[1]!.verifies_until!) - Date.parse(keys[1]!.retired!)).toBe(3 * 3600 * 1000);
    // A token the retired key signs after its retirement (a stolen secret) is refused.
    const late = await new SignJWT({ ...accountPayload(acc, org), iat: nowS() + 2, exp: nowS() + 3600 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: before.kid }).sign(before.secret);
    expectInvalidToken(await get('/api/farms/', bearer(late)));
  });

  it("revoke-all refuses every account token of the organization at once, and no other organization's", async () => {
    const org = await newOrg(svc);
    const a1 = await newAccount(svc, org);
    const a2 = await newAccount(svc, org);
    const issued = await issue(org, a1);
    await svc.store.signingKeys.rotate(org.organization_id); // a retired key with live tokens goes too
    const afterRotation = await issue(org, a2);
    const other = await newOrg(svc, 'Other');
    const outsider = await newAccount(svc, other);

    const { revoked_keys } = await svc.store.signingKeys.rotate(org.organization_id, { revoke: true });
    expect(revoked_keys).toBe(2);
    for (const t of [a1.account_access, a2.account_access, issued, afterRotation]) expectInvalidToken(await get('/api/farms/', bearer(t)));
    expect(await works(outsider.account_access)).toBe(true);
    expect(await works(await issue(org, a1))).toBe(true);
    expect(await svc.store.signingKeys.list(org.organization_id)).toHaveLength(1);
  });

  it('a retired key is forgotten once every token it signed has expired', async () => {
    const org = await newOrg(svc);
    const old = await svc.store.signingKeys.current(org.organization_id);
    // Retired 4 hours ago (the store's clock): every token it signed has expired by now.
    const clock = useManualClock(new Date(Date.now() - 4 * 3600 * 1000).toISOString());
    await svc.store.signingKeys.rotate(org.organization_id);
    clock.advance(4 * 3600 * 1000);
    await svc.store.signingKeys.rotate(org.organization_id);
    expect((await svc.store.signingKeys.list(org.organization_id)).map((k) => k.kid)).not.toContain(old.kid);
    expect(await svc.store.signingKeys.list(org.organization_id)).toHaveLength(2);
  });
});
