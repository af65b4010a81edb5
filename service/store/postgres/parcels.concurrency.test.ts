// Two pools on one database, as two service processes would have: batches into one farm stay all or none with exact
// farm totals, and a limit lowered or an account deactivated while a batch is on its way applies to it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { PG_SKIP, useTestDatabase } from '../../../test/helpers/postgres.ts';
import { migratePg } from './migrate.ts';
import { openPgPool } from './pool.ts';
import { pgParcels } from './parcels.ts';
import { pgFarms } from './farms.ts';
import { insertOrganization, newAccount } from './test-tenants.ts';
import { point, polygon, settle, valid } from './parcel-conformance.ts';
import type { Scope } from '../scope.ts';

const ORG = 'org-concurrency';

describe.skipIf(PG_SKIP !== null)('PostgreSQL parcels with two service processes', () => {
  const db = useTestDatabase();
  let p1: pg.Pool;
  let p2: pg.Pool;
  beforeAll(async () => {
    p1 = openPgPool(db().url, { max: 4 });
    p2 = openPgPool(db().url, { max: 4 });
    await migratePg(p1);
    await insertOrganization(p1, { id: ORG, name: 'Org', created: '2024-01-01T00:00:00.000Z' });
  });
  afterAll(async () => {
    await Promise.all([p1?.end(), p2?.end()]);
  });

  const scope = (accountId: string): Scope => ({ organizationId: ORG, accountId, via: 'api_key' });

  it('keeps every batch all or none and the farm totals exact', async () => {
    await newAccount(p1, ORG, 'acc-batches');
    const farm = await pgFarms(p1).create(scope('acc-batches'), 'Shared', []);
    const stores = [pgParcels(p1), pgParcels(p2)];
    const batches = Array.from({ length: 24 }, (_, b) => ({
      b, fails: b % 3 === 2,
      parcels: valid(Array.from({ length: 25 }, (_, i) => polygon(`b${b}-${i}`, b * 0.1 + i * 0.002, 0, 0.0005 + i * 0.00003))),
    }));
    const results = await Promise.all(batches.map(({ b, fails, parcels }) => settle(stores[b % 2]!.createBatch(scope('acc-batches'), farm.farm.id, parcels,
      fails ? (n) => { if (n === 13) throw new Error(`batch ${b} crashed`); } : undefined))));
    results.forEach((r, b) => expect(Array.isArray(r)).toBe(!batches[b]!.fails));
    const rows = (await p1.query<{ name: string }>('SELECT name FROM parcels WHERE organization_id = $1 AND farm_id = $2', [ORG, farm.farm.id])).rows;
    const perBatch = new Map<string, number>();
    for (const r of rows) perBatch.set(r.name.split('-')[0]!, (perBatch.get(r.name.split('-')[0]!) ?? 0) + 1);
    expect([...perBatch.keys()].sort()).toEqual(batches.filter((x) => !x.fails).map((x) => `b${x.b}`).sort());
    expect([...perBatch.values()].every((n) => n === 25)).toBe(true);
    // Ids ascend within each batch in request order, whatever the other process drew meanwhile.
    for (const r of results) if (Array.isArray(r)) expect(r.map((p) => p.id)).toEqual([...r.map((p) => p.id)].sort((x, y) => x - y));
    const totals = (await p2.query(`SELECT f.parcel_count, f.micro_hectares, (SELECT COUNT(*) FROM parcels p WHERE p.organization_id = f.organization_id AND p.farm_id = f.id) AS n,
      (SELECT SUM(micro_hectares(hectares))::bigint FROM parcels p WHERE p.organization_id = f.organization_id AND p.farm_id = f.id) AS micro
      FROM farms f WHERE f.organization_id = $1 AND f.id = $2`, [ORG, farm.farm.id])).rows[0];
    expect(totals).toEqual({ parcel_count: 16 * 25, n: 16 * 25, micro_hectares: totals.micro, micro: totals.micro });
  });

  it('applies a parcel limit lowered by the other process while the batch waited for the account', async () => {
    await newAccount(p1, ORG, 'acc-limit');
    const farm = await pgFarms(p1).create(scope('acc-limit'), 'Limited', []);
    const parcels = valid([polygon('small', 0, 0, 0.0001), point('big', 1, 1, 5)]); // validated under the default 100 ha
    const other = await p2.connect();
    try {
      await other.query('BEGIN');
      await other.query("UPDATE accounts SET max_parcel_hectares = 1 WHERE id = 'acc-limit'");
      const batch = settle(pgParcels(p1).createBatch(scope('acc-limit'), farm.farm.id, parcels));
      await new Promise((r) => setTimeout(r, 200)); // the batch is now waiting for the account row
      await other.query('COMMIT');
      const r = await batch;
      expect(r).toMatchObject({ error: 'ApiError', code: 'invalid_parcels', errors: [{ index: 1, code: 'area_over_limit', path: 'parcels/1/geom/properties/metadata/hectares' }] });
      expect((r as { message: string }).message).toBe("Nothing was created: parcel 1 is invalid. Parcel 1: area 5.00 ha exceeds the account's limit of 1 ha");
    } finally {
      other.release();
    }
    expect((await pgFarms(p1).get(scope('acc-limit'), farm.farm.id)).parcel_count).toBe(0);
  });

  it('refuses a batch for an account the other process deactivated meanwhile, and an update over a lowered limit', async () => {
    await newAccount(p1, ORG, 'acc-gone');
    const farm = await pgFarms(p1).create(scope('acc-gone'), 'Gone', valid([point('p', 0, 0, 0.5)]));
    const other = await p2.connect();
    try {
      await other.query('BEGIN');
      await other.query("UPDATE accounts SET state = 'deactivated' WHERE id = 'acc-gone'");
      const batch = settle(pgParcels(p1).createBatch(scope('acc-gone'), farm.farm.id, valid([polygon('late', 0, 0)])));
      await new Promise((r) => setTimeout(r, 200));
      await other.query('COMMIT');
      expect(await batch).toMatchObject({ error: 'ApiError', code: 'not_found', message: 'Farm not found' });
      await p2.query("UPDATE accounts SET state = 'active', max_parcel_hectares = 0.1 WHERE id = 'acc-gone'");
    } finally {
      other.release();
    }
    const id = farm.rows[0]!.id;
    const r = await settle(pgParcels(p1).update(scope('acc-gone'), id, { geom: { ...farm.rows[0]!, hectares: 0.5 } }));
    expect(r).toMatchObject({ code: 'validation_failed', message: "Parcel id " + id + ": area 0.50 ha exceeds the account's limit of 0.1 ha" });
    expect((await pgFarms(p1).get(scope('acc-gone'), farm.farm.id)).parcel_count).toBe(1);
  });
});
