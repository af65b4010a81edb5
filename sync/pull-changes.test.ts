// Incremental pulls (docs/sync.md "Incremental pulls"): after a first full pull, the engine reads only the changes
// since its cursor from the service's change feed, through the same merge as a full listing; it falls back to a
// full listing when the cursor is refused, and against a service without the feed (the hosted original) it lists
// in full every time, asking once per run. Against the real service as a process (test/helpers/sync.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEED, syncWorld, parcelInputs, type SyncWorld } from '../test/helpers/sync.ts';
import { as, recordingEngine, serviceParcels, type SentRequest } from '../test/helpers/engine.ts';
import { rewriteProxy } from '../test/helpers/rewrite-proxy.ts';
import { changeCursor } from '../db/pull.ts';
import { problems } from './status.ts';
import type { ProgressEvent } from './progress.ts';

let w: SyncWorld;
beforeAll(async () => { w = await syncWorld({ LOG_LEVEL: 'fatal' }); });
afterAll(async () => { await w?.close(); });

/** An account with `farms` farms of `n` parcels each made on the service, pulled once into the mirror. */
async function pulledAccount(farms: number, n: number): Promise<{ acc: string; farmIds: number[]; firstBytes: number }> {
  const acc = await w.account();
  const farmIds: number[] = [];
  for (let f = 0; f < farms; f++) {
    const r = await w.api('POST', '/api/farms/', { farm: { name: `Farm ${f}` }, parcels: parcelInputs(n, `f${f}`, -4 + f * 0.3) }, as(acc));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    farmIds.push(r.body.id as number);
  }
  const events: ProgressEvent[] = [];
  const first = await w.engine({ onProgress: (e) => events.push(e) }).sync({ accounts: [acc] });
  expect(first.accounts[0]).toMatchObject({ synced: true, pulled: farms * n, pullKind: 'full', pullNote: null });
  // A full pull's progress counts parcels out of the farm list's total, with the bytes received so far.
  const pull = events.filter((e) => e.phase === 'pull');
  expect(pull.every((e) => e.total === farms * n)).toBe(true);
  expect(pull.at(-1)).toMatchObject({ done: farms * n, total: farms * n });
  expect(pull.at(-1)!.bytesReceived).toBeGreaterThan(0);
  return { acc, farmIds, firstBytes: first.accounts[0]!.bytesReceived };
}

