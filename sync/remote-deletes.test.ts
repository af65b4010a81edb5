// Remote deletions never take unsent local work with them, and a pull never trusts an answer that would wipe the
// mirror: against the real service, through the CLI where the user meets it, and through a real proxy that gives
// the answers a faulty service or proxy could (an empty farm list, a paged or cut listing).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { syncWorld, parcelInputs, type SyncWorld } from '../test/helpers/sync.ts';
import { as, refCounts, serviceFarms, serviceParcels } from '../test/helpers/engine.ts';
import { rewriteProxy, type Rewrite, type RewriteProxy } from '../test/helpers/rewrite-proxy.ts';
import { Mirror } from '../db/mirror.ts';
import { runCli } from '../cli/main.ts';
import { summarizeRun } from '../cli/summary.ts';

let w: SyncWorld;
beforeAll(async () => { w = await syncWorld({ LOG_LEVEL: 'fatal' }); });
afterAll(async () => { await w?.close(); });

const ENV = { FURROW_SETTLE_MS: '300', FURROW_MAX_WAIT_MS: '20000' };

async function cli(home: string, args: string[]): Promise<{ status: number; out: string }> {
  let out = '';
  const status = await runCli(args, { env: { FURROW_HOME: home, ...ENV }, stdout: { write: (s: string) => { out += s; } }, stderr: { write: (s: string) => { out += s; } } });
  return { status, out };
}

/** A CLI home connected to a new account, with a farm of `n` parcels synced. */
async function connected(farmName: string, n: number): Promise<{ home: string; acc: string; mirror: Mirror; farmLocal: string; farmId: number }> {
  const home = mkdtempSync(join(w.dir, 'home-'));
  const r = await w.api('POST', '/api/accounts/', { account_email: `rd${Math.random().toString(36).slice(2)}@example.com` });
  const acc = r.body.id as string;
  expect((await cli(home, ['connect', '--service', w.svc.url, '--api-key', w.apiKey, '--account', acc])).status).toBe(0);
  const mirror = Mirror.open(join(home, 'mirror.db'));
  const farm = mirror.write.createFarm(acc, farmName);
  mirror.write.createParcels(farm.local_id, parcelInputs(n, farmName));
  expect((await cli(home, ['sync'])).status).toBe(0);
  return { home, acc, mirror, farmLocal: farm.local_id, farmId: mirror.read.farm(farm.local_id)!.server_id! };
}

describe('a farm deleted on the service while the mirror holds unsent work in it', () => {
  async function setUp(name: string) {
    const c = await connected(name, 3);
    const [first] = c.mirror.read.parcels(c.farmLocal);
    // Two parcels never sent and one edited parcel, then someone else deletes the farm on the service.
    c.mirror.write.createParcels(c.farmLocal, parcelInputs(2, `${name} new`, -3.5));
    c.mirror.write.updateParcel(first!.local_id, { name: 'Renamed here' });
    expect((await w.api('DELETE', `/api/farms/${c.farmId}/`, undefined, as(c.acc))).status).toBe(204);
    const run = await cli(c.home, ['sync']);
    return { ...c, run };
  }

  it('keeps every local row, names the farm and the work in `problems`, and `--keep mine` re-creates the farm and sends it all once', async () => {
    const c = await setUp('Held farm');
    expect(c.run.status).toBe(2);
    expect(c.mirror.read.farm(c.farmLocal)).toBeDefined();
    expect(c.mirror.read.parcels(c.farmLocal)).toHaveLength(5);
    const problems = JSON.parse((await cli(c.home, ['problems', '--json'])).out) as { kind: string; id: number; entity: string; name: string; reason: string }[];
    const farmConflict = problems.find((p) => p.kind === 'conflict:remote_delete' && p.entity === 'farm');
    expect(farmConflict).toMatchObject({ name: 'Held farm' });
    expect(farmConflict!.reason).toMatch(/2 parcels never sent \('Held farm new-0', 'Held farm new-1'\)/);
    expect(farmConflict!.reason).toMatch(/1 edited parcel \('Renamed here'\)/);
    expect(farmConflict!.reason).toMatch(/keep mine: re-create the farm/);
    // Nothing is left "rejected" waiting forever.
    expect(problems.filter((p) => p.kind === 'rejected')).toEqual([]);

    const resolved = await cli(c.home, ['resolve', String(farmConflict!.id), '--keep', 'mine']);
    expect(resolved.out).toMatch(/kept mine: the next sync creates 4 rows again .* and sends 2 unsent rows/);
    expect((await cli(c.home, ['sync'])).status).toBe(0);
    const farms = await serviceFarms(w, c.acc);
    expect(farms.map((f) => f.name)).toEqual(['Held farm']);
    const onService = await serviceParcels(w, c.acc, farms[0]!.id);
    expect(onService).toHaveLength(5);
    expect([...refCounts(onService).values()].every((n) => n === 1)).toBe(true);
    expect(onService.map((p) => p.properties.name).sort()).toEqual(['Held farm new-0', 'Held farm new-1', 'Held farm-1', 'Held farm-2', 'Renamed here']);
    expect((await cli(c.home, ['problems'])).out).toMatch(/Nothing needs you/);
    c.mirror.close();
  });

  it('`--keep theirs` discards the farm and its work here; the next sync is clean', async () => {
    const c = await setUp('Dropped farm');
    const id = (JSON.parse((await cli(c.home, ['problems', '--json'])).out) as { kind: string; id: number; entity: string }[])
      .find((p) => p.kind === 'conflict:remote_delete' && p.entity === 'farm')!.id;
    expect((await cli(c.home, ['resolve', String(id), '--keep', 'theirs'])).out).toMatch(/removed here/);
    expect(c.mirror.read.farm(c.farmLocal)).toBeUndefined();
    expect((await cli(c.home, ['sync'])).status).toBe(0);
    expect(await serviceFarms(w, c.acc)).toEqual([]);
    expect((await cli(c.home, ['status', '--json'])).out).toMatch(/"conflicts": ?0/);
    c.mirror.close();
  });
});

