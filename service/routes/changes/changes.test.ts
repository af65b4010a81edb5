// GET /api/changes/: every write path of the API and of the admin operations shows in the account's feed, each
// object as its own GET answers it, deletions as tombstones; cursors, pages, isolation and the horizon. Runs on
// SQLite and again on PostgreSQL (the `postgres` project), so it is the feed's conformance test on both stores.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  startService, newOrg, newAccount, newFarm, asAccount, asBearer, polygonParcel, type TestService, type Org, type Account,
} from '../../../test/helpers/service.ts';
import { setClock } from '../../store/clock.ts';

let svc: TestService;
let org: Org;
let acc: Account;
let other: Account;
beforeEach(async () => {
  svc = await startService();
  org = await newOrg(svc);
  acc = await newAccount(svc, org);
  other = await newAccount(svc, org);
});
afterEach(async () => {
  await svc.close();
});

interface Item { entity: string; id: number; deleted: boolean; data?: Record<string, unknown> }
const inject = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers: Record<string, string> = asAccount(org, acc)) =>
  svc.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
const ok = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => {
  const res = await inject(method, url, payload);
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
  return (res.statusCode === 204 ? {} : res.json()) as Record<string, unknown> & { id: number };
};
const cursorNow = async (headers = asAccount(org, acc)): Promise<string> => (await inject('GET', '/api/changes/', undefined, headers)).json().cursor as string;

/** Every change since `since`, following `next`, as entity:id → item; and the cursor to go on from. */
async function changesSince(since: string, limit?: number, headers = asAccount(org, acc)): Promise<{ items: Map<string, Item>; cursor: string; pages: number }> {
  let url: string | null = `/api/changes/?since=${encodeURIComponent(since)}${limit ? `&limit=${limit}` : ''}`;
  const items = new Map<string, Item>();
  let cursor = since;
  let pages = 0;
  while (url) {
    const res = await inject('GET', url.replace(/^https?:\/\/[^/]+/, ''), undefined, headers);
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json() as { cursor: string; changes: Item[]; next: string | null };
    for (const c of page.changes) items.set(`${c.entity}:${c.id}`, c);
    cursor = page.cursor;
    url = page.next;
    pages++;
  }
  return { items, cursor, pages };
}

/** That the item is the object exactly as its own GET answers it now. */
async function expectLive(items: Map<string, Item>, entity: string, id: number, url: string): Promise<void> {
  const item = items.get(`${entity}:${id}`);
  expect(item, `${entity} ${id} in the feed`).toBeDefined();
  expect(item!.deleted).toBe(false);
  const got = (await inject('GET', url)).json() as Record<string, unknown>;
  expect(item!.data).toEqual(got);
  // Its text too: the same keys in the same order.
  expect(JSON.stringify(item!.data)).toBe(JSON.stringify(got));
}
const expectGone = (items: Map<string, Item>, entity: string, id: number) =>
  expect(items.get(`${entity}:${id}`), `${entity} ${id} tombstone`).toEqual({ entity, id, deleted: true });

