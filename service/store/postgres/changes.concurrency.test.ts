// The change feed with two service processes on one database: a change committed after a later-numbered one would
// be skipped by a reader whose cursor moved past it. Two writers of one account, one holding its transaction open,
// and readers polling meanwhile: every change reaches the reader.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { PG_SKIP, useTestDatabase } from '../../../test/helpers/postgres.ts';
import { migratePg } from './migrate.ts';
import { openPgPool } from './pool.ts';
import { pgStore } from './index.ts';
import { insertOrganization, newAccount } from './test-tenants.ts';
import { polygon, settle, valid } from './parcel-conformance.ts';
import { encodeCursor as encodeCursorOf, readChanges } from '../changes.ts';
import type { Store } from '../store.ts';
import type { Scope } from '../scope.ts';

const ORG = 'org-changes';

describe.skipIf(PG_SKIP !== null)('PostgreSQL change feed with two service processes', () => {
  const db = useTestDatabase();
  let p1: pg.Pool;
  let p2: pg.Pool;
  let s1: Store;
  let s2: Store;
  beforeAll(async () => {
    p1 = openPgPool(db().url, { max: 6 });
    p2 = openPgPool(db().url, { max: 6 });
    await migratePg(p1);
    await insertOrganization(p1, { id: ORG, name: 'Org', created: '2024-01-01T00:00:00.000Z' });
    s1 = pgStore(p1, async () => {});
    s2 = pgStore(p2, async () => {});
  });
  afterAll(async () => {
    await Promise.all([p1?.end(), p2?.end()]);
  });

  const scope = (accountId: string): Scope => ({ organizationId: ORG, accountId, via: 'api_key' });
  const page = (store: Store, acc: string, since?: string, limit = 1000) => readChanges(store, scope(acc), acc, since, limit, 30 * 86_400, Date.now());
  const keys = (items: string[]) => items.map((i) => { const o = JSON.parse(i) as { entity: string; id: number }; return `${o.entity}:${o.id}`; });

  it('a reader never moves its cursor past a change still in flight, when a later writer commits first', async () => {
    await newAccount(p1, ORG, 'acc-flight');
    const a = await s1.farms.create(scope('acc-flight'), 'A', []);
    const b = await s1.farms.create(scope('acc-flight'), 'B', []);
    const c0 = (await page(s1, 'acc-flight')).cursor;
    const held = await p2.connect();
    let mid: string;
    let during: string[] = [];
    let second: Promise<unknown>;
    try {
      // Writer 1 changes farm A and holds its transaction open.
      await held.query('BEGIN');
      await held.query("UPDATE farms SET name = 'A renamed' WHERE organization_id = $1 AND id = $2", [ORG, a.farm.id]);
      // Writer 2, the other process, creates parcels in farm B and commits meanwhile.
      second = settle(s1.parcels.createBatch(scope('acc-flight'), b.farm.id, valid([polygon('late', 0, 0)])));
      await new Promise((r) => setTimeout(r, 300));
      // A reader now: whatever it returns, its cursor must not pass writer 1's change.
      const p = await page(s1, 'acc-flight', c0);
      mid = p.cursor;
      during = keys(p.items);
      await held.query('COMMIT');
    } finally {
      held.release();
    }
    const created = await second;
    expect(Array.isArray(created)).toBe(true);
    // What the reader saw before and after its cursor: every change since c0, farm A's included.
    const after = keys((await page(s2, 'acc-flight', mid)).items);
    expect(after).toContain(`farm:${a.farm.id}`);
    expect(new Set([...during, ...after])).toContain(`parcel:${(created as { id: number }[])[0]!.id}`);
  });

  it('a reader never moves its cursor past a change numbered but not yet committed, when a later writer commits first', async () => {
    // The window migration 004 guards: a writer's commit has taken its numbers from the sequence and not yet ended.
    // SET CONSTRAINTS ALL IMMEDIATE runs the numbering (a deferred trigger) now, so the test holds that window open.
    // Without the reader's barrier (change_feed_top) its cursor passes the held number and the change is never read.
    await newAccount(p1, ORG, 'acc-window');
    const a = await s1.farms.create(scope('acc-window'), 'A', []);
    const b = await s1.farms.create(scope('acc-window'), 'B', []);
    const c0 = (await page(s1, 'acc-window')).cursor;
    const held = await p2.connect();
    let reading: Promise<Awaited<ReturnType<typeof page>>>;
    let created: unknown;
    try {
      await held.query('BEGIN');
      await held.query("UPDATE farms SET name = 'A renamed' WHERE organization_id = $1 AND id = $2", [ORG, a.farm.id]);
      await held.query('SET CONSTRAINTS ALL IMMEDIATE');
      // Another writer of the account commits above the held number, without waiting for it.
      created = await settle(s1.parcels.createBatch(scope('acc-window'), b.farm.id, valid([polygon('window', 0, 0)])));
      expect(Array.isArray(created)).toBe(true);
      reading = page(s1, 'acc-window', c0);
      await new Promise((r) => setTimeout(r, 300));
      await held.query('COMMIT');
    } finally {
      held.release();
    }
    const p = await reading;
    const after = keys((await page(s2, 'acc-window', p.cursor)).items);
    const seen = new Set([...keys(p.items), ...after]);
    expect(seen).toContain(`farm:${a.farm.id}`);
    expect(seen).toContain(`parcel:${(created as { id: number }[])[0]!.id}`);
  });

  it("one account's writers commit without waiting for each other (no per-account lock between writers)", async () => {
    // Migration 003's counter row made the second commit wait for the first writer's whole transaction to end.
    await newAccount(p1, ORG, 'acc-parallel');
    const f = await s1.farms.create(scope('acc-parallel'), 'F', []);
    const g = await s1.farms.create(scope('acc-parallel'), 'G', []);
    const held = await p2.connect();
    try {
      await held.query('BEGIN');
      await held.query("UPDATE farms SET name = 'F2' WHERE organization_id = $1 AND id = $2", [ORG, f.farm.id]);
      await held.query('SET CONSTRAINTS ALL IMMEDIATE');
      const other = settle(s1.farms.rename(scope('acc-parallel'), g.farm.id, 'G2'));
      const outcome = await Promise.race([other, new Promise((r) => setTimeout(() => r('waited 5 s'), 5000))]);
      expect(outcome).toMatchObject({ name: 'G2' });
      await held.query('COMMIT');
    } finally {
      held.release();
    }
  });

  it('a write holding the counter never waits for a row another writer holds while waiting for the counter (no deadlock)', async () => {
    // Numbered at the change instead of at commit, this was a deadlock: writer 1's crop delete took the counter,
    // writer 2's bulk create held the farm and waited for the counter, writer 1 then waited for the farm.
    await newAccount(p1, ORG, 'acc-locks');
    const f = await s1.farms.create(scope('acc-locks'), 'F', valid([polygon('p', 0, 0)]));
    const crop = await s1.crops.create(scope('acc-locks'), { parcel: f.rows[0]!.id, name: 'wheat' });
    const held = await p2.connect();
    try {
      await held.query('BEGIN');
      await held.query('DELETE FROM crops WHERE id = $1', [crop.id]);
      const batch = settle(s1.parcels.createBatch(scope('acc-locks'), f.farm.id, valid([polygon('q', 0.01, 0)])));
      await new Promise((r) => setTimeout(r, 300));
      const rename = settle(held.query("UPDATE farms SET name = 'G' WHERE organization_id = $1 AND id = $2", [ORG, f.farm.id]));
      expect(Array.isArray(await batch)).toBe(true);
      expect(await rename).toMatchObject({ rowCount: 1 });
      await held.query('COMMIT');
    } finally {
      held.release();
    }
    const all = keys((await page(s1, 'acc-locks', encodeCursorOf('acc-locks', 0))).items);
    expect(all).toEqual(expect.arrayContaining([`farm:${f.farm.id}`, `crop:${crop.id}`]));
  });

  it('readers polling while two processes write batches and edits concurrently end with every object', async () => {
    await newAccount(p1, ORG, 'acc-busy');
    const farms = await Promise.all([0, 1, 2, 3].map((i) => (i % 2 ? s2 : s1).farms.create(scope('acc-busy'), `F${i}`, [])));
    let cursor = (await page(s1, 'acc-busy')).cursor;
    const seen = new Set<string>();
    let writing = true;
    const reader = (async () => {
      for (let round = 0; writing || round < 2; round++) {
        const p = await page(round % 2 ? s2 : s1, 'acc-busy', cursor, 7);
        for (const k of keys(p.items)) seen.add(k);
        cursor = p.cursor;
        if (!p.more && !writing) round++;
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const made = await Promise.all(Array.from({ length: 24 }, (_, n) => (n % 2 ? s2 : s1).parcels.createBatch(scope('acc-busy'), farms[n % 4]!.farm.id,
      valid(Array.from({ length: 5 }, (_, i) => polygon(`b${n}-${i}`, n * 0.1 + i * 0.01, 0))))));
    await Promise.all(made.map((rows, n) => (n % 2 ? s1 : s2).farms.rename(scope('acc-busy'), farms[n % 4]!.farm.id, `F${n % 4} v${n}`)));
    writing = false;
    await reader;
    // Drain what is left after the last write.
    for (;;) {
      const p = await page(s1, 'acc-busy', cursor);
      for (const k of keys(p.items)) seen.add(k);
      cursor = p.cursor;
      if (!p.more) break;
    }
    const expected = [...made.flat().map((r) => `parcel:${r.id}`), ...farms.map((f) => `farm:${f.farm.id}`)];
    expect(expected.filter((k) => !seen.has(k))).toEqual([]);
  });
});
