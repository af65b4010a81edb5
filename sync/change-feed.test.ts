// The engine against change feeds that misbehave (sync/change-feed.ts): a page past the client's answer cap is asked
// again for fewer changes, a feed that goes round in circles or never ends stops, a cursor the client could never send
// back is never kept, and a saved cursor the service refuses in any way leaves the pull to a full listing. Against the
// real service as a process, its answers rewritten by a proxy where a misbehaving service is needed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FEED, syncWorld, parcelInputs, type SyncWorld } from '../test/helpers/sync.ts';
import { as, recordingEngine, serviceParcels, type SentRequest } from '../test/helpers/engine.ts';
import { rewriteProxy, type Rewrite } from '../test/helpers/rewrite-proxy.ts';
import { changeCursor } from '../db/pull.ts';
import type { ProgressEvent } from './progress.ts';
import { MAX_FEED_CHANGES } from './change-feed.ts';

let w: SyncWorld;
beforeAll(async () => { w = await syncWorld({ LOG_LEVEL: 'fatal' }); });
afterAll(async () => { await w?.close(); });

/** An account with a farm of `n` parcels made on the service, pulled once into the mirror. */
async function pulledAccount(n: number): Promise<{ acc: string; farmId: number }> {
  const acc = await w.account();
  const r = await w.api('POST', '/api/farms/', { farm: { name: 'Feed farm' }, parcels: parcelInputs(n, 'cf') }, as(acc));
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  expect((await w.engine().sync({ accounts: [acc] })).accounts[0]).toMatchObject({ synced: true, pullKind: 'full' });
  return { acc, farmId: r.body.id as number };
}

