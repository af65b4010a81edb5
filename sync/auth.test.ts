// Tokens and account state, end to end: an expired or refused bearer token is renewed once through the
// provider; a token that cannot be renewed, or a deactivated account, blocks that account's queue (nothing
// dropped) while the other accounts of the same mirror sync normally.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { syncWorld, parcelInputs, type SyncWorld } from '../test/helpers/sync.ts';
import { ROOT, rotateApiKey, SERVICE, serviceCli } from '../test/helpers/process.ts';
import { posts, recordingEngine, refCounts, serviceFarms, serviceParcels, type SentRequest, type ServiceParcel } from '../test/helpers/engine.ts';
import { CommandTokenProvider, ServiceTokenProvider, StaticTokenProvider, type TokenProvider } from './tokens.ts';
import { SignJWT } from 'jose';
import { signAccountAccess } from '../service/store/tokens.ts';
import type { Store } from '../service/store/store.ts';
import { openDataDirStore } from '../test/helpers/store.ts';

const FOUR_HOURS = 4 * 60 * 60;

let w: SyncWorld;
/** The running service's own database, opened beside it: tokens are signed with the organization's real key. */
let serviceStore: Store;
beforeAll(async () => {
  w = await syncWorld({ LOG_LEVEL: 'fatal' });
  serviceStore = await openDataDirStore(join(w.dir, 'service'));
});
afterAll(async () => {
  await serviceStore?.close();
  await w?.close();
});

const expiredToken = async (acc: string) => (await signAccountAccess(serviceStore, acc, { nowSeconds: Math.floor(Date.now() / 1000) - FOUR_HOURS })).token;

class CountingServiceTokens extends ServiceTokenProvider {
  fetches = 0;
  protected override async fetch(accountId: string): Promise<string> {
    this.fetches++;
    return super.fetch(accountId);
  }
}
class CountingCommandTokens extends CommandTokenProvider {
  fetches = 0;
  protected override async fetch(accountId: string): Promise<string> {
    this.fetches++;
    return super.fetch(accountId);
  }
}

const bearer = (tokens: TokenProvider) => () => ({ mode: 'bearer' as const, tokens });

/** A new farm with parcels in the mirror for this account (nothing on the service yet). */
function localFarm(acc: string, name: string, n: number) {
  const farm = w.mirror.write.createFarm(acc, name);
  const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(n, name));
  return { farm, rows: created };
}

async function expectOnService(acc: string, farmLocalId: string, localIds: readonly string[]): Promise<void> {
  const farm = w.mirror.read.farm(farmLocalId)!;
  expect(farm.server_id).not.toBeNull();
  const counts = refCounts(await serviceParcels(w, acc, farm.server_id!));
  expect(counts.size).toBe(localIds.length);
  for (const id of localIds) expect(counts.get(id)).toBe(1);
}