const localByServer = (acc: string, serverId: number) => w.mirror.read.allParcels(acc).find((p) => p.server_id === serverId);
const parcelListings = (log: readonly SentRequest[]) => log.filter((r) => r.method === 'GET' && /^\/api\/farms\/\d+\/parcels\//.test(r.path));
const feedReads = (log: readonly SentRequest[]) => log.filter((r) => r.method === 'GET' && r.path.startsWith('/api/changes/'));

describe.skipIf(!FEED)('against a service with the change feed', () => {
  it('an edit made on the service is pulled from the feed: no farm is listed again, and only that parcel arrives', async () => {
    const { acc, farmIds, firstBytes } = await pulledAccount(3, 40);
    expect(changeCursor(w.mirror.syncDb, acc)).not.toBeNull();
    const target = (await serviceParcels(w, acc, farmIds[1]!))[7]!;
    expect((await w.api('PATCH', `/api/parcels/${target.id}/`, { name: 'Renamed on the service', metadata: { crop: 'olive' } }, as(acc))).status).toBe(200);
    const log: SentRequest[] = [];
    const r = await recordingEngine(w, log).sync({ accounts: [acc] });
    expect(r.accounts[0]).toMatchObject({ synced: true, pulled: 1, received: 1, pullKind: 'changes' });
    // Bytes on the wire follow what changed: one parcel of 120, a fraction of the first pull even with the small
    // answers every pull reads (the account, the crop families, ~1.9 kB in all); bench/pull.ts measures it at scale.
    // (At 60 parcels the first pull's gzip, smaller since the service's keys are time-ordered, was under 3× that.)
    expect(r.accounts[0]!.bytesReceived).toBeGreaterThan(0);
    expect(r.accounts[0]!.bytesReceived).toBeLessThan(firstBytes / 3);
    expect(parcelListings(log)).toEqual([]);
    expect(log.some((x) => x.path === '/api/farms/')).toBe(false);
    expect(feedReads(log).length).toBeGreaterThanOrEqual(1);
    const local = localByServer(acc, target.id)!;
    expect(local.name).toBe('Renamed on the service');
    expect(JSON.parse(local.metadata)).toMatchObject({ crop: 'olive' });
    // Nothing changed since: nothing received, the cursor moved on and the feed answers empty.
    const again = await recordingEngine(w, []).sync({ accounts: [acc] });
    expect(again.accounts[0]).toMatchObject({ synced: true, pulled: 0, received: 0 });
  });

  it('a deletion on the service arrives as a tombstone: removed here, unless it has an edit not yet sent (then a conflict, as a full pull does)', async () => {
    const { acc, farmIds } = await pulledAccount(1, 40);
    const [gone, edited] = await serviceParcels(w, acc, farmIds[0]!);
    const editedLocal = localByServer(acc, edited!.id)!;
    w.mirror.write.updateParcel(editedLocal.local_id, { name: 'Edited here, not sent' });
    for (const p of [gone!, edited!]) expect((await w.api('DELETE', `/api/parcels/${p.id}/`, undefined, as(acc))).status).toBe(204);
    const log: SentRequest[] = [];
    // A pull alone: the local edit stays unsent.
    const r = await recordingEngine(w, log).sync({ accounts: [acc], push: false });
    expect(parcelListings(log)).toEqual([]);
    expect(r.accounts[0]).toMatchObject({ conflicts: 1 });
    expect(localByServer(acc, gone!.id)).toBeUndefined();
    expect(localByServer(acc, edited!.id)).toMatchObject({ name: 'Edited here, not sent' });
    expect(w.mirror.read.conflicts().filter((c) => c.local_id === editedLocal.local_id)).toMatchObject([{ kind: 'remote_delete', entity: 'parcel' }]);
    expect(w.mirror.read.allParcels(acc)).toHaveLength(39);
  });

  it('a local create not yet sent is never deleted by a pull from the feed', async () => {
    const { acc } = await pulledAccount(1, 5);
    const farm = w.mirror.read.farms(acc)[0]!;
    const { created } = w.mirror.write.createParcels(farm.local_id, parcelInputs(3, 'local', -3));
    await w.engine().sync({ accounts: [acc], push: false });
    for (const p of created) expect(w.mirror.read.parcel(p.local_id)).toBeDefined();
  });

  it('tombstones of more than a fifth of a farm at once are held and kept in the mirror: the cursor moves on, the next pulls hold them without reading them again, and accepted they apply', async () => {
    const { acc, farmIds } = await pulledAccount(1, 40);
    const before = changeCursor(w.mirror.syncDb, acc);
    const remote = await serviceParcels(w, acc, farmIds[0]!);
    for (const p of remote.slice(0, 20)) expect((await w.api('DELETE', `/api/parcels/${p.id}/`, undefined, as(acc))).status).toBe(204);
    const held = await w.engine().sync({ accounts: [acc] });
    expect(held.accounts[0]!.deletionsHeld).toEqual([expect.stringMatching(/deleted 20 of the 40 parcels/)]);
    expect(w.mirror.read.allParcels(acc)).toHaveLength(40);
    const after = changeCursor(w.mirror.syncDb, acc);
    expect(after).not.toBe(before);
    // Held again next time, from the mirror: the feed is read from the new cursor, and gives nothing.
    const log: SentRequest[] = [];
    const again = (await recordingEngine(w, log).sync({ accounts: [acc] })).accounts[0]!;
    expect(again).toMatchObject({ synced: false, pullKind: 'changes', deletionsHeld: [expect.stringMatching(/deleted 20 of the 40 parcels/)] });
    expect(feedReads(log).map((r) => new URL(r.path, 'http://x').searchParams.get('since'))).toEqual([after]);
    expect(parcelListings(log)).toEqual([]);
    expect(w.mirror.read.allParcels(acc)).toHaveLength(40);
    // `problems` says so too, between syncs.
    expect(problems(w.mirror, acc).filter((p) => p.kind === 'deletions_held')).toEqual([
      expect.objectContaining({ id: acc, entity: 'account', reason: expect.stringMatching(/^the service deleted 20 parcels that the last pull held back .* run sync --accept-remote-deletions$/) }),
    ]);
    // Accepted, they are confirmed by listing everything, and go.
    const events: ProgressEvent[] = [];
    const applied = await w.engine({ acceptRemoteDeletions: true, onProgress: (e) => events.push(e) }).sync({ accounts: [acc] });
    expect(applied.accounts[0]).toMatchObject({ synced: true, deletionsHeld: [], pullKind: 'full' });
    expect(events.some((e) => /applying the deletions held: listing everything to confirm them/.test(e.message ?? ''))).toBe(true);
    expect(w.mirror.read.allParcels(acc)).toHaveLength(20);
    expect((await w.engine().sync({ accounts: [acc] })).accounts[0]).toMatchObject({ synced: true, deletionsHeld: [], pullKind: 'changes' });
    expect(problems(w.mirror, acc)).toEqual([]);
  });

  it('a farm deleted on the service is removed with its parcels, and the run says how many went', async () => {
    const { acc, farmIds } = await pulledAccount(2, 3);
    expect((await w.api('DELETE', `/api/farms/${farmIds[0]}/`, undefined, as(acc))).status).toBe(204);
    const r = (await w.engine().sync({ accounts: [acc] })).accounts[0]!;
    expect(r).toMatchObject({ synced: true, pullKind: 'changes', received: 0, removed: 4, deletionsHeld: [] });
    expect(w.mirror.read.farms(acc)).toHaveLength(1);
    expect(w.mirror.read.allParcels(acc)).toHaveLength(3);
  });

  it("tombstones of a faulty answer are held; applying them lists everything first, and deletes nothing the service still has", async () => {
    const { acc, farmIds } = await pulledAccount(1, 30);
    const remote = await serviceParcels(w, acc, farmIds[0]!);
    const proxy = await rewriteProxy(w.svc.url, {
      body: (x, status, json) => (x.path.startsWith('/api/changes/?since=') && status === 200
        ? { ...(json as object), changes: remote.slice(0, 15).map((p) => ({ entity: 'parcel', id: p.id, deleted: true })) } : undefined),
    });
    const setService = (url: string) => w.mirror.syncDb.prepare('UPDATE accounts SET service_url = ? WHERE id = ?').run(url, acc);
    setService(proxy.url);
    try {
      expect((await w.engine().sync({ accounts: [acc] })).accounts[0]!.deletionsHeld).toEqual([expect.stringMatching(/deleted 15 of the 30 parcels/)]);
    } finally {
      setService(w.svc.url);
      await proxy.close();
    }
    // Still held by the next pull (the mirror keeps them); applied, the listings show every parcel: none goes.
    expect((await w.engine().sync({ accounts: [acc] })).accounts[0]!.deletionsHeld).toHaveLength(1);
    const applied = await w.engine({ acceptRemoteDeletions: true }).sync({ accounts: [acc] });
    expect(applied.accounts[0]).toMatchObject({ synced: true, deletionsHeld: [], pullKind: 'full' });
    expect(w.mirror.read.allParcels(acc)).toHaveLength(30);
    expect((await w.engine().sync({ accounts: [acc] })).accounts[0]).toMatchObject({ synced: true, deletionsHeld: [] });
  });

  // The feed's page is checked in two steps (sync/change-feed.ts): the page, then each change against its own member
  // of ChangesPage's union. A change that is not its entity's shape, or of no entity, still refuses the whole page.
  it('a change not of its entity\'s shape, or of no entity, refuses the page: nothing of it applied, the cursor kept', async () => {
    const { acc, farmIds } = await pulledAccount(1, 4);
    const cursor = changeCursor(w.mirror.syncDb, acc);
    const target = (await serviceParcels(w, acc, farmIds[0]!))[1]!;
    expect((await w.api('PATCH', `/api/parcels/${target.id}/`, { name: 'Renamed on the service' }, as(acc))).status).toBe(200);
    type Change = { entity: string; deleted: unknown; data?: Record<string, unknown> };
    const spoilt: ((c: Change) => Change)[] = [
      (c) => ({ ...c, data: { ...c.data, geometry: null } }),
      (c) => ({ ...c, entity: 'tractor' }),
      (c) => ({ ...c, deleted: 'no' }),
    ];
    const setService = (url: string) => w.mirror.syncDb.prepare('UPDATE accounts SET service_url = ? WHERE id = ?').run(url, acc);
    for (const spoil of spoilt) {
      const proxy = await rewriteProxy(w.svc.url, {
        body: (x, status, json) => (x.path.startsWith('/api/changes/?since=') && status === 200
          ? { ...(json as object), changes: (json as { changes: Change[] }).changes.map(spoil) } : undefined),
      });
      setService(proxy.url);
      try {
        const r = await w.engine().sync({ accounts: [acc] });
        expect(r.accounts[0]).toMatchObject({ synced: false, pulled: 0 });
        expect(r.accounts[0]!.error).toMatch(/change feed \(change 0\) does not match the API schema/);
      } finally {
        setService(w.svc.url);
        await proxy.close();
      }
      expect(localByServer(acc, target.id)!.name).not.toBe('Renamed on the service');
      expect(changeCursor(w.mirror.syncDb, acc)).toBe(cursor);
    }
    const r = await w.engine().sync({ accounts: [acc] });
    expect(r.accounts[0]).toMatchObject({ synced: true, pulled: 1, pullKind: 'changes' });
    expect(localByServer(acc, target.id)!.name).toBe('Renamed on the service');
  });

  it('a cursor ahead of the service (from the future), or one it cannot read, falls back to a full listing, said in the progress', async () => {
    const { acc, farmIds } = await pulledAccount(1, 12);
    const cursor = changeCursor(w.mirror.syncDb, acc)!;
    const [seq, tag] = cursor.split('.');
    for (const [bad, why] of [[`${Number(seq) + 1000}.${tag}`, /cursor_expired/], ['not-a-cursor', /invalid_cursor/]] as const) {
      w.mirror.syncDb.prepare('UPDATE accounts SET change_cursor = ? WHERE id = ?').run(bad, acc);
      const target = (await serviceParcels(w, acc, farmIds[0]!))[3]!;
      expect((await w.api('PATCH', `/api/parcels/${target.id}/`, { name: `After ${bad}` }, as(acc))).status).toBe(200);
      const log: SentRequest[] = [];
      const events: ProgressEvent[] = [];
      const r = await recordingEngine(w, log, { sync: { onProgress: (e) => events.push(e) } }).sync({ accounts: [acc] });
      expect(r.accounts[0]).toMatchObject({ synced: true, pulled: 12, received: 1 });
      expect(parcelListings(log)).toHaveLength(1);
      expect(events.some((e) => why.test(e.message ?? '') && /listing everything/.test(e.message ?? ''))).toBe(true);
      expect(localByServer(acc, target.id)!.name).toBe(`After ${bad}`);
      // A fresh cursor: the next pull goes by the feed again.
      const fresh = changeCursor(w.mirror.syncDb, acc);
      expect(fresh).not.toBe(bad);
      const next: SentRequest[] = [];
      await recordingEngine(w, next).sync({ accounts: [acc] });
      expect(parcelListings(next)).toEqual([]);
    }
  });

  it('a cursor past the feed\'s horizon (a deletion since was forgotten) falls back to a full listing, and the deletion is found by it', async () => {
    // A service that keeps tombstones no time at all: every cursor from before a deletion is past its horizon.
    const short = await syncWorld({ LOG_LEVEL: 'fatal', CHANGE_HORIZON_DAYS: '0' });
    try {
      const acc = await short.account();
      const farm = await short.api('POST', '/api/farms/', { farm: { name: 'Short' }, parcels: parcelInputs(12, 'h') }, as(acc));
      expect((await short.engine().sync({ accounts: [acc] })).accounts[0]).toMatchObject({ synced: true, pulled: 12, pullKind: 'full' });
      const [gone] = await serviceParcels(short, acc, farm.body.id as number);
      expect((await short.api('DELETE', `/api/parcels/${gone!.id}/`, undefined, as(acc))).status).toBe(204);
      await new Promise((r) => setTimeout(r, 1100)); // the tombstone a second old: past a horizon of 0 days
      const events: ProgressEvent[] = [];
      const r = await short.engine({ onProgress: (e) => events.push(e) }).sync({ accounts: [acc] });
      expect(r.accounts[0]).toMatchObject({ synced: true, pulled: 11, pullKind: 'full', pullNote: expect.stringMatching(/cursor_expired/) });
      expect(events.some((e) => /cursor_expired.*listing everything again/.test(e.message ?? ''))).toBe(true);
      expect(short.mirror.read.allParcels(acc).some((p) => p.server_id === gone!.id)).toBe(false);
    } finally {
      await short.close();
    }
  });

  it('a change made on the service during the first listing is not lost: the cursor was taken before the listing began', async () => {
    const acc = await w.account();
    const farmIds: number[] = [];
    for (let f = 0; f < 3; f++) farmIds.push((await w.api('POST', '/api/farms/', { farm: { name: `During ${f}` }, parcels: parcelInputs(10, `d${f}`, -4 + f * 0.3) }, as(acc))).body.id as number);
    const first = (await serviceParcels(w, acc, farmIds[0]!))[0]!;
    let changed = false;
    // When the third farm is about to be listed, a parcel of the first (listed and merged by then: the engine asks
    // for one farm's listing ahead, no more) changes on the service.
    const gate = async (e: SentRequest) => {
      if (!changed && e.path.startsWith(`/api/farms/${farmIds[2]}/parcels/`)) {
        changed = true;
        expect((await w.api('PATCH', `/api/parcels/${first.id}/`, { name: 'Changed during the listing' }, as(acc))).status).toBe(200);
      }
    };
    await recordingEngine(w, [], { gate }).sync({ accounts: [acc] });
    expect(changed).toBe(true);
    expect(localByServer(acc, first.id)!.name).toBe(first.properties.name);
    const log: SentRequest[] = [];
    await recordingEngine(w, log).sync({ accounts: [acc] });
    expect(parcelListings(log)).toEqual([]);
    expect(localByServer(acc, first.id)!.name).toBe('Changed during the listing');
  });
});

describe('against a service without the change feed (the hosted original: 404)', () => {
  it('every pull lists in full, no cursor is kept, and the feed is asked at most once per account per run', async () => {
    const proxy = await rewriteProxy(w.svc.url, { refuse: (x) => (x.path.startsWith('/api/changes/') ? 404 : undefined) });
    try {
      const accs: string[] = [];
      for (let i = 0; i < 2; i++) {
        const acc = await w.account();
        w.mirror.write.addAccount({ id: acc, service_url: proxy.url, mode: 'api_key' });
        expect((await w.api('POST', '/api/farms/', { farm: { name: `Orig ${i}` }, parcels: parcelInputs(8, `o${i}`) }, as(acc))).status).toBe(201);
        accs.push(acc);
      }
      for (let run = 0; run < 2; run++) {
        const target = (await serviceParcels(w, accs[0]!, (await w.api('GET', '/api/farms/', undefined, as(accs[0]!))).body[0].id))[run]!;
        expect((await w.api('PATCH', `/api/parcels/${target.id}/`, { name: `Run ${run}` }, as(accs[0]!))).status).toBe(200);
        const before = proxy.seen.length;
        const r = await w.engine().sync({ accounts: accs });
        for (const a of r.accounts) expect(a).toMatchObject({ synced: true, pulled: 8 });
        const seen = proxy.seen.slice(before);
        // Accounts pulled side by side may each ask before the first 404 comes; never more than once each.
        const asked = seen.filter((x) => x.path.startsWith('/api/changes/')).length;
        expect(asked).toBeGreaterThanOrEqual(1);
        expect(asked).toBeLessThanOrEqual(accs.length);
        expect(seen.filter((x) => /^\/api\/farms\/\d+\/parcels\//.test(x.path))).toHaveLength(2);
        for (const a of accs) expect(changeCursor(w.mirror.syncDb, a)).toBeNull();
        expect(localByServer(accs[0]!, target.id)!.name).toBe(`Run ${run}`);
      }
    } finally {
      await proxy.close();
    }
  });
});
