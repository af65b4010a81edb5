// The spec's exact 'Account not found': an unknown, foreign, deactivated or purged account in the Service-Account header
// or behind a bearer token.
import { beforeEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import {
  newOrg, newAccount, newFarm, asAccount, asBearer, polygonParcel, storeCounts,
  type Org, type Account,
} from '../test/helpers/service.ts';
import { signAccountAccess } from './store/tokens.ts';
import { svc, useServicePerTest, get, expectAccountNotFound, bearer, signAs, accountPayload } from './auth.test-helpers.ts';

useServicePerTest();

describe("'Account not found'", () => {
  let org: Org;
  let acc: Account;
  beforeEach(async () => {
    org = await newOrg(svc);
    acc = await newAccount(svc, org);
    await newFarm(svc, org, acc, 'Kept', [polygonParcel('p')]);
  });

  it('an unknown id in the account header', async () => {
    for (const id of [`acc-${randomUUID()}`, 'nope', acc.id.toUpperCase(), `${acc.id}x`]) {
      expectAccountNotFound(await get('/api/farms/', { 'x-api-key': org.api_key, 'service-account': id }));
    }
    const before = await storeCounts(svc);
    const res = await svc.app.inject({
      method: 'POST', url: '/api/farms/', headers: { 'x-api-key': org.api_key, 'service-account': `acc-${randomUUID()}` }, payload: { farm: { name: 'X' } },
    });
    expectAccountNotFound(res);
    expect(await storeCounts(svc)).toEqual(before);
  });

  it("another organization's account in the header is indistinguishable from an unknown one", async () => {
    const other = await newOrg(svc, 'Other');
    expectAccountNotFound(await get('/api/farms/', { 'x-api-key': other.api_key, 'service-account': acc.id }));
    const res = await svc.app.inject({ method: 'POST', url: '/api/farms/', headers: { 'x-api-key': other.api_key, 'service-account': acc.id }, payload: { farm: { name: 'X' } } });
    expectAccountNotFound(res);
    expect((await storeCounts(svc)).farms).toBe(1);
  });

  it('a deactivated account: with the header and with its bearer token', async () => {
    const del = await svc.app.inject({ method: 'DELETE', url: `/api/accounts/${acc.id}/`, headers: { 'x-api-key': org.api_key } });
    expect(del.statusCode).toBe(204);
    expectAccountNotFound(await get('/api/farms/', asAccount(org, acc)));
    expectAccountNotFound(await get('/api/farms/', asBearer(acc)));
    expectAccountNotFound(await svc.app.inject({ method: 'POST', url: '/api/farms/', headers: asBearer(acc), payload: { farm: { name: 'X' } } }));
    // A freshly signed, unexpired token for it (of its current epoch) is refused too.
    const { token } = await signAccountAccess(svc.store, acc.id);
    expectAccountNotFound(await get('/api/farms/', bearer(token)));
  });

  it('a deleted (purged) account: with the header and with its bearer token', async () => {
    expect((await svc.app.inject({ method: 'DELETE', url: `/api/accounts/${acc.id}/`, headers: { 'x-api-key': org.api_key } })).statusCode).toBe(204);
    await svc.store.accounts.purge(org.organization_id, acc.id);
    expectAccountNotFound(await get('/api/farms/', asAccount(org, acc)));
    expectAccountNotFound(await get('/api/farms/', asBearer(acc)));
    expectAccountNotFound(await get(`/api/accounts/${acc.id}/`, { 'x-api-key': org.api_key }));
  });

  it('a token whose organization claim does not match its account is refused', async () => {
    // Properly signed by the other organization, for an account that is not its own.
    const other = await newOrg(svc, 'Other');
    const token = await signAs(other.organization_id, accountPayload(acc, other));
    expectAccountNotFound(await get('/api/farms/', bearer(token)));
  });
});
