// Plants: the same scenarios against the SQLite store (the reference) and the PostgreSQL groups, step by step, with
// identical results and errors: the import's placement (holes, edges, vertices, overlapping parcels), its
// all-or-nothing checks and which problem wins, the search's case folding and escaping, keyset paging. Then two
// pools, as two service processes: imports racing each other and a parcel's delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_SKIP } from '../../../test/helpers/postgres.ts';
import { ApiError } from '../../errors.ts';
import { setClock } from '../clock.ts';
import type { Scope } from '../scope.ts';
import { normalise, openSides, outcome, square, type Outcome, type Side } from './test-fixtures-crops.ts';

const orgKey: Scope = { organizationId: 'o1', accountId: null, via: 'api_key' };
const a1: Scope = { organizationId: 'o1', accountId: 'a1', via: 'bearer' };
const a2: Scope = { organizationId: 'o1', accountId: 'a2', via: 'bearer' };

type Props = { parcel?: number | null; crop?: number | null; info?: unknown; shape?: unknown };
const plant = (x: number, y: number, properties: Props = {}) => ({ type: 'Feature', geometry: { type: 'Point', coordinates: [x, y] }, properties });
const fc = (...features: unknown[]) => ({ type: 'FeatureCollection', features });

/**
 * o1's a1: farm A (created first) and farm B; B's parcel Q1 is inserted before A's Q2 and they overlap, so the
 * overlap shows which SQLite tries first (farm by id, then parcel by id). P0 is the unit square with a hole.
 * a2 and o2's b1 have parcels over the same ground, which a1's plants must never land in; a3 is deactivated.
 */
async function world(seed: Side['seed']) {
  await seed.org('o1');
  await seed.org('o2');
  for (const a of ['a1', 'a2', 'a3']) await seed.account('o1', a);
  await seed.account('o2', 'b1');
  const fA = await seed.farm('o1', 'a1');
  const fB = await seed.farm('o1', 'a1');
  const P0 = await seed.parcel('o1', fA, [square(0, 0, 1), square(0.4, 0.4, 0.2)]);
  const Q1 = await seed.parcel('o1', fB, [square(5, 5, 1)]);
  const Q2 = await seed.parcel('o1', fA, [square(5.5, 5.5, 1)]);
  const R2 = await seed.parcel('o1', await seed.farm('o1', 'a2'), [square(0, 0, 3)]);
  const S = await seed.parcel('o2', await seed.farm('o2', 'b1'), [square(0, 0, 3)]);
  const D3 = await seed.parcel('o1', await seed.farm('o1', 'a3'), [square(10, 10, 1)]);
  await seed.setState('a3', 'deactivated');
  return { P0, Q1, Q2, R2, S, D3 };
}