describe('GET /api/changes/', () => {
  it('without since: the current cursor and nothing else, for the header and the bearer token alike', async () => {
    const res = await inject('GET', '/api/changes/');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ cursor: expect.any(String), changes: [], next: null });
    expect((await inject('GET', '/api/changes/?since=', undefined, asBearer(acc))).json().cursor).toBe(res.json().cursor);
  });

  it('reports farm and parcel creates, bulk creates, PATCH, deletes, renames, each as its GET answers it', async () => {
    const c0 = await cursorNow();
    const farm = await newFarm(svc, org, acc, 'F', [polygonParcel('a'), polygonParcel('b', -4.7)]);
    const bulk = await ok('POST', '/api/parcels/', { farm: { id: farm.id }, parcels: [polygonParcel('c', -4.6), polygonParcel('d', -4.5)] }) as unknown as { id: number }[];
    let s = await changesSince(c0);
    await expectLive(s.items, 'farm', farm.id, `/api/farms/${farm.id}/`);
    for (const id of [...farm.parcels.map((p) => p.id), ...bulk.map((p) => p.id)]) await expectLive(s.items, 'parcel', id, `/api/parcels/${id}/`);
    expect(s.items.size).toBe(5);

    const c1 = s.cursor;
    expect((await changesSince(c1)).items.size).toBe(0);
    await ok('PATCH', `/api/parcels/${bulk[0]!.id}/`, { id: bulk[0]!.id, metadata: { crop: 'wheat' } });
    await ok('DELETE', `/api/parcels/${bulk[1]!.id}/`);
    await ok('PATCH', `/api/farms/${farm.id}/`, { name: 'Renamed' });
    s = await changesSince(c1);
    await expectLive(s.items, 'parcel', bulk[0]!.id, `/api/parcels/${bulk[0]!.id}/`);
    expectGone(s.items, 'parcel', bulk[1]!.id);
    await expectLive(s.items, 'farm', farm.id, `/api/farms/${farm.id}/`);
    expect(s.items.size).toBe(3);
  });

  it('reports crops and plants, and a farm delete as tombstones of the farm, its parcels, their crops and plants', async () => {
    const farm = await newFarm(svc, org, acc, 'F', [polygonParcel('a'), polygonParcel('b', -4.7)]);
    const [p1, p2] = farm.parcels.map((p) => p.id) as [number, number];
    const c0 = await cursorNow();
    const crop = await ok('POST', '/api/crops/', { parcel: p1, name: 'wheat' });
    const gone = await ok('POST', '/api/crops/', { parcel: p1, name: 'barley' });
    await svc.store.plants.import(org.organization_id, acc.id, { type: 'FeatureCollection', features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [-4.78, 37.88] }, properties: {} }] }, p2);
    const plantId = ((await inject('GET', `/api/parcels/${p2}/plants/`)).json() as { features: { id: number }[] }).features[0]!.id;
    await ok('PATCH', `/api/crops/${crop.id}/`, { variety: 'durum' });
    await ok('DELETE', `/api/crops/${gone.id}/`);
    let s = await changesSince(c0);
    await expectLive(s.items, 'crop', crop.id, `/api/crops/${crop.id}/`);
    expectGone(s.items, 'crop', gone.id);
    await expectLive(s.items, 'plant', plantId, `/api/plants/${plantId}/`);

    const c1 = s.cursor;
    await ok('DELETE', `/api/farms/${farm.id}/`);
    s = await changesSince(c1);
    expectGone(s.items, 'farm', farm.id);
    expectGone(s.items, 'parcel', p1);
    expectGone(s.items, 'parcel', p2);
    expectGone(s.items, 'crop', crop.id);
    expectGone(s.items, 'plant', plantId);
    expect(s.items.size).toBe(5);
  });

  it("reports an admin's unlink as tombstones (the farm became an orphan)", async () => {
    const farm = await newFarm(svc, org, acc, 'F', [polygonParcel('a')]);
    const crop = await ok('POST', '/api/crops/', { parcel: farm.parcels[0]!.id, name: 'wheat' });
    const c0 = await cursorNow();
    await svc.store.farms.unlink(org.organization_id, farm.id);
    const s = await changesSince(c0);
    expectGone(s.items, 'farm', farm.id);
    expectGone(s.items, 'parcel', farm.parcels[0]!.id);
    expectGone(s.items, 'crop', crop.id);
  });

  it("reports a crop's delete as its plants' change (their crop cleared), and a crop moved to another account's parcel in both feeds", async () => {
    const mine = await newFarm(svc, org, acc, 'Mine', [polygonParcel('a')]);
    const theirs = await newFarm(svc, org, other, 'Theirs', [polygonParcel('b', -4.6)]);
    const crop = await ok('POST', '/api/crops/', { parcel: mine.parcels[0]!.id, name: 'wheat' });
    await svc.store.plants.import(org.organization_id, acc.id, { type: 'FeatureCollection', features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [-4.78, 37.88] }, properties: { crop: crop.id } }] }, mine.parcels[0]!.id);
    const plantId = ((await inject('GET', `/api/parcels/${mine.parcels[0]!.id}/plants/`)).json() as { features: { id: number }[] }).features[0]!.id;
    const c0 = await cursorNow();
    await ok('DELETE', `/api/crops/${crop.id}/`);
    let s = await changesSince(c0);
    await expectLive(s.items, 'plant', plantId, `/api/plants/${plantId}/`);
    expect((s.items.get(`plant:${plantId}`)!.data as { properties: { crop: unknown } }).properties.crop).toBeNull();

    const moving = await ok('POST', '/api/crops/', { parcel: mine.parcels[0]!.id, name: 'barley' });
    const [c1, t1] = [await cursorNow(), await cursorNow(asAccount(org, other))];
    const moved = await inject('PATCH', `/api/crops/${moving.id}/`, { parcel: theirs.parcels[0]!.id }, { 'x-api-key': org.api_key });
    expect(moved.statusCode, moved.body).toBe(200);
    s = await changesSince(c1);
    expectGone(s.items, 'crop', moving.id);
    const t = await changesSince(t1, undefined, asAccount(org, other));
    expect(t.items.get(`crop:${moving.id}`)).toMatchObject({ deleted: false, data: { id: moving.id, parcel: theirs.parcels[0]!.id } });
  });

  it("an account's deactivation records nothing and its cursors survive reactivation; a purge takes the feed with the account", async () => {
    await newFarm(svc, org, acc, 'F', [polygonParcel('a')]);
    const c0 = await cursorNow();
    await svc.store.accounts.deactivate(org.organization_id, acc.id);
    expect((await inject('GET', `/api/changes/?since=${encodeURIComponent(c0)}`)).statusCode).toBe(403);
    await svc.store.accounts.reactivate(org.organization_id, acc.id);
    expect((await changesSince(c0)).items.size).toBe(0);
    await svc.store.accounts.deactivate(org.organization_id, acc.id);
    await svc.store.accounts.purge(org.organization_id, acc.id);
    const counts = await svc.probe.counts();
    expect(counts.farms).toBe(0);
    // The feed's own rows went with the account (a store-level check: no API reaches a purged account).
    expect((await svc.store.changes.read({ organizationId: org.organization_id, accountId: acc.id, via: 'api_key' }, 0, 10, 0)).rows).toEqual([]);
  });

  it('pages with limit: next until null, every change exactly once, resumable from any cursor', async () => {
    const c0 = await cursorNow();
    const farm = await newFarm(svc, org, acc, 'F', Array.from({ length: 7 }, (_, i) => polygonParcel(`p${i}`, -4.7 + i * 0.01)));
    const s = await changesSince(c0, 2);
    expect(s.items.size).toBe(8);
    expect(s.pages).toBe(4);
    const first = (await inject('GET', `/api/changes/?since=${encodeURIComponent(c0)}&limit=3`)).json() as { cursor: string; changes: Item[]; next: string };
    expect(first.changes).toHaveLength(3);
    expect(first.next).toContain('/api/changes/?since=');
    const rest = await changesSince(first.cursor);
    expect(rest.items.size).toBe(5);
    expect(new Set([...first.changes.map((c) => `${c.entity}:${c.id}`), ...rest.items.keys()]).size).toBe(8);
    expect(farm.parcels).toHaveLength(7);
  });

  it('ends a page before the change that would take it past CHANGES_PAGE_BYTES, whatever the limit: every change still comes, once', async () => {
    // A service whose pages hold ~40 KB of objects: each parcel here is a ring of 400 vertices (~16 KB of JSON).
    const budget = 40_000;
    const small = await startService({ changesPageBytes: budget });
    try {
      const o = await newOrg(small);
      const a = await newAccount(small, o);
      const get = (url: string) => small.app.inject({ method: 'GET', url: url.replace(/^https?:\/\/[^/]+/, ''), headers: asAccount(o, a) });
      const c0 = (await get('/api/changes/')).json().cursor as string;
      const farm = await newFarm(small, o, a, 'Rings', Array.from({ length: 8 }, (_, i) => ringParcel(`r${i}`, -4.7 + i * 0.01, 37.88, 400)));
      const seen: string[] = [];
      let url: string | null = `/api/changes/?since=${encodeURIComponent(c0)}&limit=10000`;
      let pages = 0;
      while (url) {
        const res = await get(url);
        expect(res.statusCode, res.body).toBe(200);
        const page = res.json() as { changes: Item[]; next: string | null };
        expect(page.changes.length).toBeGreaterThan(0);
        const largest = Math.max(...page.changes.map((c) => JSON.stringify(c).length));
        // Within the budget but for the change that reached it, and the page's own few fields.
        if (page.next) expect(res.body.length).toBeLessThanOrEqual(budget + largest + 500);
        seen.push(...page.changes.map((c) => `${c.entity}:${c.id}`));
        url = page.next;
        pages++;
      }
      expect(pages).toBeGreaterThanOrEqual(4);
      expect(seen.sort()).toEqual([`farm:${farm.id}`, ...farm.parcels.map((p) => `parcel:${p.id}`)].sort());
      // A change bigger than the whole budget still comes, alone: a page always moves on.
      const scope = { organizationId: o.organization_id, accountId: a.id, via: 'api_key' as const };
      const one = await small.store.changes.read(scope, decodeSeq(c0), 10, 0, 1_000);
      expect(one.rows).toHaveLength(1);
      expect(one.cut).toBe(true);
    } finally {
      await small.close();
    }
  });

  it("another organization's writes never move an account's cursor (on PostgreSQL too, whose numbers are shared)", async () => {
    const c0 = await cursorNow();
    const otherOrg = await newOrg(svc);
    const stranger = await newAccount(svc, otherOrg);
    await newFarm(svc, otherOrg, stranger, 'Elsewhere', [polygonParcel('x1'), polygonParcel('x2', -4.7)]);
    expect(await cursorNow()).toBe(c0);
    const page = (await inject('GET', `/api/changes/?since=${encodeURIComponent(c0)}`)).json() as { cursor: string; changes: Item[] };
    expect(page).toMatchObject({ cursor: c0, changes: [] });
    // Its own writes do, and resuming from there gives them once.
    const farm = await newFarm(svc, org, acc, 'Mine');
    const c1 = await cursorNow();
    expect(c1).not.toBe(c0);
    const s = await changesSince(c0);
    expect([...s.items.keys()]).toEqual([`farm:${farm.id}`]);
    expect(s.cursor).toBe(c1);
  });

  it("one account never sees another's changes; another account's cursor, a malformed one and the bare API key are refused", async () => {
    const c0 = await cursorNow(asAccount(org, other));
    await newFarm(svc, org, acc, 'Mine', [polygonParcel('a')]);
    expect((await changesSince(c0, undefined, asAccount(org, other))).items.size).toBe(0);
    const mine = await cursorNow();
    const theirs = await inject('GET', `/api/changes/?since=${encodeURIComponent(mine)}`, undefined, asAccount(org, other));
    expect(theirs.statusCode).toBe(400);
    expect(theirs.json().code).toBe('invalid_cursor');
    for (const bad of ['abc', '1', '-1.abcdefghij', '1.abc', `${'9'.repeat(20)}.abcdefghij`]) {
      const res = await inject('GET', `/api/changes/?since=${encodeURIComponent(bad)}`);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().code, bad).toBe('invalid_cursor');
    }
    const bare = await inject('GET', '/api/changes/', undefined, { 'x-api-key': org.api_key });
    expect(bare.statusCode).toBe(400);
    expect(bare.json().code).toBe('account_required');
  });

  it('410 cursor_expired for a cursor older than the tombstones kept, or ahead of every change; newer cursors go on', async () => {
    const farm = await newFarm(svc, org, acc, 'F', [polygonParcel('a'), polygonParcel('b', -4.7)]);
    const before = await cursorNow();
    await ok('DELETE', `/api/parcels/${farm.parcels[0]!.id}/`);
    const after = await cursorNow();
    const ahead = after.replace(/^\d+/, (n) => String(Number(n) + 5));
    const res = await inject('GET', `/api/changes/?since=${encodeURIComponent(ahead)}`);
    expect(res.statusCode).toBe(410);
    expect(res.json().code).toBe('cursor_expired');
    expect((await changesSince(before)).items.size).toBe(2); // the tombstone and the farm's new totals
    // 31 days on, the tombstone is past the default horizon of 30 days.
    const restore = setClock(() => Date.now() + 31 * 86_400_000);
    try {
      const old = await inject('GET', `/api/changes/?since=${encodeURIComponent(before)}`);
      expect(old.statusCode).toBe(410);
      expect(old.json().code).toBe('cursor_expired');
      expect((await changesSince(after)).items.size).toBe(0);
    } finally {
      restore();
    }
  });
});

/** A parcel whose outline is a ring of `vertices` points around (lon, lat), ~60 m across: a big object for its area. */
function ringParcel(name: string, lon: number, lat: number, vertices: number) {
  const ring = Array.from({ length: vertices }, (_, i) => {
    const t = (2 * Math.PI * i) / vertices;
    return [lon + 0.0004 * Math.cos(t), lat + 0.0003 * Math.sin(t)];
  });
  return { name, metadata: {}, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[...ring, ring[0]!]] } } };
}

/** A cursor's number (service/store/changes.ts encodeCursor: `<seq>.<account tag>`). */
const decodeSeq = (cursor: string): number => Number(cursor.split('.')[0]);
