// The PostgreSQL parcels group gives the SQLite store's answers: batches (all or none, midBatch told of each row),
// get, update, delete, and GET /api/parcels/'s every filter (farm, search, bbox at the R*Tree's float edges, metadata
// by SQLite's text of a value, pages), with the same typed errors.
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type pg from 'pg';
import { PG_SKIP, useMigratedPool } from '../../../test/helpers/postgres.ts';
import { pageRows, type ParcelFilter } from '../parcel-list.ts';
import { preparePatch } from '../../validation-jobs.ts';
import { validateParcelPatch } from '../../../core/parcels/validate.ts';
import { sqliteNumberText } from './metadata-filter.ts';
import { openDb } from '../sqlite/index.ts';
import { onBoth, point, polygon, settle, valid, type Side } from './parcel-conformance.ts';

const patch = (body: unknown, id: number) => {
  const { patch: p, problems } = validateParcelPatch(body, id, { maxHectares: 10_000 });
  if (!p) throw new Error(problems[0]!.message);
  return preparePatch(p);
};

async function list(s: Side, accountId: string | null, filter: Partial<ParcelFilter> & { meta?: Record<string, string[]> }) {
  const { meta, ...rest } = filter;
  const page = await s.store.parcels.list(s.scope(accountId), { limit: 1000, ...rest, ...(meta ? { metadata: new Map(Object.entries(meta)) } : {}) });
  return { count: page.count, hasMore: page.hasMore, rows: await pageRows(page) };
}

describe('sqliteNumberText', () => {
  it('writes a number as SQLite\'s json_each does', () => {
    const sqlite = openDb(':memory:');
    const text = sqlite.prepare('SELECT CAST(value AS TEXT) FROM json_each(?)').pluck();
    const check = (n: number) => expect(sqliteNumberText(n)).toBe(text.get(`[${JSON.stringify(n)}]`));
    for (const n of [0, -0, 1, -1, 1.5, 0.1, 1e-7, 1e-5, 1e-4, 0.00012345, 1e21, 1.5e300, 2.2250738585072014e-308, 2 ** 63, -(2 ** 63), 2 ** 63 - 1024,
      Number('12345678901234567000'), 0.30000000000000004, 5.551115123125783e-17, Number('123456789012.34567'), Number('99999999999999.99'), 1e15 + 0.5, 49.47, 3726.13187848748, 1e-300, 5e-324, 1.7976931348623157e308]) check(n);
    // Decimals of up to 12 significant digits, what metadata holds (years, areas, yields, prices), agree exactly. Over
    // every double, about 1 in 120 of those with 16-17 digits gets a last digit SQLite's approximate decoding makes
    // one off: a filter value written with that many digits can match here where it does not on SQLite.
    fc.assert(fc.property(fc.integer({ min: -999_999_999_999, max: 999_999_999_999 }), fc.integer({ min: -12, max: 12 }), (m, e) => {
      check(Number(`${m}e${e}`));
    }), { numRuns: 5000, seed: 15 });
    sqlite.close();
  });
});

