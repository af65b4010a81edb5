// Account management through core/api.ts as the app uses it: a real mirror host process against a real local service.
// Organization mode: the organization's accounts listed, one created by e-mail and connected, deactivated after the
// preview (its farms kept and billed, or deleted first), checked over the service's own HTTP API; another
// organization's account never touched. Account mode: an expired token blocks the sync with the queue kept, a pasted
// token or one from a token provider (a real HTTP server on 127.0.0.1) resumes it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { as, serviceParcels } from '../test/helpers/engine.ts';
import { hostWorld, type HostWorld } from '../test/helpers/host.ts';
import { serviceCli } from '../test/helpers/process.ts';
import { pointParcel } from '../test/helpers/service.ts';
import { signAccountAccess } from '../service/store/tokens.ts';
import type { Store } from '../service/store/store.ts';
import { openDataDirStore } from '../test/helpers/store.ts';
import type { Host } from './launch.ts';

let hw: HostWorld;
let serviceStore: Store;
beforeAll(async () => {
  hw = await hostWorld();
  serviceStore = await openDataDirStore(join(hw.w.dir, 'service'));
}, 60_000);
afterAll(async () => {
  await serviceStore?.close();
  await hw?.close();
});

interface Bill { accounts: { account: string; state: string; farms: number; parcels: number; hectares: number }[]; orphans: { farms: number } }
const bill = async (): Promise<Bill> => (await hw.w.api('GET', '/api/billing/')).body as Bill;
const onService = async (id: string) => (await hw.w.api('GET', `/api/accounts/${id}/`)).body as { state: string };

/** A farm on the service for the account, with point parcels of these hectares. */
async function farmOnService(acc: string, name: string, hectares: number[], key?: string): Promise<number> {
  const r = await hw.w.api('POST', '/api/farms/', { farm: { name }, parcels: hectares.map((h, i) => pointParcel(`${name} ${i}`, h, -4 + i * 0.01, 37)) }, { ...as(acc), ...(key ? { 'x-api-key': key } : {}) });
  expect(r.status).toBe(201);
  return r.body.id as number;
}

/** A connected host, its organization's id in the app's API. */
async function orgHost(): Promise<{ h: Host; acc: string; org: string; home: string }> {
  const { h, acc, home } = await hw.connected();
  const [org] = await h.api.organizations({});
  return { h, acc, org: org!.id, home };
}

