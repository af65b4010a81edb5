// The admin CLI (service/cli.ts) as operators run it: one JSON line on stdout per command, usage errors
// exit 2 with the usage text, other failures exit 1 with a readable message. It shares DATA_DIR with a
// running service, which must see every change at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { serviceCli, spawnService, type ServiceProcess } from '../test/helpers/process.ts';

let dir: string;
let service: ServiceProcess;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-cli-'));
});
afterAll(async () => {
  await service?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs a command that must succeed and print exactly one JSON line. */
function ok<T>(args: string[]): T {
  const r = serviceCli(dir, args);
  expect(r.status, `${args.join(' ')}\n${r.stderr}`).toBe(0);
  expect(r.stdout.endsWith('\n')).toBe(true);
  expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
  expect(r.json).not.toBeUndefined();
  return r.json as T;
}
function fails(args: string[], status: 1 | 2): { stdout: string; stderr: string } {
  const r = serviceCli(dir, args);
  expect(r.status, `${args.join(' ')}\n${r.stdout}${r.stderr}`).toBe(status);
  expect(r.stdout).toBe('');
  return r;
}
async function api(method: string, path: string, headers: Record<string, string>, payload?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${service.url}${path}`, {
    method, headers: { ...headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}
const point = (name: string, hectares: number, lon = -4.78) => ({
  name, geom: { type: 'Feature', properties: { metadata: { hectares } }, geometry: { type: 'Point', coordinates: [lon, 37.88] } },
});

interface Org { organization_id: string; api_key: string }
interface Acc { id: string; account_email: string; embedded_url: string; account_access: string }

describe('service CLI', () => {
  let org: Org;
  let acc: Acc;
  let farmId: number;

  it('create-org --name prints exactly one JSON line with organization_id and api_key', () => {
    const r = serviceCli(dir, ['create-org', '--name', 'Acme Farms']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(1);
    org = JSON.parse(r.stdout) as Org;
    expect(Object.keys(org).sort()).toEqual(['api_key', 'organization_id']);
    expect(org.organization_id).toMatch(/^org-[0-9a-f-]{36}$/);
    expect(org.api_key.length).toBeGreaterThanOrEqual(32);
  });

  it('create-account prints the connected account; the API key works against a running service', async () => {
    acc = ok<Acc>(['create-account', '--org', org.organization_id, '--email', 'grower@example.com']);
    expect(acc.id).toMatch(/^acc-[0-9a-f-]{36}$/);
    expect(acc.account_email).toBe('grower@example.com');
    expect(new URL(acc.embedded_url).searchParams.get('auth_id')).toBeTruthy();

    service = await spawnService(dir);
    const list = await api('GET', '/api/accounts/', { 'x-api-key': org.api_key });
    expect(list.status).toBe(200);
    expect((list.json as { id: string }[]).map((a) => a.id)).toEqual([acc.id]);
    expect((await api('GET', '/api/accounts/', { 'x-api-key': `${org.api_key}x` })).status).toBe(401);
    // The token printed by create-account is a working bearer token.
    expect((await api('GET', '/api/farms/', { authorization: `Bearer ${acc.account_access}` })).status).toBe(200);
  });

  it('set-parcel-limit --account --hectares lets that account create a parcel above 100 ha, and not above N', async () => {
    const headers = { 'x-api-key': org.api_key, 'service-account': acc.id };
    const tooBig = await api('POST', '/api/farms/', headers, { farm: { name: 'Big' }, parcels: [point('150 ha', 150)] });
    expect(tooBig.status).toBe(400);

    const set = ok<{ id: string; max_parcel_hectares: number }>(['set-parcel-limit', '--account', acc.id, '--hectares', '200']);
    expect(set).toMatchObject({ id: acc.id, max_parcel_hectares: 200 });

    const big = await api('POST', '/api/farms/', headers, { farm: { name: 'Big' }, parcels: [point('150 ha', 150), point('200 ha', 200, -4.7)] });
    expect(big.status, JSON.stringify(big.json)).toBe(201);
    farmId = (big.json as { id: number }).id;
    const over = await api('POST', '/api/parcels/', headers, { farm: { id: farmId }, parcels: [point('250 ha', 250, -4.6)] });
    expect(over.status).toBe(400);
    expect(JSON.stringify(over.json)).toContain('200');
    const parcels = await api('GET', `/api/farms/${farmId}/parcels/`, headers);
    expect((parcels.json as { features: unknown[] }).features).toHaveLength(2);
    // Another account of the organization keeps the default limit.
    const other = ok<Acc>(['create-account', '--org', org.organization_id, '--email', 'other@example.com']);
    const otherBig = await api('POST', '/api/farms/', { 'x-api-key': org.api_key, 'service-account': other.id }, { farm: { name: 'B' }, parcels: [point('150 ha', 150)] });
    expect(otherBig.status).toBe(400);
  });

  it('token --account prints a fresh 3-hour account_access that works as Bearer', async () => {
    const t = ok<{ account_access: string; expires_at: string }>(['token', '--account', acc.id]);
    const claims = decodeJwt(t.account_access);
    expect(claims.sub).toBe(acc.id);
    expect(claims.exp! - claims.iat!).toBe(10_800);
    expect(Date.parse(t.expires_at)).toBe(claims.exp! * 1000);
    const farms = await api('GET', '/api/farms/', { authorization: `Bearer ${t.account_access}` });
    expect(farms.status).toBe(200);
    expect((farms.json as { id: number }[]).map((f) => f.id)).toEqual([farmId]);
  });

  it('revoke-tokens (--account, --org) and rotate-signing-key act on a running service at once', async () => {
    const farms = async (token: string) => (await api('GET', '/api/farms/', { authorization: `Bearer ${token}` })).status;
    const first = ok<{ account_access: string }>(['token', '--account', acc.id]).account_access;
    expect(await farms(first)).toBe(200);
    expect(ok(['revoke-tokens', '--account', acc.id])).toEqual({ account: acc.id, tokens_revoked: true });
    expect(await farms(first)).toBe(401);

    const second = ok<{ account_access: string }>(['token', '--account', acc.id]).account_access;
    const rotated = ok<{ kid: string; previous: { kid: string; retired: string; verifies_until: string }[] }>(['rotate-signing-key', '--org', org.organization_id]);
    expect(rotated.previous.map((k) => k.kid)).toEqual([decodeProtectedHeader(second).kid]);
    expect(await farms(second)).toBe(200); // signed before the rotation: valid until it expires

    const revoked = ok<{ kid: string; tokens_revoked: boolean }>(['revoke-tokens', '--org', org.organization_id]);
    expect(revoked.kid).not.toBe(rotated.kid);
    expect(await farms(second)).toBe(401);
    expect(ok<{ kid: string }[]>(['list-signing-keys', '--org', org.organization_id]).map((k) => k.kid)).toEqual([revoked.kid]);
  }, 120_000); // six CLI processes: about a second each on a quiet machine, far more on a busy one

  it('JWT_SECRET, which no longer means anything, stops the CLI with a readable message', () => {
    const r = serviceCli(dir, ['list-accounts', '--org', org.organization_id], { JWT_SECRET: 'x' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/JWT_SECRET is no longer used/);
  });

  it('unlink-farm, list-orphans, billing and delete-orphan', async () => {
    expect(ok(['unlink-farm', '--farm', String(farmId)])).toEqual({ unlinked: farmId });
    expect((await api('GET', `/api/farms/${farmId}/`, { 'x-api-key': org.api_key })).status).toBe(404);

    const orphans = ok<{ id: number; parcel_count: number; hectares: number }[]>(['list-orphans', '--org', org.organization_id]);
    expect(orphans).toHaveLength(1);
    expect(orphans[0]).toMatchObject({ id: farmId, parcel_count: 2 });
    expect(orphans[0]!.hectares).toBeCloseTo(350, 6);

    const bill = ok<{ organization: string; total_hectares: number; orphans: { farms: number; hectares: number } }>(['billing', '--org', org.organization_id]);
    expect(bill.organization).toBe(org.organization_id);
    expect(bill.orphans.farms).toBe(1);
    expect(bill.orphans.hectares).toBeCloseTo(350, 6);
    expect(bill.total_hectares).toBeCloseTo(350, 6);
    const viaApi = await api('GET', '/api/billing/', { 'x-api-key': org.api_key });
    expect(viaApi.json).toEqual(bill);

    expect(ok(['delete-orphan', '--farm', String(farmId)])).toEqual({ deleted: farmId });
    expect(ok(['list-orphans', '--org', org.organization_id])).toEqual([]);
    expect(((await api('GET', '/api/billing/', { 'x-api-key': org.api_key })).json as { total_hectares: number }).total_hectares).toBe(0);
  }, 120_000); // five CLI processes, as above

  it('reactivate-account restores a deactivated account; purge-account deletes it and frees the email', async () => {
    const headers = { 'x-api-key': org.api_key, 'service-account': acc.id };
    const farm = await api('POST', '/api/farms/', headers, { farm: { name: 'Kept' }, parcels: [point('p', 5)] });
    expect(farm.status).toBe(201);
    expect((await api('DELETE', `/api/accounts/${acc.id}/`, { 'x-api-key': org.api_key })).status).toBe(204);
    expect((await api('GET', '/api/farms/', headers)).status).toBe(403);

    const back = ok<{ id: string; state: string }>(['reactivate-account', '--account', acc.id]);
    expect(back).toMatchObject({ id: acc.id, state: 'active' });
    const farms = await api('GET', '/api/farms/', headers);
    expect(farms.status).toBe(200);
    expect((farms.json as { name: string; parcel_count: number }[]).map((f) => [f.name, f.parcel_count])).toEqual([['Kept', 1]]);

    // Purging an active account is refused with a readable message.
    const refused = fails(['purge-account', '--account', acc.id], 1);
    expect(refused.stderr).toMatch(/error \(conflict\): Deactivate the account/);

    expect((await api('DELETE', `/api/accounts/${acc.id}/`, { 'x-api-key': org.api_key })).status).toBe(204);
    expect(ok(['purge-account', '--account', acc.id])).toEqual({ deleted: acc.id, farms: 1, parcels: 1 });
    const gone = await api('GET', '/api/farms/', headers);
    expect(gone.status).toBe(403);
    expect((gone.json as { message: string }).message).toBe('Account not found');
    const again = await api('POST', '/api/accounts/', { 'x-api-key': org.api_key }, { account_email: 'grower@example.com' });
    expect(again.status).toBe(201);
  });

  it('bad usage exits 2 with the usage text', () => {
    for (const args of [['create-org'], ['frobnicate'], ['billing', '--bogus', 'x']]) {
      const r = fails(args, 2);
      expect(r.stderr, args.join(' ')).toContain('Usage: npm run -s service --');
      expect(r.stderr).toContain('create-org --name NAME');
    }
    const help = serviceCli(dir, ['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('set-parcel-limit --account ACC --hectares N');
  });

  it('an unknown account or farm exits 1 with a readable message', () => {
    // (Each spawn costs about a second: one command per code path.)
    for (const args of [['token', '--account', 'acc-00000000-0000-0000-0000-000000000000'], ['reactivate-account', '--account', 'acc-nope']]) {
      const r = fails(args, 1);
      expect(r.stderr, args.join(' ')).toMatch(/^error \(account_not_found\): Account (acc-\S+ )?not found\n$/);
    }
    expect(fails(['unlink-farm', '--farm', '999999'], 1).stderr).toMatch(/^error \(not_found\): Farm 999999 not found\n$/);
  });
});

describe('the address in embedded_url', () => {
  it('is the one the service last served with on this DATA_DIR; before any service ran, the default, said on stderr', async () => {
    const data = mkdtempSync(join(tmpdir(), 'furrow-cli-url-'));
    let svc: ServiceProcess | undefined;
    try {
      const org = (serviceCli(data, ['create-org', '--name', 'Ports']).json as Org).organization_id;
      const before = serviceCli(data, ['create-account', '--org', org, '--email', 'before@example.com']);
      expect(before.status).toBe(0);
      expect((before.json as Acc).embedded_url).toMatch(/^http:\/\/127\.0\.0\.1:8080\/embed\/\?auth_id=/);
      expect(before.stderr).toBe(`note: embedded_url assumes the service at http://127.0.0.1:8080, the default: the service records its address in ${data} ` +
        'when it starts, and none has yet. Set PUBLIC_URL (or PORT, or EMBED_URL) to the address clients reach it at, or start the service once.\n');

      // The service on another port: admin commands run without PORT or PUBLIC_URL print links that work.
      svc = await spawnService(data);
      const acc = serviceCli(data, ['create-account', '--org', org, '--email', 'after@example.com']);
      expect([acc.status, acc.stderr]).toEqual([0, '']);
      const url = (acc.json as Acc).embedded_url;
      expect(url.startsWith(`${svc.url}/embed/?auth_id=`)).toBe(true);
      expect((await fetch(url)).status).toBe(200);
      const listed = serviceCli(data, ['list-accounts', '--org', org]).json as Acc[];
      expect(listed.map((a) => new URL(a.embedded_url).origin)).toEqual([svc.url, svc.url]);
      await svc.stop();

      // The environment still wins, and a stopped service's address is still the best one known.
      const explicit = serviceCli(data, ['rotate-auth-id', '--account', (acc.json as Acc).id], { PUBLIC_URL: 'https://farms.example.com/parcels' });
      expect((explicit.json as Acc).embedded_url).toMatch(/^https:\/\/farms\.example\.com\/parcels\/embed\/\?auth_id=/);
      expect((serviceCli(data, ['list-accounts', '--org', org]).json as Acc[]).map((a) => new URL(a.embedded_url).origin)).toEqual([svc.url, svc.url]);
    } finally {
      await svc?.stop();
      rmSync(data, { recursive: true, force: true });
    }
  }, 120_000);
});