describe.skipIf(PG_SKIP !== null)('PostgreSQL parcels conform to SQLite', () => {
  const migrated = useMigratedPool();
  let pool: pg.Pool;
  beforeAll(() => { pool = migrated(); });

  const same = async (scenario: (s: Side) => Promise<unknown>) => {
    const { sqlite, postgres } = await onBoth(pool, scenario);
    expect(postgres).toEqual(sqlite);
    return sqlite;
  };

  it('creates batches all or none, in order, telling midBatch of each row; 404 for a farm the scope does not see', async () => {
    await same(async (s) => {
      const A = s.scope(s.acc.a);
      const f = await s.store.farms.create(A, 'F', []);
      const told: number[] = [];
      const out: Record<string, unknown> = {};
      out.batch = await s.store.parcels.createBatch(A, f.farm.id, valid(Array.from({ length: 7 }, (_, i) => polygon(`p${i}`, i * 0.01, 0, 0.001 + i * 0.0001, { i }))), (n) => told.push(n));
      out.told = told;
      out.crash = await settle(s.store.parcels.createBatch(A, f.farm.id, valid([polygon('x', 1, 1), polygon('y', 1.01, 1), polygon('z', 1.02, 1)]), (n) => {
        if (n === 2) throw new Error('crash mid-batch');
      }));
      out.batch2 = await s.store.parcels.createBatch(s.scope(null), f.farm.id, valid([point('pt', 3, 3, 1.25), polygon('q', 3.1, 3)]));
      out.invisible = await settle(s.store.parcels.createBatch(s.scope(s.acc.b), f.farm.id, valid([polygon('n', 0, 0)])));
      out.otherOrg = await settle(s.store.parcels.createBatch(s.scope(null, s.other), f.farm.id, valid([polygon('n', 0, 0)])));
      out.missing = await settle(s.store.parcels.createBatch(A, 99_999, valid([polygon('n', 0, 0)])));
      const c = await s.store.farms.create(s.scope(s.acc.b), 'B', []);
      await s.deactivate(s.acc.b);
      out.deactivated = await settle(s.store.parcels.createBatch(s.scope(null), c.farm.id, valid([polygon('n', 0, 0)])));
      out.farm = await s.store.farms.get(A, f.farm.id);
      out.all = await list(s, null, {});
      out.billing = await s.store.billing.of(s.org);
      return out;
    });
  });

  it('gets, updates and deletes parcels, keeping the farm totals; 404 when the scope does not see them', async () => {
    await same(async (s) => {
      const A = s.scope(s.acc.a);
      const f = await s.store.farms.create(A, 'F', valid([polygon('a', 0, 0, 0.002, { k: 'v' }), point('b', 1, 1, 3.5), polygon('c', 2, 2)]));
      const [a, b, c] = f.rows as [typeof f.rows[0], typeof f.rows[0], typeof f.rows[0]];
      const out: Record<string, unknown> = {};
      out.get = await s.store.parcels.get(A, a.id);
      out.getOrg = await s.store.parcels.get(s.scope(null), b.id);
      out.getB = await settle(s.store.parcels.get(s.scope(s.acc.b), a.id));
      out.getOther = await settle(s.store.parcels.get(s.scope(null, s.other), a.id));
      out.rename = await s.store.parcels.update(A, a.id, patch({ name: 'renamed' }, a.id));
      out.meta = await s.store.parcels.update(A, a.id, patch({ metadata: { x: 1, y: true } }, a.id));
      out.geom = await s.store.parcels.update(A, b.id, patch({ geom: polygon('', 5, 5, 0.004).geom }, b.id));
      out.toPoint = await s.store.parcels.update(A, c.id, patch({ name: 'pt', geom: point('', 6, 6, 7.25).geom }, c.id));
      out.updateB = await settle(s.store.parcels.update(s.scope(s.acc.b), a.id, patch({ name: 'n' }, a.id)));
      out.farmAfterUpdates = await s.store.farms.get(A, f.farm.id);
      out.deleteB = await settle(s.store.parcels.delete(s.scope(s.acc.b), b.id));
      out.delete = await settle(s.store.parcels.delete(A, b.id));
      out.deleteAgain = await settle(s.store.parcels.delete(A, b.id));
      out.updateGone = await settle(s.store.parcels.update(A, b.id, patch({ name: 'n' }, b.id)));
      out.farmAfterDelete = await s.store.farms.get(A, f.farm.id);
      out.list = await list(s, s.acc.a, {});
      return out;
    });
  });

  it('lists with every filter: farm, search, pages', async () => {
    await same(async (s) => {
      const A = s.scope(s.acc.a);
      const names = ['Olive North', 'olive south', 'ÓLIVE ñ', 'Vine 50%', 'vine_1', 'Back\\slash', 'Almond', 'OLIVEx', 'Ólive'];
      const f1 = await s.store.farms.create(A, 'F1', valid(names.map((n, i) => polygon(n, i * 0.01, 0))));
      const f2 = await s.store.farms.create(s.scope(s.acc.b), 'F2', valid(names.slice(0, 4).map((n, i) => polygon(n, i * 0.01, 1))));
      const out: Record<string, unknown> = {};
      for (const search of ['olive', 'OLIVE', 'ólive', 'Ó', '50%', '%', '_', 'vine_', '\\', 'e n', 'zzz']) out[`search ${search}`] = await list(s, null, { search });
      out.farm1 = await list(s, null, { farm: f1.farm.id });
      out.farm2B = await list(s, s.acc.b, { farm: f2.farm.id, search: 'olive' });
      out.farmInvisible = await settle(list(s, s.acc.b, { farm: f1.farm.id }));
      out.farmMissing = await settle(list(s, null, { farm: 99_999 }));
      out.page1 = await list(s, null, { limit: 5 });
      out.page2 = await list(s, null, { limit: 5, after: f1.rows[4]!.id });
      out.page3 = await list(s, null, { limit: 3, after: f2.rows[0]!.id });
      out.pageEnd = await list(s, null, { limit: 5, after: f2.rows[3]!.id });
      out.pageExact = await list(s, s.acc.b, { limit: 4 });
      out.otherOrg = await list(s, null, { search: 'o' }).then(() => list(s, s.acc.x, {}).catch(() => 'none'));
      return out;
    });
  });

  it('filters by bbox as SQLite\'s R*Tree does, at the edges of its 32-bit floats too', async () => {
    await same(async (s) => {
      const A = s.scope(s.acc.a);
      // Boxes whose edges are doubles between two floats, next to the query's edges.
      const edge = Number('10.123456789012345');
      const inputs = [polygon('in', 10, 10, 0.5), polygon('out', 20, 20), polygon('touch', edge, 10, 0.01), polygon('below', edge - 0.0000005, 10.2, 0.0000004),
        polygon('neg', -edge - 0.01, -10.3, 0.01), polygon('west', -179.999, -89.9, 0.001), polygon('tiny', 1e-9, 1e-9, 1e-7), point('pt', 10.3, 10.3, 1)];
      await s.setLimit(s.acc.a, 1e6);
      await s.store.farms.create(A, 'F', valid(inputs, 1e6));
      const out: Record<string, unknown> = {};
      const boxes: [number, number, number, number][] = [[10, 10, 10.5, 10.5], [edge, 10, 11, 11], [edge + 1e-7, 10, 11, 11], [edge + 2e-6, 10, 11, 11],
        [0, 0, edge - 0.00000005, 11], [-11, -11, -edge, -10], [-180, -90, -179.9989, -89.89], [0, 0, 1e-9, 1e-9], [-1, -1, 0, 0], [-180, -90, 180, 90], [10.3, 10.3, 10.3, 10.3]];
      for (const bbox of boxes) out[bbox.join(',')] = await list(s, null, { bbox });
      out.withSearch = await list(s, null, { bbox: [-180, -90, 180, 90], search: 'in', limit: 1 });
      return out;
    });
  });

  it('filters by metadata as SQLite does: any value of a key, every key, values by their SQLite text', async () => {
    await same(async (s) => {
      const A = s.scope(s.acc.a);
      const metas: Record<string, unknown>[] = [
        { crop: 'olive', year: 2024, irrigated: true }, { crop: 'vine', year: '2024', irrigated: false }, { crop: 'Olive', ratio: 1.5, tiny: 1e-7 },
        { crop: 'olive', ratio: 1.25, big: 1e21, huge: Number('12345678901234567000') }, { 'key with space': 'a "quoted" \\ value', ratio: 0.1 },
        { crop: 'true', flag: 'false', zero: 0, neg: -3.5 }, {}, { year: 2025, crop: 'olive\nnewline', n: 123456789012.34567 }, { ratio: 49.47, long: 3726.13187848748 },
      ];
      await s.store.farms.create(A, 'F', valid(metas.map((m, i) => polygon(`p${i}`, i * 0.01, 0, 0.001, m))));
      const filters: Record<string, string[]>[] = [
        { crop: ['olive'] }, { crop: ['olive', 'vine'] }, { crop: ['OLIVE'] }, { year: ['2024'] }, { year: ['2024.0'] }, { year: ['2024', '2025'] },
        { crop: ['olive'], year: ['2024'] }, { irrigated: ['true'] }, { irrigated: ['false'] }, { crop: ['true'] }, { flag: ['false'] },
        { ratio: ['1.5'] }, { ratio: ['1.50'] }, { ratio: ['0.1'] }, { tiny: ['1.0e-07'] }, { tiny: ['1e-7'] }, { big: ['1.0e+21'] }, { big: ['1e+21'] },
        { huge: ['1.2345678901234567e+19'] }, { huge: ['12345678901234567000'] }, { zero: ['0'] }, { zero: ['-0'] }, { neg: ['-3.5'] },
        { 'key with space': ['a "quoted" \\ value'] }, { crop: ['olive\nnewline'] }, { n: ['123456789012.34567'] }, { missing: ['x'] }, { crop: [] },
        { crop: ['olive'], ratio: ['1.25'] }, { year: [' 2024'] }, { year: ['0x7e8'] }, { ratio: ['49.47'] }, { long: ['3726.13187848748'] }, { long: ['3726.1318784874802'] },
      ];
      const out: Record<string, unknown> = {};
      for (const meta of filters) out[JSON.stringify(meta)] = (await list(s, null, { meta })).rows.map((r) => r.name);
      out.paged = await list(s, null, { meta: { crop: ['olive', 'Olive'] }, limit: 1 });
      return out;
    });
  });
});