async function plantScenario(side: Side): Promise<[string, Outcome][]> {
  let t = Date.UTC(2024, 5, 1);
  const restore = setClock(() => (t += 1000));
  const log: [string, Outcome][] = [];
  const step = async (label: string, fn: () => Promise<unknown>) => { log.push([label, await outcome(fn)]); };
  const { plants, crops } = side.store;
  try {
    const { P0, Q1, R2, S, D3 } = await world(side.seed);
    const c1 = (await crops.create({ organizationId: 'o1', accountId: 'a1', via: 'api_key' }, { parcel: P0, name: 'a1 crop' })).id;
    const c2 = (await crops.create({ organizationId: 'o1', accountId: 'a2', via: 'api_key' }, { parcel: R2, name: 'a2 crop' })).id;
    const imp = (label: string, account: string, collection: unknown, defaultParcel?: number | null) =>
      step(`import ${label}`, () => plants.import('o1', account, collection, defaultParcel));
    await imp('placed', 'a1', fc(
      plant(0.2, 0.2, { info: { label: 'ABC 100%' } }), // inside P0
      plant(0.5, 0.5, { info: 'in the hole' }), // P0's hole: R2 is a2's, so no parcel
      plant(0.4, 0.5, { info: 'hole edge' }), plant(0.6, 0.5), plant(0.5, 0.4), plant(0.5, 0.6), // the hole's edges
      plant(0, 0.5, { info: 'under_score' }), plant(1, 0.5), plant(0.5, 0), plant(0.5, 1), // P0's edges
      plant(0, 0, { info: 'back\\slash' }), plant(1, 0), plant(1, 1), plant(0, 1), // P0's vertices
      plant(5.7, 5.7, { info: 'Émile' }), plant(5.2, 5.2), plant(6.2, 6.2), // the overlap, then Q1 only, then Q2 only
      plant(5.5, 5.5), plant(6, 6), // Q2's corner inside Q1, Q1's corner inside Q2
      plant(50, 50, { info: 'émile', crop: c1 }), // no parcel anywhere
      plant(0.3, 0.3, { parcel: P0, crop: c1, shape: { type: 'Polygon', coordinates: [square(0.3, 0.3, 0.0001)] } }),
      plant(0.3, 0.3, { parcel: Q1, info: [1, 'x', null] }), // an explicit parcel wins over containment
    ));
    await imp('default parcel', 'a1', fc(plant(0.2, 0.2), plant(50, 50), plant(0.1, 0.1, { parcel: Q1 })), P0);
    await imp('crop before a later parcel', 'a1', fc(plant(0.2, 0.2), plant(0.2, 0.2, { crop: c2 }), plant(0.2, 0.2, { parcel: R2 })));
    await imp('parcel before its own crop', 'a1', fc(plant(0.2, 0.2), plant(0.2, 0.2, { parcel: S, crop: c2 })));
    await imp('unknown crop', 'a1', fc(plant(0.2, 0.2, { crop: 99_999 })));
    await imp('invisible default parcel', 'a1', fc(plant(0.2, 0.2)), R2);
    await imp('unknown default parcel', 'a1', fc(plant(0.2, 0.2)), 77_777);
    await imp('invalid file', 'a1', fc(plant(0.2, 0.2), { type: 'Feature', geometry: { type: 'Point', coordinates: [200, 0] } }, plant(1, 1, { parcel: -1 })));
    await imp('not a collection', 'a1', { type: 'Feature' });
    await imp('empty', 'a1', fc());
    await imp('deactivated account, in its parcel', 'a3', fc(plant(10.5, 10.5)));
    await imp('deactivated account, nowhere', 'a3', fc(plant(80, 80)));
    await imp('a2 over a1 ground', 'a2', fc(plant(0.2, 0.2, { info: 'a2 plant' }), plant(5.7, 5.7, { crop: c2 })));
    await step('list org', () => plants.list(orgKey, { limit: 1000 }));
    await step('list a1 page 1', () => plants.list(a1, { limit: 5 }));
    await step('list a1 page 2', () => plants.list(a1, { limit: 5, after: 5 }));
    await step('list a1 last page', () => plants.list(a1, { limit: 100, after: 20 }));
    await step('list a1 exactly the rest', async () => {
      const all = await plants.list(a1, { limit: 1000 });
      return plants.list(a1, { limit: all.rows.length - 3, after: all.rows[2]!.id });
    });
    await step('list a2', () => plants.list(a2, { limit: 100 }));
    await step('list parcel', () => plants.list(a1, { limit: 100, parcel: P0 }));
    await step('list parcel page', () => plants.list(a1, { limit: 2, parcel: P0, after: 3 }));
    await step('list invisible parcel', () => plants.list(a1, { limit: 100, parcel: R2 }));
    await step('list unknown parcel', () => plants.list(orgKey, { limit: 100, parcel: 5_555 }));
    for (const search of ['abc', 'ABC 100%', '100%', '%', '_', 'under_score', 'r_s', '\\', 'back\\slash', 'émile', 'Émile', 'ÉMILE', 'x", null', 'hole', 'HOLE EDGE', '']) {
      await step(`search ${JSON.stringify(search)}`, () => plants.list(orgKey, { limit: 100, search }));
    }
    await step('search by key', async () => {
      const key = (await plants.list(a1, { limit: 1, after: 3 })).rows[0]!.key;
      return plants.list(a1, { limit: 100, search: key });
    });
    await step('search by key, other account', async () => {
      const key = (await plants.list(a1, { limit: 1, after: 3 })).rows[0]!.key;
      return plants.list(a2, { limit: 100, search: key });
    });
    for (const id of [1, 2, 20, 21, 30, 1e20, 2.5]) await step(`get ${id} as a1`, () => plants.get(a1, id));
    await step('get a1 plant as a2', () => plants.get(a2, 1));
    await step('get a3 plant', () => plants.get(orgKey, 27));
    await crops.delete(orgKey, c1);
    await step('after its crop went', () => plants.list(a1, { limit: 100, parcel: P0 }));
    await side.seed.deleteParcel(P0);
    await step('after its parcel went', () => plants.list(a1, { limit: 100 }));
    void D3;
  } finally {
    restore();
  }
  return log;
}