describe('organization mode', () => {
  it("lists the organization's accounts, creates one by e-mail and connects it; the key never leaves the backend", async () => {
    const { h, acc, org } = await orgHost();
    const other = await hw.newAccount();
    const [o] = await h.api.organizations({});
    expect(o).toMatchObject({ id: expect.stringMatching(/^org-[0-9a-f]{16}$/), service: hw.w.svc.url, method: 'api_key', problem: null });
    const listed = new Map(o!.accounts!.map((a) => [a.id, a]));
    expect(listed.get(acc)).toMatchObject({ state: 'active', connected: true });
    expect(listed.get(other)).toMatchObject({ state: 'active', connected: false });

    const before = (await hw.w.api('GET', '/api/accounts/')).body.length as number;
    await expect(h.api.createAccount({ organization: org, email: 'two words@example.com' })).rejects.toMatchObject({ code: 'invalid_email', message: expect.stringMatching(/no spaces/) });
    await expect(h.api.createAccount({ organization: 'org-0000000000000000', email: 'a@example.com' })).rejects.toMatchObject({ code: 'no_organization' });
    expect((await hw.w.api('GET', '/api/accounts/')).body).toHaveLength(before);

    const email = `new-${Date.now()}@example.com`;
    const made = await h.api.createAccount({ organization: org, email });
    expect(made.email).toBe(email);
    expect(await onService(made.account)).toMatchObject({ state: 'active', account_email: email });
    const mine = (await h.api.accounts({})).find((a) => a.id === made.account);
    expect(mine).toMatchObject({ label: email, method: 'api_key', blocked: null });
    expect((await h.api.organizations({}))[0]!.accounts!.find((a) => a.id === made.account)).toMatchObject({ email, connected: true });
    // The same address again: the service's refusal, with its own code.
    await expect(h.api.createAccount({ organization: org, email: email.toUpperCase() })).rejects.toMatchObject({ code: 'email_taken' });

    // One of the organization's accounts connected here with the key the backend holds.
    await h.api.connectOrgAccount({ organization: org, account: other });
    expect((await h.api.accounts({})).map((a) => a.id)).toContain(other);
    for (const answer of [await h.api.organizations({}), await h.api.accounts({}), await h.api.accountTokens({})]) expect(JSON.stringify(answer)).not.toContain(hw.w.apiKey);
  });

  it('previews a deactivation, refuses a stale confirmation, then deactivates: the farms stay on the service, billed, out of reach', async () => {
    const { h, org, home } = await orgHost();
    const acc = await hw.newAccount();
    await h.api.connectOrgAccount({ organization: org, account: acc });
    await farmOnService(acc, 'North', [2.5, 4]);
    await farmOnService(acc, 'South', [10]);
    expect((await h.api.sync({ account: acc }))[0]).toMatchObject({ synced: true });

    const p = await h.api.deactivation({ organization: org, account: acc });
    expect(p).toMatchObject({ account: acc, connectedHere: true, unsynced: 0, parcels: 3 });
    expect(p.farms.map((f) => [f.name, f.parcels])).toEqual([['North', 2], ['South', 1]]);
    expect(p.hectares).toBeCloseTo(16.5, 6);

    // A farm added on the service after the preview: the confirmation no longer matches, nothing is done.
    await farmOnService(acc, 'Late', [1]);
    await expect(h.api.deactivateAccount({ organization: org, account: acc, deleteFarms: false, seen: { farms: 2, parcels: 3 } }))
      .rejects.toMatchObject({ code: 'preview_changed', details: { parcels: 4 } });
    expect(await onService(acc)).toMatchObject({ state: 'active' });

    // A file dropped for the account and left in its preview: removed from this computer with the account.
    const dropped = await h.api.importPreview({ account: acc, fileName: 'fields.geojson', data: Buffer.from(JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { name: 'Dropped' }, geometry: { type: 'Polygon', coordinates: [[[-4.5, 37], [-4.499, 37], [-4.499, 37.001], [-4.5, 37]]] } }] })).toString('base64') });
    expect(readdirSync(join(home, 'imports'))).toEqual([dropped.preview]);

    const r = await h.api.deactivateAccount({ organization: org, account: acc, deleteFarms: false, seen: { farms: 3, parcels: 4 } });
    expect(r).toMatchObject({ account: acc, deleted: { farms: 0, parcels: 0 }, kept: { farms: 3, parcels: 4 }, removedHere: true });
    expect(readdirSync(join(home, 'imports'))).toEqual([]);
    await expect(h.api.importPreviewed({ preview: dropped.preview, farm: { name: 'Late' } })).rejects.toMatchObject({ code: 'preview_gone' });
    expect(r.kept.hectares).toBeCloseTo(17.5, 6);
    // Over the service's HTTP API: deactivated, its farms still billed, no longer reachable.
    expect(await onService(acc)).toMatchObject({ state: 'deactivated' });
    expect((await bill()).accounts.find((a) => a.account === acc)).toMatchObject({ state: 'deactivated', farms: 3, parcels: 4 });
    expect((await hw.w.api('GET', '/api/farms/', undefined, as(acc))).status).toBe(403);
    expect((await h.api.accounts({})).map((a) => a.id)).not.toContain(acc);
    expect((await h.api.organizations({}))[0]!.accounts!.find((a) => a.id === acc)).toMatchObject({ state: 'deactivated', connected: false });
    await expect(h.api.deactivation({ organization: org, account: acc })).rejects.toMatchObject({ code: 'not_found', message: expect.stringMatching(/already deactivated/) });
  });

  it('deletes its farms first when asked (progress farm by farm), and refuses while work made here is unsynced', async () => {
    const { h, org } = await orgHost();
    const acc = await hw.newAccount();
    await h.api.connectOrgAccount({ organization: org, account: acc });
    for (const name of ['A', 'B', 'C']) await farmOnService(acc, name, [3, 1]);
    await h.api.sync({ account: acc });
    const [farm] = await h.api.farms({ account: acc });
    await h.api.createParcel({ farm: farm!.id, name: 'Drawn here', point: [-3.5, 37.5], hectares: 2 });

    const p = await h.api.deactivation({ organization: org, account: acc });
    expect(p).toMatchObject({ unsynced: 1, parcels: 6 });
    const confirm = { organization: org, account: acc, deleteFarms: true, seen: { farms: 3, parcels: 6 } };
    await expect(h.api.deactivateAccount(confirm)).rejects.toMatchObject({ code: 'unsynced_work', details: { total: 1 } });
    expect(await onService(acc)).toMatchObject({ state: 'active' });
    expect((await bill()).accounts.find((a) => a.account === acc)).toMatchObject({ farms: 3, parcels: 6 });

    const progress: { done: number; total: number }[] = [];
    const r = await h.api.deactivateAccount({ ...confirm, discardUnsynced: true }, { onProgress: (x) => progress.push(x) });
    expect(r).toMatchObject({ deleted: { farms: 3, parcels: 6 }, kept: { farms: 0, parcels: 0, hectares: 0 }, removedHere: true });
    expect(r.deleted.hectares).toBeCloseTo(12, 6);
    expect(progress.at(-1)).toEqual({ done: 3, total: 3 });
    // The farms are gone from the service, not orphaned: nothing left to bill.
    expect(await onService(acc)).toMatchObject({ state: 'deactivated' });
    expect((await bill()).accounts.find((a) => a.account === acc)).toMatchObject({ farms: 0, parcels: 0, hectares: 0 });
  });

  it("never touches another organization's account, even holding both organizations' keys", async () => {
    const { h, org } = await orgHost();
    const other = serviceCli(join(hw.w.dir, 'service'), ['create-org', '--name', 'Another org']).json as { api_key: string };
    const theirs = (await hw.w.api('POST', '/api/accounts/', { account_email: `theirs-${Date.now()}@example.com` }, { 'x-api-key': other.api_key })).body.id as string;
    await farmOnService(theirs, 'Theirs', [5], other.api_key);
    const theirState = async () => (await hw.w.api('GET', `/api/billing/`, undefined, { 'x-api-key': other.api_key })).body.accounts.find((a: { account: string }) => a.account === theirs);

    await expect(h.api.deactivation({ organization: org, account: theirs })).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.api.deactivateAccount({ organization: org, account: theirs, deleteFarms: true, seen: { farms: 1, parcels: 1 } })).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.api.connectOrgAccount({ organization: org, account: theirs })).rejects.toMatchObject({ code: 'not_found' });
    expect(await theirState()).toMatchObject({ state: 'active', farms: 1, parcels: 1 });

    // The real service's refusal is said in its own words (its error body: sync/answers.ts serviceError).
    await expect(h.api.addOrganization({ service: hw.w.svc.url, apiKey: 'fk_wrong' })).rejects.toMatchObject({ code: 'connect_refused', message: expect.stringMatching(/refused the organization's API key: Invalid API key/) });
    const added = await h.api.addOrganization({ service: hw.w.svc.url, apiKey: other.api_key });
    expect(added.accounts!.map((a) => a.id)).toEqual([theirs]);
    const orgs = await h.api.organizations({});
    expect(orgs).toHaveLength(2);
    expect(orgs.find((o) => o.id === org)!.accounts!.map((a) => a.id)).not.toContain(theirs);
    // Through the right organization, then, and only then.
    await expect(h.api.deactivateAccount({ organization: org, account: theirs, deleteFarms: true, seen: { farms: 1, parcels: 1 } })).rejects.toMatchObject({ code: 'not_found' });
    expect(await theirState()).toMatchObject({ state: 'active', farms: 1 });
    await h.api.forgetOrganization({ organization: added.id });
    expect(await h.api.organizations({})).toHaveLength(1);
    await expect(h.api.forgetOrganization({ organization: org })).rejects.toMatchObject({ code: 'no_organization' });
  });

  it("names each organization as its service does, labels an account by its e-mail, and says when the service no longer knows a key", async () => {
    const { h, acc, org } = await orgHost();
    const [mine] = await h.api.organizations({});
    const ours = (await hw.w.api('GET', '/api/organization/')).body as { id: string; name: string };
    expect(mine).toMatchObject({ name: ours.name, remoteId: ours.id, stale: false });
    // Connected without a label: named by its e-mail on the service, never by its raw id.
    const email = ((await hw.w.api('GET', `/api/accounts/${acc}/`)).body as { account_email: string }).account_email;
    expect((await h.api.accounts({})).find((a) => a.id === acc)!.label).toBe(email);

    // Another organization on the same service, one of its accounts connected here; then its key is revoked, as a
    // reset service would no longer know it.
    const other = serviceCli(join(hw.w.dir, 'service'), ['create-org', '--name', 'Gone Co-op']).json as { organization_id: string; api_key: string };
    const added = await h.api.addOrganization({ service: hw.w.svc.url, apiKey: other.api_key });
    expect(added).toMatchObject({ name: 'Gone Co-op', remoteId: other.organization_id, stale: false });
    const theirs = (await h.api.createAccount({ organization: added.id, email: `gone-${Date.now()}@example.com` })).account;
    for (const k of await serviceStore.apiKeys.list(other.organization_id)) if (!k.revoked) await serviceStore.apiKeys.revoke(other.organization_id, k.prefix);

    const orgs = await h.api.organizations({});
    const gone = orgs.find((o) => o.id === added.id)!;
    // Still named as it was last told, and stale: its account listed as unknown to the service, to export and remove.
    expect(gone).toMatchObject({ name: 'Gone Co-op', remoteId: other.organization_id, stale: true });
    expect(gone.accounts).toEqual([expect.objectContaining({ id: theirs, state: 'missing', connected: true })]);
    expect(gone.problem).toContain("no longer knows Gone Co-op's API key");
    expect(gone.problem).toContain(`It now answers for ${ours.name}.`);
    expect(orgs.find((o) => o.id === org)).toMatchObject({ stale: false, name: ours.name });
    await h.api.disconnect({ account: theirs, discardUnsynced: true });
    await h.api.forgetOrganization({ organization: added.id });
  });

  it("shows what a hostile service calls itself and its account only bounded and without controls or bidi overrides", async () => {
    const account = 'acc-00000000-0000-4000-8000-000000000001';
    const evil = createServer((req, res) => {
      const body = req.url === '/api/farms/' ? [] : req.url === `/api/accounts/${account}/` ? { id: account, account_email: '\u202egro@x\u001b[31m\r\nFAKE LOG LINE' }
        : req.url === '/api/organization/' ? { id: 'org-1', name: `<img src=x>\u202e${'N'.repeat(400)}` } : null;
      res.writeHead(body === null ? 404 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body ?? { code: 'not_found', message: 'Not found' }));
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    try {
      const h = await hw.host(hw.newHome());
      await h.api.connect({ service: `http://127.0.0.1:${(evil.address() as AddressInfo).port}`, account, apiKey: 'fk_00000000_whatever' });
      expect((await h.api.accounts({})).find((a) => a.id === account)!.label).toBe('gro@x [31m FAKE LOG LINE');
      const [o] = await h.api.organizations({});
      expect(o!.name).toHaveLength(200);
      expect(o!.name).toMatch(/^<img src=x> N+…$/);
      await h.close();
    } finally {
      await new Promise<void>((r) => evil.close(() => r()));
    }
  });
});