describe('bearer tokens', () => {
  it('an expired cached token is refreshed once through the service, and the push succeeds', async () => {
    const acc = await w.account();
    const { farm, rows } = localFarm(acc, 'Bearer expired', 60);
    const tokens = new CountingServiceTokens(w.svc.url, w.apiKey);
    const stale = await expiredToken(acc);
    tokens.seed(acc, stale);
    const log: SentRequest[] = [];
    const r = await recordingEngine(w, log, { credentials: bearer(tokens) }).sync({ accounts: [acc] });
    expect(r.accounts[0]).toMatchObject({ synced: true, blocked: null, error: null });
    expect(tokens.fetches).toBe(1);
    expect(await tokens.token(acc)).not.toBe(stale);
    await expectOnService(acc, farm.local_id, rows.map((x) => x.local_id));
  });

  it('a token the service refuses although it looks valid: one refresh through the token command, one retry, success', async () => {
    const acc = await w.account();
    const { farm, rows } = localFarm(acc, 'Bearer refused', 3);
    // Looks fresh to the client (exp in 3 h) but is signed with another secret: the service says 'Invalid token'.
    const now = Math.floor(Date.now() / 1000);
    const forged = await new SignJWT({ org: w.organizationId, typ: 'account_access', sub: acc, ep: 0, iat: now, exp: now + 3 * 3600 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: 'sk_forged' }).sign(new TextEncoder().encode('not-the-service-secret-0123456789'));
    const print = `${JSON.stringify(process.execPath)} -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>console.log(JSON.parse(s).account_access))'`;
    const command = `cd ${JSON.stringify(ROOT)} && DATA_DIR=${JSON.stringify(join(w.dir, 'service'))} ${JSON.stringify(process.execPath)} ${JSON.stringify(SERVICE)} token --account "$FURROW_ACCOUNT" | ${print}`;
    const tokens = new CountingCommandTokens(command, { [acc]: forged });
    const log: SentRequest[] = [];
    const r = await recordingEngine(w, log, { credentials: bearer(tokens) }).sync({ accounts: [acc] });
    expect(r.accounts[0]).toMatchObject({ synced: true, blocked: null, error: null });
    expect(tokens.fetches).toBe(1);
    expect(posts(log, '/api/farms/').map((p) => p.status)).toEqual([201]);
    await expectOnService(acc, farm.local_id, rows.map((x) => x.local_id));
  });

  it('an expired token that cannot be renewed blocks the account with "Invalid token…", the queue kept; a fresh token then pushes it', async () => {
    const acc = await w.account();
    const { farm, rows } = localFarm(acc, 'Bearer static', 4);
    const log: SentRequest[] = [];
    const r = await recordingEngine(w, log, { credentials: bearer(new StaticTokenProvider({ [acc]: await expiredToken(acc) })) }).sync({ accounts: [acc] });
    expect(r.accounts[0]!.blocked).toMatch(/^Invalid token/);
    expect(r.accounts[0]).toMatchObject({ synced: false, committed: 0, blockedCode: 'invalid_token' });
    expect(w.mirror.read.account(acc)!.blocked_code).toBe('invalid_token');
    expect(w.mirror.read.account(acc)!.blocked).toMatch(/^Invalid token/);
    const ops = w.mirror.read.outbox(acc);
    expect(ops).toHaveLength(5);
    for (const o of ops) {
      expect(o).toMatchObject({ state: 'blocked', attempts: 0 });
      expect(o.last_error).toMatch(/^Invalid token/);
    }
    expect(w.mirror.read.status(acc)).toMatchObject({ blocked: 5, pending: 0, uncertain: 0 });
    expect(log.filter((l) => l.method !== 'GET')).toHaveLength(1);
    expect(await serviceFarms(w, acc)).toEqual([]);

    const fresh = (await signAccountAccess(serviceStore, acc)).token;
    const r2 = await recordingEngine(w, [], { credentials: bearer(new StaticTokenProvider({ [acc]: fresh })) }).sync({ accounts: [acc] });
    expect(r2.accounts[0]).toMatchObject({ synced: true, blocked: null });
    expect(w.mirror.read.account(acc)!.blocked).toBeNull();
    await expectOnService(acc, farm.local_id, rows.map((x) => x.local_id));
  });

  it('a token issued by a clock 10 minutes ahead of the service is refused as such: the block names the clocks and by how much, not "expired or revoked"', async () => {
    const acc = await w.account();
    localFarm(acc, 'Clock ahead', 2);
    // Signed with the organization's real key by an instance whose clock runs 10 minutes ahead of the service's.
    const ahead = (await signAccountAccess(serviceStore, acc, { nowSeconds: Math.floor(Date.now() / 1000) + 600 })).token;
    const r = await recordingEngine(w, [], { credentials: bearer(new StaticTokenProvider({ [acc]: ahead })) }).sync({ accounts: [acc] });
    expect(r.accounts[0]).toMatchObject({ synced: false, committed: 0, blockedCode: 'clock_skew' });
    expect(r.accounts[0]!.blocked).toMatch(/^Invalid token: it was issued 10 min ahead of the service's clock \(.* GMT\): the clock of what issued it runs that far ahead/);
    expect(w.mirror.read.account(acc)!.blocked_code).toBe('clock_skew');
    // A token issued within the allowed skew (30 s ahead) is taken.
    const near = (await signAccountAccess(serviceStore, acc, { nowSeconds: Math.floor(Date.now() / 1000) + 30 })).token;
    const r2 = await recordingEngine(w, [], { credentials: bearer(new StaticTokenProvider({ [acc]: near })) }).sync({ accounts: [acc] });
    expect(r2.accounts[0]).toMatchObject({ synced: true, blocked: null });
  });
});

describe('a deactivated account', () => {
  it('is blocked with its ops kept while another account syncs in the same run; after reactivation its ops go out', async () => {
    const gone = await w.account();
    const fine = await w.account();
    // The deactivated account has a farm on the service already, plus new parcels and a new farm.
    const first = localFarm(gone, 'Gone farm', 2);
    expect((await recordingEngine(w, []).sync({ accounts: [gone] })).accounts[0]).toMatchObject({ synced: true });
    const { created: later } = w.mirror.write.createParcels(first.farm.local_id, parcelInputs(6, 'gone-later'));
    const second = localFarm(gone, 'Gone farm 2', 3);
    const other = localFarm(fine, 'Fine farm', 5);

    const del = await w.api('DELETE', `/api/accounts/${gone}/`);
    expect(del.status).toBe(204);
    const r = await recordingEngine(w, []).sync({ accounts: [gone, fine] });
    const byId = new Map(r.accounts.map((a) => [a.account, a]));
    expect(byId.get(gone)).toMatchObject({ blocked: 'Account not found', blockedCode: 'account_not_found', synced: false, committed: 0, pullNotDone: 'the account is blocked (Account not found)' });
    expect(byId.get(fine)).toMatchObject({ blocked: null, error: null, synced: true });
    await expectOnService(fine, other.farm.local_id, other.rows.map((x) => x.local_id));

    // Nothing dropped: every row is there, every op waits in 'blocked' with the reason, none counted as sent.
    expect(w.mirror.read.account(gone)!.blocked).toBe('Account not found');
    const ops = w.mirror.read.outbox(gone);
    expect(ops).toHaveLength(6 + 1 + 3);
    for (const o of ops) expect(o).toMatchObject({ state: 'blocked', last_error: 'Account not found', attempts: 0 });
    for (const row of [...later, ...second.rows]) expect(w.mirror.read.parcel(row.local_id)).toMatchObject({ deleted: 0, server_id: null });
    expect(w.mirror.read.farm(second.farm.local_id)).toMatchObject({ deleted: 0, server_id: null });

    const back = serviceCli(join(w.dir, 'service'), ['reactivate-account', '--account', gone]);
    expect(back.status, back.stderr).toBe(0);
    const r2 = await recordingEngine(w, []).sync({ accounts: [gone] });
    expect(r2.accounts[0]).toMatchObject({ blocked: null, synced: true, committed: 6 + 1 + 3 });
    await expectOnService(gone, first.farm.local_id, [...first.rows, ...later].map((x) => x.local_id));
    await expectOnService(gone, second.farm.local_id, second.rows.map((x) => x.local_id));
  });
});


describe('a deactivated account in bearer mode', () => {
  it('the token endpoint refusing a fresh token blocks the account with "Account not found"; nothing is made uncertain', async () => {
    const acc = await w.account();
    const { rows } = localFarm(acc, 'Bearer gone', 3);
    expect((await w.api('DELETE', `/api/accounts/${acc}/`)).status).toBe(204);
    const tokens = new CountingServiceTokens(w.svc.url, w.apiKey);
    const r = await recordingEngine(w, [], { credentials: bearer(tokens) }).sync({ accounts: [acc] });
    expect(tokens.fetches).toBeGreaterThanOrEqual(1);
    expect(r.accounts[0]).toMatchObject({ blocked: 'Account not found', error: null, synced: false });
    const ops = w.mirror.read.outbox(acc);
    expect(ops).toHaveLength(1 + rows.length);
    for (const o of ops) expect(o).toMatchObject({ state: 'blocked', attempts: 0 });
  });
});

describe("the organization's API key", () => {
  /** A second organization of the same service, with one account and a farm of parcels waiting in the mirror. */
  async function ownOrganization(name: string): Promise<{ orgId: string; key: string; acc: string; farm: ReturnType<typeof localFarm> }> {
    const org = serviceCli(join(w.dir, 'service'), ['create-org', '--name', name]).json as { organization_id: string; api_key: string };
    const res = await w.api('POST', '/api/accounts/', { account_email: `${name.replace(/\W/g, '')}@example.com` }, { 'x-api-key': org.api_key });
    expect(res.status).toBe(201);
    const acc = (res.body as { id: string }).id;
    w.mirror.write.addAccount({ id: acc, service_url: w.svc.url, mode: 'bearer' });
    return { orgId: org.organization_id, key: org.api_key, acc, farm: localFarm(acc, `${name} farm`, 2) };
  }

  it('rotated: in bearer mode the token request is refused and the account is blocked with that code, its queue kept', async () => {
    const o = await ownOrganization('Rotating org');
    await rotateApiKey(join(w.dir, 'service'), o.orgId, o.key);
    const tokens = new CountingServiceTokens(w.svc.url, o.key);
    const r = await recordingEngine(w, [], { credentials: bearer(tokens) }).sync({ accounts: [o.acc] });
    expect(r.accounts[0]).toMatchObject({ blocked: 'Invalid API key', blockedCode: 'invalid_api_key', error: null, sent: 0, pullNotDone: 'the account is blocked (Invalid API key)' });
    expect(w.mirror.read.account(o.acc)).toMatchObject({ blocked: 'Invalid API key', blocked_code: 'invalid_api_key' });
    for (const op of w.mirror.read.outbox(o.acc)) expect(op).toMatchObject({ state: 'blocked', attempts: 0 });
  });

  it('a token endpoint that fails for a moment (503) is retried, not taken for a refusal: nothing blocked', async () => {
    const o = await ownOrganization('Flaky token org');
    await w.fault(`POST /api/accounts/${o.acc}/token/`, 'error', { status: 503 });
    const tokens = new CountingServiceTokens(w.svc.url, o.key);
    const r = await recordingEngine(w, [], { credentials: bearer(tokens) }).sync({ accounts: [o.acc] });
    expect(r.accounts[0]).toMatchObject({ blocked: null, error: null, synced: true });
    expect(tokens.fetches).toBe(2);
    const farm = w.mirror.read.farm(o.farm.farm.local_id)!;
    const listed = await w.api('GET', `/api/farms/${farm.server_id}/parcels/`, undefined, { 'x-api-key': o.key, 'service-account': o.acc });
    expect(refCounts(listed.body.features as ServiceParcel[])).toEqual(new Map(o.farm.rows.map((x) => [x.local_id, 1])));
  });
});
