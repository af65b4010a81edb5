// Migration 004 on a database that already has a change feed (version 3): the cursors clients hold keep working,
// and the numbers taken from the new sequence continue above every number the old counters handed out.
import { afterAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { PG_SKIP, createTestDatabase, type TestDatabase } from '../../../test/helpers/postgres.ts';
import { migratePg } from './migrate.ts';
import { openPgPool } from './pool.ts';
import { pgStore } from './index.ts';
import { insertOrganization, newAccount } from './test-tenants.ts';
import { encodeCursor, readChanges } from '../changes.ts';
import type { Scope } from '../scope.ts';

const ORG = 'org-m004';

describe.skipIf(PG_SKIP !== null)('PostgreSQL migration 004 (the change feed numbered from a sequence)', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it("keeps the cursors of version 3's counters valid and numbers later changes above them", async () => {
    db = await createTestDatabase();
    pool = openPgPool(db.url, { max: 4 });
    await migratePg(pool, { upTo: 3 });
    await insertOrganization(pool, { id: ORG, name: 'Org', created: '2024-01-01T00:00:00.000Z' });
    await newAccount(pool, ORG, 'acc-a');
    await newAccount(pool, ORG, 'acc-b');
    const store = pgStore(pool, async () => {});
    const scope = (accountId: string): Scope => ({ organizationId: ORG, accountId, via: 'api_key' });
    // Writes at version 3 number through the per-account counters: acc-b's counter runs ahead of acc-a's.
    const a1 = await store.farms.create(scope('acc-a'), 'A1', []);
    const a2 = await store.farms.create(scope('acc-a'), 'A2', []);
    for (const n of [1, 2, 3, 4]) await store.farms.create(scope('acc-b'), `B${n}`, []);
    const counter = async (acc: string) => Number((await pool.query<{ seq: string }>('SELECT seq FROM change_seq WHERE account_id = $1', [acc])).rows[0]!.seq);
    const heldByA = await counter('acc-a');
    const heldByB = await counter('acc-b');
    expect([heldByA, heldByB]).toEqual([2, 4]);

    expect(await migratePg(pool)).toMatchObject({ from: 3 });
    const a3 = await store.farms.create(scope('acc-a'), 'A3', []);
    const read = (acc: string, seq: number) => readChanges(store, scope(acc), acc, encodeCursor(acc, seq), 100, 30 * 86_400, Date.now());
    const ids = (items: string[]) => items.map((i) => (JSON.parse(i) as { id: number }).id);
    // A cursor taken before the upgrade, after A1: A2 and the new A3, nothing twice, no 410.
    const fromOld = await read('acc-a', 1);
    expect(ids(fromOld.items)).toEqual([a2.farm.id, a3.farm.id]);
    expect(ids((await read('acc-a', heldByA)).items)).toEqual([a3.farm.id]);
    // acc-b's newest cursor is not "ahead of every change" after the upgrade, and A3 numbered above it.
    expect((await read('acc-b', heldByB)).items).toEqual([]);
    expect(Number(fromOld.cursor.split('.')[0])).toBeGreaterThan(heldByB);
    expect(ids((await read('acc-a', heldByA)).items)).not.toContain(a1.farm.id);
  });
});