/** A token for the account signed by the service's own key, expiring `seconds` from now. */
const tokenExpiringIn = async (acc: string, seconds: number) =>
  (await signAccountAccess(serviceStore, acc, { nowSeconds: Math.floor(Date.now() / 1000) - 3 * 3600 + seconds })).token;

/** A token provider on 127.0.0.1 answering with whatever `answer` gives for the account asked. */
async function tokenProvider(answer: (account: string) => Promise<{ status: number; body: string; type?: string }>): Promise<{ url: string; asked: string[]; close(): Promise<void> }> {
  const asked: string[] = [];
  const server: Server = createServer((req, res) => {
    const account = decodeURIComponent(req.url!.split('/').pop()!);
    asked.push(`${account} ${req.headers['furrow-account']}`);
    void answer(account).then((a) => { res.writeHead(a.status, { 'content-type': a.type ?? 'application/json' }); res.end(a.body); });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token/{account}`, asked, close: () => new Promise((r) => server.close(() => r())) };
}

describe('account mode', () => {
  it('an expired token blocks the sync with every queued edit kept; a pasted token resumes it', async () => {
    const acc = await hw.newAccount();
    const h = await hw.host();
    const short = await tokenExpiringIn(acc, 4);
    const { tokenExpires } = await h.api.connect({ service: hw.w.svc.url, token: short });
    const [t0] = await h.api.accountTokens({});
    expect(t0).toMatchObject({ account: acc, source: 'pasted', expired: false, expires: tokenExpires });
    const farm = await h.api.createFarm({ account: acc, name: 'Offline farm' });
    await h.api.createParcel({ farm: farm.id, name: 'P1', point: [-4, 37.3], hectares: 1 });
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(tokenExpires!) - Date.now()) + 1200));

    expect((await h.api.accountTokens({}))[0]).toMatchObject({ expired: true });
    const [r] = await h.api.sync({ account: acc });
    expect(r).toMatchObject({ synced: false, blockedCode: 'invalid_token', committed: 0 });
    // Edits go on while it is blocked: queued with the rest, none lost.
    await h.api.createParcel({ farm: farm.id, name: 'P2', point: [-4.01, 37.3], hectares: 1 });
    const [blocked] = await h.api.accounts({});
    expect(blocked!.blocked).toMatchObject({ code: 'invalid_token', waiting: 3 });

    // Refused: another account's token, an expired one, not a token at all. The account keeps its old one meanwhile.
    const otherAcc = await hw.newAccount();
    await expect(h.api.setToken({ account: acc, token: await tokenExpiringIn(otherAcc, 3600) })).rejects.toMatchObject({ code: 'invalid_token', message: expect.stringMatching(/for account acc-.*not for/) });
    await expect(h.api.setToken({ account: acc, token: await tokenExpiringIn(acc, -10) })).rejects.toMatchObject({ code: 'invalid_token', message: expect.stringMatching(/expired/) });
    await expect(h.api.setToken({ account: acc, token: 'not-a-token' })).rejects.toMatchObject({ code: 'invalid_token' });
    expect((await h.api.accountTokens({}))[0]).toMatchObject({ expired: true });

    const fresh = await tokenExpiringIn(acc, 3 * 3600 - 5);
    const set = await h.api.setToken({ account: acc, token: fresh });
    expect(set).toMatchObject({ checked: true, token: { source: 'pasted', expired: false } });
    expect(Date.parse(set.token.expires!)).toBeGreaterThan(Date.now() + 2.9 * 3600_000);
    const [after] = await h.api.sync({ account: acc });
    expect(after).toMatchObject({ synced: true, blocked: null, committed: 3 });
    const [f] = await h.api.farms({ account: acc });
    expect((await serviceParcels(hw.w, acc, f!.serverId!)).map((p) => p.properties.name).sort()).toEqual(['P1', 'P2']);
  });

  it('a token provider address renews the token, checked for this account; its failures are said and lose nothing', async () => {
    const acc = await hw.newAccount();
    let mode: 'good' | 'other' | 'down' | 'text' = 'good';
    const stranger = await hw.newAccount();
    const provider = await tokenProvider(async (account) => {
      if (mode === 'down') return { status: 503, body: '{"message":"maintenance"}' };
      if (mode === 'other') return { status: 200, body: JSON.stringify({ token: await tokenExpiringIn(stranger, 3600) }) };
      const token = await tokenExpiringIn(account, 3 * 3600 - 5);
      return mode === 'text' ? { status: 200, body: `${token}\n`, type: 'text/plain' } : { status: 200, body: JSON.stringify({ token }) };
    });
    try {
      const h = await hw.host();
      await h.api.connect({ service: hw.w.svc.url, token: await tokenExpiringIn(acc, 600) });
      await expect(h.api.setTokenProvider({ account: acc, url: 'http://tokens.example.com/token' })).rejects.toMatchObject({ code: 'invalid_url', message: expect.stringMatching(/only for a provider on this computer/) });
      await expect(h.api.renewToken({ account: acc })).rejects.toMatchObject({ code: 'invalid_url' });
      const set = await h.api.setTokenProvider({ account: acc, url: provider.url });
      expect(set).toMatchObject({ source: 'url', provider: provider.url });

      mode = 'other';
      await expect(h.api.renewToken({ account: acc })).rejects.toMatchObject({ code: 'token_provider_failed', message: expect.stringMatching(/token for another account/) });
      mode = 'down';
      await expect(h.api.renewToken({ account: acc })).rejects.toMatchObject({ code: 'token_provider_failed', message: expect.stringMatching(/HTTP 503/) });
      mode = 'text';
      const renewed = await h.api.renewToken({ account: acc });
      expect(Date.parse(renewed.expires!)).toBeGreaterThan(Date.now() + 2.9 * 3600_000);
      expect(provider.asked.at(-1)).toBe(`${acc} ${acc}`);

      // The service revokes every token of the account: the sync fetches a new one from the provider and goes on.
      const farm = await h.api.createFarm({ account: acc, name: 'Provided' });
      await h.api.createParcel({ farm: farm.id, name: 'Q1', point: [-4.2, 37.3], hectares: 1 });
      expect(serviceCli(join(hw.w.dir, 'service'), ['revoke-tokens', '--account', acc]).status).toBe(0);
      mode = 'good';
      const asked = provider.asked.length;
      expect((await h.api.sync({ account: acc }))[0]).toMatchObject({ synced: true, committed: 2 });
      expect(provider.asked.length).toBe(asked + 1);
      // The token fetched is kept with the account: the next sync starts with it and asks nobody.
      await h.api.createParcel({ farm: farm.id, name: 'Q1b', point: [-4.22, 37.3], hectares: 1 });
      expect((await h.api.sync({ account: acc }))[0]).toMatchObject({ synced: true, committed: 1 });
      expect(provider.asked.length).toBe(asked + 1);

      // The provider down when a token is needed: blocked with its reason, the edit kept, sent once it answers.
      expect(serviceCli(join(hw.w.dir, 'service'), ['revoke-tokens', '--account', acc]).status).toBe(0);
      mode = 'other';
      await h.api.createParcel({ farm: farm.id, name: 'Q2', point: [-4.21, 37.3], hectares: 1 });
      const [r] = await h.api.sync({ account: acc });
      expect(r).toMatchObject({ synced: false, blockedCode: 'token_provider_failed' });
      expect((await h.api.accounts({}))[0]!.blocked).toMatchObject({ code: 'token_provider_failed', waiting: 1 });
      mode = 'good';
      expect((await h.api.sync({ account: acc }))[0]).toMatchObject({ synced: true, committed: 1 });
      expect(await h.api.setTokenProvider({ account: acc, url: null })).toMatchObject({ source: 'pasted', provider: null });
    } finally {
      await provider.close();
    }
  });

  it("refuses tokens for an account connected with the organization's key", async () => {
    const { h, acc } = await hw.connected();
    await expect(h.api.setToken({ account: acc, token: await tokenExpiringIn(acc, 3600) })).rejects.toMatchObject({ code: 'not_account_mode' });
    await expect(h.api.setTokenProvider({ account: acc, url: 'https://tokens.example.com/t' })).rejects.toMatchObject({ code: 'not_account_mode' });
  });
});