const feedReads = (log: readonly SentRequest[]) => log.filter((r) => r.method === 'GET' && r.path.startsWith('/api/changes/?since='));
const parcelListings = (log: readonly SentRequest[]) => log.filter((r) => r.method === 'GET' && /^\/api\/farms\/\d+\/parcels\//.test(r.path));
const setService = (acc: string, url: string) => w.mirror.syncDb.prepare('UPDATE accounts SET service_url = ? WHERE id = ?').run(url, acc);

/** Runs a sync of `acc` through a proxy rewriting the service's answers; the account points at the service again after. */
async function syncThrough(acc: string, rewrite: Rewrite, log: SentRequest[] = [], events: ProgressEvent[] = []) {
  const proxy = await rewriteProxy(w.svc.url, rewrite);
  setService(acc, proxy.url);
  try {
    return (await recordingEngine(w, log, { sync: { onProgress: (e) => events.push(e) } }).sync({ accounts: [acc] })).accounts[0]!;
  } finally {
    setService(acc, w.svc.url);
    await proxy.close();
  }
}

describe.skipIf(!FEED)('a change feed that misbehaves', () => {
  it('a page past the answer cap is asked again from the same cursor for half as many changes, until it fits: every change arrives', async () => {
    const { acc, farmId } = await pulledAccount(30);
    for (const p of await serviceParcels(w, acc, farmId)) {
      expect((await w.api('PATCH', `/api/parcels/${p.id}/`, { name: `${p.properties.name} renamed` }, as(acc))).status).toBe(200);
    }
    const log: SentRequest[] = [];
    // 30 parcels' changes are ~25 KB of JSON: a page of them does not fit in 12 KB.
    const r = (await recordingEngine(w, log, { maxAnswerBytes: 12_000 }).sync({ accounts: [acc] })).accounts[0]!;
    expect(r).toMatchObject({ synced: true, pullKind: 'changes', error: null });
    const limits = feedReads(log).map((x) => Number(new URL(x.path, 'http://x').searchParams.get('limit')));
    expect(limits[0]).toBe(1000);
    expect(Math.min(...limits)).toBeLessThan(30);
    expect(parcelListings(log)).toEqual([]);
    expect(w.mirror.read.allParcels(acc).filter((p) => p.name.endsWith(' renamed'))).toHaveLength(30);
  });

  it('a feed whose cursors go round in circles stops with its reason: nothing applied, the cursor kept', async () => {
    const { acc } = await pulledAccount(2);
    const cursor = changeCursor(w.mirror.syncDb, acc);
    let n = 0;
    const r = await syncThrough(acc, {
      // Every page asked for is the service's current cursor (a 200 of the real service), rewritten.
      path: (x) => (x.path.startsWith('/api/changes/?since=') ? '/api/changes/' : undefined),
      body: (x) => (x.path.startsWith('/api/changes/?since=')
        ? { cursor: n++ % 2 ? 'cb' : 'ca', changes: [{ entity: 'parcel', id: 900_000_000 + n, deleted: true }], next: '/api/changes/?since=more' } : undefined),
    });
    expect(r.error).toMatch(/change feed does not advance: a cursor it gave before came back/);
    expect(n).toBe(3);
    expect(changeCursor(w.mirror.syncDb, acc)).toBe(cursor);
  });

  it(`a feed that never ends is left after ${MAX_FEED_CHANGES.toLocaleString('en')} changes for a full listing`, async () => {
    const { acc } = await pulledAccount(2);
    let n = 0;
    const events: ProgressEvent[] = [];
    const log: SentRequest[] = [];
    const tombstones = (page: number) => Array.from({ length: 1000 }, (_, i) => ({ entity: 'parcel', id: 800_000_000 + page * 1000 + i, deleted: true }));
    const r = await syncThrough(acc, {
      path: (x) => (x.path.startsWith('/api/changes/?since=') ? '/api/changes/' : undefined),
      body: (x) => (x.path.startsWith('/api/changes/?since=')
        ? { cursor: `c${++n}`, changes: tombstones(n), next: `/api/changes/?since=c${n}` } : undefined),
    }, log, events);
    expect(r).toMatchObject({ synced: true, pullKind: 'full' });
    expect(n).toBe(MAX_FEED_CHANGES / 1000 + 1);
    expect(events.some((e) => /more than 100,000 changes since the last pull: listing everything again/.test(e.message ?? ''))).toBe(true);
    expect(w.mirror.read.allParcels(acc)).toHaveLength(2);
  });

  it('a cursor longer than a cursor can be is refused with the page, never kept', async () => {
    const { acc, farmId } = await pulledAccount(2);
    const cursor = changeCursor(w.mirror.syncDb, acc);
    const target = (await serviceParcels(w, acc, farmId))[0]!;
    expect((await w.api('PATCH', `/api/parcels/${target.id}/`, { name: 'Not through this page' }, as(acc))).status).toBe(200);
    const r = await syncThrough(acc, {
      body: (x, status, json) => (x.path.startsWith('/api/changes/?since=') && status === 200 ? { ...(json as object), cursor: 'z'.repeat(20_000) } : undefined),
    });
    expect(r.error).toMatch(/change feed does not match the API schema/);
    expect(changeCursor(w.mirror.syncDb, acc)).toBe(cursor);
    expect(w.mirror.read.allParcels(acc).some((p) => p.name === 'Not through this page')).toBe(false);
  });

  it('a saved cursor the service refuses otherwise than with 400 or 410 (431: too large a header) leads to a full listing and a fresh cursor', async () => {
    const { acc } = await pulledAccount(3);
    const log: SentRequest[] = [];
    const events: ProgressEvent[] = [];
    const r = await syncThrough(acc, { refuse: (x) => (x.path.startsWith('/api/changes/?since=') ? 431 : undefined) }, log, events);
    expect(r).toMatchObject({ synced: true, pullKind: 'full', pulled: 3 });
    expect(events.map((e) => e.message).filter((m) => /refused the saved cursor/.test(m ?? ''))).toEqual(['the change feed refused the saved cursor (HTTP 431: Not found): listing everything again']);
    // The next pull goes by the feed again, from the fresh cursor.
    const next: SentRequest[] = [];
    expect((await recordingEngine(w, next).sync({ accounts: [acc] })).accounts[0]).toMatchObject({ synced: true, pullKind: 'changes' });
    expect(parcelListings(next)).toEqual([]);
  });

  it("a next link to another address is not followed, in the feed or in a listing: it says so and names PUBLIC_URL, and the other address gets nothing", async () => {
    let reached = 0;
    const other = createServer((_req, res) => { reached++; res.end('{}'); });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const elsewhere = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    try {
      const { acc } = await pulledAccount(2);
      const feed = await syncThrough(acc, {
        path: (x) => (x.path.startsWith('/api/changes/?since=') ? '/api/changes/' : undefined),
        body: (x) => (x.path.startsWith('/api/changes/?since=')
          ? { cursor: 'c1', changes: [{ entity: 'parcel', id: 700_000_001, deleted: true }], next: `${elsewhere}/api/changes/?since=c1` } : undefined),
      });
      expect(feed.error).toMatch(new RegExp(`^The change feed points away from the service \\(${elsewhere} instead of http://127\\.0\\.0\\.1:\\d+; not followed\\. .*its PUBLIC_URL must be the address its clients use\\)`));
      // A first pull's listing: the account's cursor forgotten, so that it lists.
      w.mirror.syncDb.prepare('UPDATE accounts SET change_cursor = NULL WHERE id = ?').run(acc);
      const listing = await syncThrough(acc, {
        body: (x, status, json) => (/^\/api\/farms\/\d+\/parcels\//.test(x.path) && status === 200 ? { ...(json as object), next: `${elsewhere}/api/farms/1/parcels/?offset=1` } : undefined),
      });
      expect(listing.pullNotDone).toMatch(/The listing of farm \d+ points away from the service .* not followed\. .*PUBLIC_URL/);
      expect(reached).toBe(0);
    } finally {
      other.close();
    }
  });
});
