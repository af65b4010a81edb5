// What schema 001 itself guarantees, on the real server: the delete rules and farm totals of the SQLite schema, the
// rounding of micro-hectares bit for bit as SQLite's, PostGIS columns that follow the JSON they come from, and rows
// that cannot point into another organization.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import type pg from 'pg';
import { PG_SKIP, useTestDatabase } from '../../../test/helpers/postgres.ts';
import { migratePg } from './migrate.ts';
import { openPgPool } from './pool.ts';

const T = '2024-01-01T00:00:00.000Z';
const square = (x: number, y: number, d = 0.01) =>
  JSON.stringify({ type: 'Polygon', coordinates: [[[x, y], [x + d, y], [x + d, y + d], [x, y + d], [x, y]]] });

describe.skipIf(PG_SKIP !== null)('PostgreSQL schema 001', () => {
  const db = useTestDatabase();
  let pool: pg.Pool;
  beforeAll(async () => {
    pool = openPgPool(db().url, { max: 2 });
    await migratePg(pool);
  });
  afterAll(async () => {
    await pool.end();
  });
  beforeEach(async () => {
    await pool.query('DELETE FROM organizations');
  });

  const q = async <R extends pg.QueryResultRow = Record<string, unknown>>(sql: string, params: unknown[] = []) => (await pool.query<R>(sql, params)).rows;

  async function org(id: string): Promise<void> {
    await q('INSERT INTO organizations (id, name, created) VALUES ($1, $1, $2)', [id, T]);
  }
  async function account(orgId: string, id: string): Promise<void> {
    await q(`INSERT INTO accounts (id, organization_id, account_email, email_norm, state, auth_id, created, modified)
      VALUES ($1, $2, $1 || '@x.test', $1 || '@x.test', 'active', 'auth-' || $1, $3, $3)`, [id, orgId, T]);
  }
  async function farm(orgId: string, accountId: string | null): Promise<number> {
    return (await q<{ id: number }>('INSERT INTO farms (organization_id, account_id, name, created, modified) VALUES ($1, $2, $3, $4, $4) RETURNING id',
      [orgId, accountId, 'farm', T]))[0]!.id;
  }
  /** As the store will insert a batch: the rows, then the farm's totals in one UPDATE (there is no insert trigger). */
  async function parcels(orgId: string, farmId: number, hectares: number[]): Promise<number[]> {
    const ids = (await q<{ id: number }>(`INSERT INTO parcels (organization_id, key, farm_id, name, source_type, geometry, hectares, minx, miny, maxx, maxy, created, modified)
      SELECT $1, gen_random_uuid()::text, $2, 'p', 'Polygon', $3, h, 0, 0, 0.01, 0.01, $4, $4 FROM unnest($5::float8[]) AS h RETURNING id`,
    [orgId, farmId, square(0, 0), T, hectares])).map((r) => r.id);
    await q(`UPDATE farms SET parcel_count = parcel_count + $3, micro_hectares = micro_hectares + (SELECT SUM(micro_hectares(hectares)) FROM parcels
      WHERE organization_id = $1 AND farm_id = $2 AND id = ANY($4::bigint[])) WHERE organization_id = $1 AND id = $2`, [orgId, farmId, ids.length, ids]);
    return ids;
  }
  const totals = async (farmId: number) => (await q('SELECT parcel_count, micro_hectares FROM farms WHERE id = $1', [farmId]))[0];
  const recomputed = async (farmId: number) => (await q(`SELECT COUNT(*)::int AS parcel_count, COALESCE(SUM(micro_hectares(hectares)), 0)::bigint AS micro_hectares
    FROM parcels WHERE farm_id = $1`, [farmId]))[0];

  it('rounds micro-hectares exactly as SQLite does (CAST(round(x * 1000000) AS INTEGER))', async () => {
    const sqlite = new Database(':memory:');
    const expected = sqlite.prepare('SELECT CAST(round(? * 1000000) AS INTEGER) AS m').pluck();
    // Values on and next to the .5 boundaries, where round-half-even or a decimal detour would differ.
    const halves = fc.tuple(fc.integer({ min: 0, max: 200_000_000 }), fc.constantFrom(-1, 0, 1))
      .map(([k, ulp]) => { const x = (k + 0.5) / 1e6; return ulp === 0 ? x : x + ulp * Number.EPSILON * x; });
    const values = fc.sample(fc.oneof(halves, fc.double({ min: 0, max: 1e6, noNaN: true }), fc.double({ min: -1e3, max: 0, noNaN: true })), 3000);
    values.push(0.0000005, 0.0000015, 0.0000025, 1e-300, 100, 99.9999995, 2.5e-6);
    const pgRows = await q<{ m: number }>('SELECT micro_hectares(x) AS m FROM unnest($1::float8[]) WITH ORDINALITY AS v(x, n) ORDER BY n', [values]);
    const mismatches = values.flatMap((x, i) => (pgRows[i]!.m === Number(expected.get(x)) ? [] : [`${x}: pg ${pgRows[i]!.m}, sqlite ${String(expected.get(x))}`]));
    sqlite.close();
    expect(mismatches).toEqual([]);
  });

  it('keeps the farm totals through deletes, area changes, moves and a batch insert', async () => {
    await org('o1');
    await account('o1', 'a1');
    const [f1, f2] = [await farm('o1', 'a1'), await farm('o1', 'a1')];
    const ids = await parcels('o1', f1, [1.2345675, 0.5, 99.9999995, 12]);
    expect(await totals(f1)).toEqual(await recomputed(f1));
    expect(await totals(f1)).toMatchObject({ parcel_count: 4 });
    await q('DELETE FROM parcels WHERE id = $1', [ids[0]]);
    await q('UPDATE parcels SET hectares = 3.3333335 WHERE id = $1', [ids[1]]);
    await q('UPDATE parcels SET farm_id = $2 WHERE id = $1', [ids[2], f2]);
    await q('UPDATE parcels SET name = $2 WHERE id = $1', [ids[3], 'renamed']);
    expect(await totals(f1)).toEqual(await recomputed(f1));
    expect(await totals(f2)).toEqual(await recomputed(f2));
    expect(await totals(f2)).toEqual({ parcel_count: 1, micro_hectares: 99_999_999 + 1 });
  });

  it('turns a farm whose account goes into an orphan, still counted', async () => {
    await org('o1');
    await account('o1', 'a1');
    const f = await farm('o1', 'a1');
    await parcels('o1', f, [2]);
    await q('DELETE FROM accounts WHERE id = $1', ['a1']);
    expect(await q('SELECT account_id, parcel_count FROM farms WHERE id = $1', [f])).toEqual([{ account_id: null, parcel_count: 1 }]);
  });

  it("clears a plant's crop when the crop goes, keeping its organization; a farm takes its parcels, crops and plants", async () => {
    await org('o1');
    await account('o1', 'a1');
    const f = await farm('o1', 'a1');
    const [p1, p2] = await parcels('o1', f, [1, 1]);
    const crop = (parcel: number) => q<{ id: number }>(`INSERT INTO crops (organization_id, key, account_id, parcel_id, created, modified)
      VALUES ('o1', gen_random_uuid()::text, 'a1', $1, $2, $2) RETURNING id`, [parcel, T]).then((r) => r[0]!.id);
    const [c1, c2] = [await crop(p1!), await crop(p2!)];
    const plant = (parcel: number | null, cropId: number) => q(`INSERT INTO plants (organization_id, key, account_id, parcel_id, crop_id, point, created, modified)
      VALUES ('o1', gen_random_uuid()::text, 'a1', $1, $2, '[1.5,2.5,30]', $3, $3)`, [parcel, cropId, T]);
    await plant(p1!, c2);
    await plant(null, c1);
    await q('DELETE FROM crops WHERE id = $1', [c2]);
    expect(await q('SELECT organization_id, parcel_id, crop_id FROM plants ORDER BY id')).toEqual([
      { organization_id: 'o1', parcel_id: p1, crop_id: null }, { organization_id: 'o1', parcel_id: null, crop_id: c1 },
    ]);
    await q('DELETE FROM farms WHERE id = $1', [f]);
    expect(await q('SELECT COUNT(*) AS n FROM parcels')).toEqual([{ n: 0 }]);
    expect(await q('SELECT COUNT(*) AS n FROM crops')).toEqual([{ n: 0 }]);
    // The plant without a parcel follows its account, not the farm; its crop went with the farm's parcel.
    expect(await q('SELECT parcel_id, crop_id FROM plants')).toEqual([{ parcel_id: null, crop_id: null }]);
  });

  it("takes everything with an organization, and nothing of another's", async () => {
    await org('o1');
    await org('o2');
    await account('o1', 'a1');
    await account('o2', 'a2');
    await parcels('o1', await farm('o1', 'a1'), [1]);
    await parcels('o2', await farm('o2', 'a2'), [1, 2]);
    await q(`INSERT INTO api_keys (organization_id, prefix, hash, created) VALUES ('o1', 'fk_1', 'h1', $1)`, [T]);
    await q(`INSERT INTO crop_families (key, organization_id, name, name_norm, created) VALUES ('own', 'o1', 'Own', 'own', $1)`, [T]);
    await q(`DELETE FROM organizations WHERE id = 'o1'`);
    expect(await q('SELECT organization_id, COUNT(*)::int AS n FROM parcels GROUP BY 1')).toEqual([{ organization_id: 'o2', n: 2 }]);
    expect(await q('SELECT COUNT(*)::int AS n FROM api_keys')).toEqual([{ n: 0 }]);
    expect(await q('SELECT COUNT(*)::int AS shared, COUNT(organization_id)::int AS own FROM crop_families')).toEqual([{ shared: 14, own: 0 }]);
  });

  it("refuses a row that points at another organization's farm, parcel or crop", async () => {
    await org('o1');
    await org('o2');
    await account('o1', 'a1');
    const f = await farm('o1', 'a1');
    const [p] = await parcels('o1', f, [1]);
    await expect(q(`INSERT INTO parcels (organization_id, key, farm_id, name, source_type, geometry, hectares, minx, miny, maxx, maxy, created, modified)
      VALUES ('o2', 'k', $1, 'p', 'Polygon', $2, 1, 0, 0, 1, 1, $3, $3)`, [f, square(0, 0), T])).rejects.toThrow(/foreign key/);
    await expect(q(`INSERT INTO crops (organization_id, key, parcel_id, created, modified) VALUES ('o2', 'k', $1, $2, $2)`, [p, T])).rejects.toThrow(/foreign key/);
  });

  it('enforces the checks and uniqueness of the SQLite schema', async () => {
    await org('o1');
    await account('o1', 'a1');
    await expect(account('o1', 'a1')).rejects.toThrow(/duplicate key/);
    await expect(q(`INSERT INTO accounts (id, organization_id, account_email, email_norm, state, auth_id, created, modified)
      VALUES ('a2', 'o1', 'a1@x.test', 'a1@x.test', 'active', 'other', $1, $1)`, [T])).rejects.toThrow(/accounts_organization_id_email_norm_key/);
    await expect(q(`UPDATE accounts SET state = 'gone'`)).rejects.toThrow(/check constraint/);
    await expect(q(`INSERT INTO api_keys (organization_id, prefix, hash, created) VALUES ('o1', 'a', 'same', $1), ('o1', 'b', 'same', $1)`, [T]))
      .rejects.toThrow(/api_keys_hash_key/);
  });

  it('derives the PostGIS geometries from the JSON columns, and finds them through the GiST indexes', async () => {
    await org('o1');
    await account('o1', 'a1');
    const f = await farm('o1', 'a1');
    // A 3D polygon (z is accepted on input and dropped), then a change of the JSON: the geometry follows.
    const [id] = (await q<{ id: number }>(`INSERT INTO parcels (organization_id, key, farm_id, name, source_type, geometry, hectares, minx, miny, maxx, maxy, created, modified)
      VALUES ('o1', 'k', $1, 'p', 'Polygon', $2, 1, 0, 0, 1, 1, $3, $3) RETURNING id`,
    [f, JSON.stringify({ type: 'Polygon', coordinates: [[[0, 0, 5], [1, 0, 5], [1, 1, 5], [0, 1, 5], [0, 0, 5]]] }), T])).map((r) => r.id);
    expect(await q('SELECT ST_AsText(geom) AS wkt, ST_SRID(geom) AS srid FROM parcels')).toEqual([{ wkt: 'POLYGON((0 0,1 0,1 1,0 1,0 0))', srid: 4326 }]);
    await q('UPDATE parcels SET geometry = $2 WHERE id = $1', [id, square(10, 20, 0.5)]);
    expect(await q('SELECT ST_AsText(geom) AS wkt FROM parcels')).toEqual([{ wkt: 'POLYGON((10 20,10.5 20,10.5 20.5,10 20.5,10 20))' }]);
    await expect(q('UPDATE parcels SET geometry = $2 WHERE id = $1', [id, JSON.stringify({ type: 'Point', coordinates: [1, 2] })])).rejects.toThrow(/Geometry type \(Point\) does not match column type \(Polygon\)/);
    await q(`INSERT INTO plants (organization_id, key, point, created, modified) VALUES ('o1', 'pl', '[10.25,20.25]', $1, $1)`, [T]);
    expect(await q('SELECT ST_AsText(geom) AS wkt FROM plants')).toEqual([{ wkt: 'POINT(10.25 20.25)' }]);

    const client = await pool.connect();
    try {
      // Two rows would be read by a sequential scan anyway: forbidding it shows the planner can use the indexes.
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      const plan = async (sql: string) => (await client.query(`EXPLAIN ${sql}`)).rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
      expect(await plan("SELECT id FROM parcels WHERE organization_id = 'o1' AND geom && ST_MakeEnvelope(9, 19, 11, 21, 4326)")).toMatch(/parcels_geom/);
      expect(await plan("SELECT id FROM plants WHERE organization_id = 'o1' AND geom && ST_MakeEnvelope(9, 19, 11, 21, 4326)")).toMatch(/plants_geom/);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  });
});