describe.skipIf(PG_SKIP !== null)('PostgreSQL plants: as SQLite', () => {
  let sides: Awaited<ReturnType<typeof openSides>>;
  beforeAll(async () => { sides = await openSides(); });
  afterAll(async () => { await sides?.close(); });

  it('gives the same results and errors, step by step', async () => {
    const expected = normalise(await plantScenario(sides.sqlite)) as [string, Outcome][];
    const actual = normalise(await plantScenario(sides.pg[0]!)) as [string, Outcome][];
    expect(actual.map((s) => s[0])).toEqual(expected.map((s) => s[0]));
    for (let i = 0; i < expected.length; i++) expect(actual[i], `step ${i}: ${expected[i]![0]}`).toEqual(expected[i]);
    // SQLite's placement, which PostgreSQL reproduced above: the even-odd rule puts a left or bottom edge (and the
    // lower-left vertex) inside and a right or top edge outside, which neither ST_Contains nor ST_Covers does; where
    // parcels overlap, farm A's Q2 (3) wins over farm B's Q1 (2) although Q1's id is lower.
    const rows = (expected.find(([l]) => l === 'list org')![1] as { ok: { rows: { point: string; parcel_id: number | null }[] } }).ok.rows;
    expect(rows.slice(0, 19).map((r) => `${r.point}:${r.parcel_id}`)).toEqual([
      '[0.2,0.2]:1', '[0.5,0.5]:null', '[0.4,0.5]:null', '[0.6,0.5]:null', '[0.5,0.4]:null', '[0.5,0.6]:null',
      '[0,0.5]:1', '[1,0.5]:null', '[0.5,0]:1', '[0.5,1]:null', '[0,0]:1', '[1,0]:null', '[1,1]:null', '[0,1]:null',
      '[5.7,5.7]:3', '[5.2,5.2]:2', '[6.2,6.2]:3', '[5.5,5.5]:3', '[6,6]:3',
    ]);
  });
});

describe.skipIf(PG_SKIP !== null)('PostgreSQL plants: two service processes', () => {
  let sides: Awaited<ReturnType<typeof openSides>>;
  beforeAll(async () => { sides = await openSides(2); });
  afterAll(async () => { await sides?.close(); });

  it('imports from two pools at once: every plant once, each import whole', async () => {
    const [p, q] = sides.pg as [Side, Side];
    const { P0 } = await world(p.seed);
    const file = fc(...Array.from({ length: 300 }, (_, i) => plant(0.001 + (i % 17) * 0.02, 0.001 + Math.floor(i / 17) * 0.02)));
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? q : p).store.plants.import('o1', 'a1', file)));
    expect(results).toEqual(Array(6).fill({ imported: 300 }));
    const all = (await p.store.plants.list(orgKey, { limit: 5000 })).rows;
    expect(all).toHaveLength(1800);
    expect(new Set(all.map((r) => r.key)).size).toBe(1800);
    expect(all.every((r) => r.parcel_id === P0)).toBe(true);
  });

  it('races an import against its parcel\'s delete: imported then deleted with it, or refused; never a raw error', async () => {
    const [p, q] = sides.pg as [Side, Side];
    for (let round = 0; round < 12; round++) {
      const org = `r${round}`;
      await p.seed.org(org);
      await p.seed.account(org, `${org}-a`);
      const parcel = await p.seed.parcel(org, await p.seed.farm(org, `${org}-a`), [square(0, 0, 1)]);
      const file = fc(...Array.from({ length: 50 }, () => plant(0.5, 0.5)));
      const [imported] = await Promise.allSettled([q.store.plants.import(org, `${org}-a`, file, round % 2 ? parcel : null), p.seed.deleteParcel(parcel)]);
      if (imported.status === 'rejected') {
        expect(imported.reason).toBeInstanceOf(ApiError);
        expect((imported.reason as ApiError).errors?.[0]?.code).toBe('parcel_invalid');
      } else {
        expect(imported.value).toEqual({ imported: 50 });
      }
      // Whichever came first, no plant points at the deleted parcel.
      const left = await q.store.plants.list({ organizationId: org, accountId: null, via: 'api_key' }, { limit: 100 });
      expect(left.rows.filter((r) => r.parcel_id === parcel)).toEqual([]);
    }
  });
});