describe('answers that would wipe the mirror', () => {
  let proxy: RewriteProxy | null = null;
  afterAll(async () => { await proxy?.close(); });

  /** An account in the world's mirror that reaches the service through a proxy doing `rewrite`. */
  async function behindProxy(rewrite: Rewrite, farms: number, parcels: number) {
    await proxy?.close();
    proxy = await rewriteProxy(w.svc.url, rewrite);
    const r = await w.api('POST', '/api/accounts/', { account_email: `px${Math.random().toString(36).slice(2)}@example.com` });
    const acc = r.body.id as string;
    w.mirror.write.addAccount({ id: acc, service_url: proxy.url, mode: 'api_key' });
    const locals = Array.from({ length: farms }, (_, i) => {
      const f = w.mirror.write.createFarm(acc, `Proxy farm ${i}`);
      w.mirror.write.createParcels(f.local_id, parcelInputs(parcels, `pf${i}`, -4 + i * 0.3));
      return f.local_id;
    });
    return { acc, locals };
  }
  const state = { emptyFarmList: false, pageSize: 0, cutAfterFirstPage: false, repeatFarm: false, loopNext: false, endlessCrops: false, repeatPage: false };
  let firstCrops: unknown;
  let firstPage: unknown;
  const rewrite: Rewrite = {
    // These are answers of the full listings: the proxy is a service without the change feed, so that every pull
    // lists (the feed's own tombstones meet the same guard: sync/pull-changes.test.ts).
    refuse: (x) => (x.path.startsWith('/api/changes/') ? 404 : undefined),
    body: (x, status, json) => {
      if (state.emptyFarmList && x.method === 'GET' && x.path === '/api/farms/' && status === 200) return [];
      // A crop pager that never ends: every page is the first one, always with a next link.
      if (state.endlessCrops && x.path.startsWith('/api/crops/?') && status === 200) {
        firstCrops ??= json;
        return { ...(firstCrops as object), next: `${x.path}&more` };
      }
      if (state.repeatFarm && x.method === 'GET' && x.path === '/api/farms/' && status === 200) return Array.from({ length: 50 }, () => (json as unknown[])[0]);
      if (state.loopNext && /^\/api\/farms\/\d+\/parcels\//.test(x.path) && status === 200) return { ...(json as object), next: x.path };
      // The same first page again and again, each time under a new next link.
      if (state.repeatPage && /^\/api\/farms\/\d+\/parcels\//.test(x.path) && status === 200) {
        firstPage ??= json;
        return { ...(firstPage as object), next: `${x.path.split('?')[0]}?limit=${500 + proxy!.seen.length}` };
      }
      if (state.cutAfterFirstPage && /^\/api\/farms\/\d+\/parcels\//.test(x.path) && status === 200) return { ...(json as object), next: null };
      return undefined;
    },
    // The engine asks for pages of FARM_PAGE_SIZE; the proxy makes them small.
    path: (x) => (state.pageSize && x.method === 'GET' && /^\/api\/farms\/\d+\/parcels\/\?limit=\d+$/.test(x.path) ? x.path.replace(/limit=\d+/, `limit=${state.pageSize}`) : undefined),
  };

  it('an empty farm list deletes nothing: the pull is held, reported, and exit 2; unsent parcels stay', async () => {
    Object.assign(state, { emptyFarmList: false, pageSize: 0, cutAfterFirstPage: false });
    const { acc, locals } = await behindProxy(rewrite, 4, 5);
    expect((await w.engine().sync({ accounts: [acc] })).accounts[0]).toMatchObject({ synced: true });
    w.mirror.write.createParcels(locals[0]!, parcelInputs(2, 'unsent', -2));
    state.emptyFarmList = true;
    // A pull alone (as when pushes are refused): the new parcels stay unsent.
    const report = await w.engine().sync({ accounts: [acc], push: false });
    const a = report.accounts[0]!;
    expect(a.deletionsHeld).toEqual([expect.stringMatching(/no longer lists 3 of the 4 farms synced here \(15 parcels\)/)]);
    expect(w.mirror.read.farms(acc)).toHaveLength(4);
    expect(locals.flatMap((l) => w.mirror.read.parcels(l))).toHaveLength(22);
    const summary = summarizeRun(report, w.mirror);
    expect(summary.exit).not.toBe(0);
    expect(summary.out.join('\n')).toMatch(/held: .* run sync --accept-remote-deletions/);
    // The farm with unsent work is a conflict; once the service lists it again the conflict is void and the
    // parcels go out to the farm that exists (no second farm is ever created).
    expect(w.mirror.read.conflicts().filter((c) => c.local_id === locals[0] && c.kind === 'remote_delete')).toHaveLength(1);
    state.emptyFarmList = false;
    expect((await w.engine().sync({ accounts: [acc] })).accounts[0]).toMatchObject({ synced: true });
    expect(w.mirror.read.conflicts().filter((c) => c.local_id === locals[0])).toEqual([]);
    const farms = await serviceFarms(w, acc);
    expect(farms).toHaveLength(4);
    expect(await serviceParcels(w, acc, w.mirror.read.farm(locals[0]!)!.server_id!)).toHaveLength(7);
  });

  it('deletions over a fifth are applied only with acceptRemoteDeletions; farms with unsent work are never deleted', async () => {
    Object.assign(state, { emptyFarmList: false, pageSize: 0, cutAfterFirstPage: false });
    const { acc, locals } = await behindProxy(rewrite, 4, 3);
    expect((await w.engine().sync({ accounts: [acc] })).accounts[0]).toMatchObject({ synced: true });
    const farms = await serviceFarms(w, acc);
    for (const f of farms.slice(0, 3)) expect((await w.api('DELETE', `/api/farms/${f.id}/`, undefined, as(acc))).status).toBe(204);
    const held = (await w.engine().sync({ accounts: [acc] })).accounts[0]!;
    expect(held.deletionsHeld).toHaveLength(1);
    expect(w.mirror.read.farms(acc)).toHaveLength(4);
    const applied = (await w.engine({ acceptRemoteDeletions: true }).sync({ accounts: [acc] })).accounts[0]!;
    expect(applied).toMatchObject({ synced: true, deletionsHeld: [] });
    expect(w.mirror.read.farms(acc).map((f) => f.local_id)).toEqual([locals[3]]);
  });

  it('a paged farm listing is followed to its end: nothing on a later page is taken as deleted', async () => {
    Object.assign(state, { emptyFarmList: false, pageSize: 4, cutAfterFirstPage: false });
    const { acc, locals } = await behindProxy(rewrite, 1, 10);
    expect((await w.engine().sync({ accounts: [acc] })).accounts[0]).toMatchObject({ synced: true });
    const again = (await w.engine().sync({ accounts: [acc] })).accounts[0]!;
    expect(again).toMatchObject({ synced: true, pulled: 10 });
    expect(w.mirror.read.parcels(locals[0]!)).toHaveLength(10);
    expect(proxy!.seen.filter((x) => x.path.includes('/parcels/')).length).toBeGreaterThanOrEqual(3);
  });

  it('a listing cut short of its count deletes nothing', async () => {
    Object.assign(state, { emptyFarmList: false, pageSize: 4, cutAfterFirstPage: false });
    const { acc, locals } = await behindProxy(rewrite, 1, 10);
    expect((await w.engine().sync({ accounts: [acc] })).accounts[0]).toMatchObject({ synced: true });
    state.cutAfterFirstPage = true;
    await w.engine({ acceptRemoteDeletions: true }).sync({ accounts: [acc] });
    expect(w.mirror.read.parcels(locals[0]!)).toHaveLength(10);
  });

  it('a farm list naming a farm twice, or a listing whose next link comes back, stops the pull with a clear error and deletes nothing', async () => {
    Object.assign(state, { emptyFarmList: false, pageSize: 0, cutAfterFirstPage: false, repeatFarm: false, loopNext: false });
    const { acc, locals } = await behindProxy(rewrite, 2, 6);
    expect((await w.engine().sync({ accounts: [acc] })).accounts[0]).toMatchObject({ synced: true });
    state.repeatFarm = true;
    const repeated = (await w.engine().sync({ accounts: [acc] })).accounts[0]!;
    expect(repeated.error).toMatch(/listed farm \d+ twice/);
    state.repeatFarm = false;
    Object.assign(state, { pageSize: 4, loopNext: true });
    const before = proxy!.seen.length;
    const looped = (await w.engine().sync({ accounts: [acc] })).accounts[0]!;
    expect(looped.error).toMatch(/loops/);
    expect(proxy!.seen.length - before).toBeLessThan(10);
    Object.assign(state, { loopNext: false, repeatPage: true });
    const mark = proxy!.seen.length;
    const repeatedPage = (await w.engine().sync({ accounts: [acc] })).accounts[0]!;
    expect(repeatedPage.error).toMatch(/repeats parcel \d+: its pages loop/);
    expect(proxy!.seen.length - mark).toBeLessThan(10);
    state.repeatPage = false;
    expect(locals.flatMap((l) => w.mirror.read.parcels(l))).toHaveLength(12);
    expect(w.mirror.read.farms(acc)).toHaveLength(2);
  });

  it('a crop listing whose pages never end stops at the first repeated crop, with a clear error', async () => {
    Object.assign(state, { emptyFarmList: false, pageSize: 0, cutAfterFirstPage: false, repeatFarm: false, loopNext: false, endlessCrops: false });
    const { acc, locals } = await behindProxy(rewrite, 1, 1);
    expect((await w.engine().sync({ accounts: [acc] })).accounts[0]).toMatchObject({ synced: true });
    const parcel = w.mirror.read.parcels(locals[0]!)[0]!;
    expect((await w.api('POST', '/api/crops/', { parcel: parcel.server_id, name: 'Wheat', campaign: '2025' }, as(acc))).status).toBe(201);
    state.endlessCrops = true;
    const before = proxy!.seen.length;
    const r = (await w.engine().sync({ accounts: [acc] })).accounts[0]!;
    expect(r.error).toMatch(/repeats crop \d+: its pages loop/);
    expect(proxy!.seen.filter((x, i) => i >= before && x.path.startsWith('/api/crops/')).length).toBe(2);
  });
});

describe('retry', () => {
  it('releases work parked on a Retry-After or backoff (a proxy asked for decades) as well as rejected work', async () => {
    const c = await connected('Parked', 1);
    c.mirror.write.createParcels(c.farmLocal, parcelInputs(2, 'parked', -3));
    c.mirror.syncDb.prepare("UPDATE outbox SET next_attempt_at = '2058-01-01T00:00:00.000Z' WHERE state = 'queued'").run();
    expect((await cli(c.home, ['retry'])).out).toMatch(/0 rejected item\(s\) queued again, 2 waiting item\(s\) released; run sync\./);
    expect(c.mirror.read.outbox(c.acc).filter((o) => o.next_attempt_at !== null)).toEqual([]);
    expect((await cli(c.home, ['sync'])).status).toBe(0);
    c.mirror.close();
  });
});
