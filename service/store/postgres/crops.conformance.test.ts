// Crops and crop families: the same scenarios against the SQLite store (the reference) and the PostgreSQL groups,
// step by step, with identical results and identical errors; then what only several processes can do to PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_SKIP } from '../../../test/helpers/postgres.ts';
import { ApiError } from '../../errors.ts';
import { setClock } from '../clock.ts';
import type { Scope } from '../scope.ts';
import { normalise, openSides, outcome, square, type Outcome, type Side } from './test-fixtures-crops.ts';

const orgKey: Scope = { organizationId: 'o1', accountId: null, via: 'api_key' };
const a1Key: Scope = { organizationId: 'o1', accountId: 'a1', via: 'api_key' };
const a1Bearer: Scope = { organizationId: 'o1', accountId: 'a1', via: 'bearer' };
const a2Bearer: Scope = { organizationId: 'o1', accountId: 'a2', via: 'bearer' };
const b1Key: Scope = { organizationId: 'o2', accountId: 'b1', via: 'api_key' };

/** Two organizations; o1's a1 has parcels P[0], P[1], a2 has P[2]; o2's b1 has P[3]; P[4] is on an orphan farm of o1. */
async function world(seed: Side['seed']): Promise<number[]> {
  await seed.org('o1');
  await seed.org('o2');
  for (const a of ['a1', 'a2']) await seed.account('o1', a);
  await seed.account('o2', 'b1');
  const [f1, f2, f3, f4] = [await seed.farm('o1', 'a1'), await seed.farm('o1', 'a2'), await seed.farm('o2', 'b1'), await seed.farm('o1', null)];
  return [
    await seed.parcel('o1', f1, [square(0, 0)]), await seed.parcel('o1', f1, [square(1, 0)]), await seed.parcel('o1', f2, [square(2, 0)]),
    await seed.parcel('o2', f3, [square(3, 0)]), await seed.parcel('o1', f4, [square(4, 0)]),
  ];
}

/** Every step's outcome, labelled, on one side; the clock ticks a second per timestamp, from the same start. */
async function cropScenario(side: Side): Promise<[string, Outcome][]> {
  let t = Date.UTC(2024, 5, 1);
  const restore = setClock(() => (t += 1000));
  const log: [string, Outcome][] = [];
  const step = async (label: string, fn: () => Promise<unknown>) => { log.push([label, await outcome(fn)]); };
  const { crops, cropFamilies: families } = side.store;
  try {
    const P = await world(side.seed);
    await step('families', () => families.list('o1'));
    await step('family new', () => families.create('o1', '  Quinoa-like ', 'grain'));
    await step('family same name other case', () => families.create('o1', 'quinoa-LIKE'));
    await step('family shared name', () => families.create('o1', 'POACEAE'));
    await step('family blank', () => families.create('o1', '   '));
    await step('family same name other org', () => families.create('o2', 'Quinoa-like'));
    await step('family sorting', () => families.create('o1', 'Émeraude'));
    await step('family sorting 2', () => families.create('o1', 'apple'));
    const mk = (scope: Scope, body: Parameters<typeof crops.create>[1]) => step(`create ${JSON.stringify(body)} as ${scope.accountId}/${scope.via}`, () => crops.create(scope, body));
    await mk(a1Key, { parcel: P[0], name: 'wheat', sowing: '2024-03-01', family: { name: 'poaceae' } });
    await mk(a1Bearer, { parcel: P[0], name: 'x', family: { name: 'NewFam' } });
    await mk(a1Key, { parcel: P[0], name: 'undated', family: { name: ' NewFam ', observation: 'new' } });
    await mk(a1Bearer, { parcel: P[0], name: 'by id', sowing: '2023-05-01', family: { id: 1 } });
    await mk(a1Key, { parcel: P[0], name: 'tie', sowing: '2024-03-01', area: 1.25, harvested_qty: 0.5, variety: 'v', campaign: '2024' });
    await mk(a1Key, { parcel: P[0], name: 'undated 2', is_active: false });
    await mk(a1Key, { parcel: P[0], name: 'inactive newest', sowing: '2025-01-01', is_active: false });
    await mk(a1Key, { parcel: P[1], name: 'other parcel', sowing: '2024-01-01', closure: '2024-09-01' });
    await mk(orgKey, { parcel: P[2], name: 'a2 by org key', family: { name: 'Quinoa-like' } });
    await mk(a1Key, { name: 'no parcel' });
    await mk(orgKey, { name: 'no parcel, no account' });
    await mk(a1Key, { parcel: P[2], name: 'a2 parcel as a1' });
    await mk(a1Key, { parcel: P[3], name: 'other org parcel' });
    await mk(orgKey, { parcel: P[4], name: 'orphan parcel' });
    await mk(a1Key, { parcel: 999_999, name: 'unknown parcel' });
    await mk(a1Key, { parcel: P[0], sowing: '2024-05-01', closure: '2024-04-01' });
    await mk(a1Key, { parcel: P[0], family: { id: 999 } });
    await mk(a1Key, { parcel: P[0], family: { id: 16 } }); // o2's family
    await mk(a1Key, { parcel: P[1], family: { name: '   ' } });
    await mk(b1Key, { parcel: P[3], name: 'o2 crop' });
    for (const id of [1, 2, 3, 8, 9, 10, 11, 1e20, 1.5]) await step(`get ${id} as a1`, () => crops.get(a1Key, id));
    await step('get a1 crop as a2', () => crops.get(a2Bearer, 1));
    await step('get o2 crop as o1', () => crops.get(orgKey, 10));
    await step('list org', () => crops.list(orgKey, { limit: 100, offset: 0 }));
    await step('list org page', () => crops.list(orgKey, { limit: 3, offset: 2 }));
    await step('list past the end', () => crops.list(orgKey, { limit: 3, offset: 50 }));
    await step('list parcel', () => crops.list(a1Key, { parcel: P[0]!, limit: 100, offset: 0 }));
    await step('list inactive', () => crops.list(orgKey, { is_active: false, limit: 100, offset: 0 }));
    await step('list a2', () => crops.list(a2Bearer, { limit: 100, offset: 0 }));
    await step('list a2 on a1 parcel', () => crops.list(a2Bearer, { parcel: P[0]!, limit: 100, offset: 0 }));
    await step('rotation', () => crops.ofParcel(a1Key, P[0]!));
    await step('rotation other parcel', () => crops.ofParcel(orgKey, P[1]!));
    await step('rotation invisible', () => crops.ofParcel(a2Bearer, P[0]!));
    await step('rotation orphan', () => crops.ofParcel(orgKey, P[4]!));
    await step('current org', () => crops.currentByParcel(orgKey));
    await step('current a2', () => crops.currentByParcel(a2Bearer));
    await step('patch nothing', () => crops.patch(a1Key, 1, {}));
    await step('patch fields', () => crops.patch(a1Key, 1, { name: 'wheat 2', area: 3, is_active: false, variety: null }));
    await step('patch family by name', () => crops.patch(a1Key, 2, { family: { name: 'QUINOA-LIKE' } }));
    await step('patch family null', () => crops.patch(a1Key, 3, { family: null }));
    await step('patch new family as bearer', () => crops.patch(a1Bearer, 3, { family: { name: 'Brand new' } }));
    await step('patch move parcel', () => crops.patch(a1Key, 4, { parcel: P[1] }));
    await step('patch move to a2 parcel by org key', () => crops.patch(orgKey, 5, { parcel: P[2] }));
    await step('patch same parcel', () => crops.patch(orgKey, 5, { parcel: P[2], name: 'same' }));
    await step('patch unplace as org', () => crops.patch(orgKey, 5, { parcel: null }));
    await step('patch unplace as a1', () => crops.patch(a1Key, 4, { parcel: null }));
    await step('patch closure before sowing', () => crops.patch(a1Key, 7, { closure: '2023-01-01' }));
    await step('patch sowing after closure', () => crops.patch(a1Key, 7, { sowing: '2024-10-01' }));
    await step('patch invisible', () => crops.patch(a2Bearer, 1, { name: 'no' }));
    await step('patch unknown parcel', () => crops.patch(a1Key, 1, { parcel: 424_242 }));
    await step('after patches', () => crops.list(orgKey, { limit: 100, offset: 0 }));
    await step('current after patches', () => crops.currentByParcel(a1Key));
    await step('delete invisible', () => crops.delete(a2Bearer, 1));
    await step('delete', () => crops.delete(a1Key, 1));
    await step('delete again', () => crops.delete(a1Key, 1));
    await step('delete unknown', () => crops.delete(orgKey, 1e20));
    await side.seed.setState('a2', 'deactivated');
    await step('list after a2 deactivated', () => crops.list(orgKey, { limit: 100, offset: 0 }));
    await step('get a2 crop after deactivation', () => crops.get(orgKey, 8));
    await step('current after a2 deactivated', () => crops.currentByParcel(orgKey));
    await side.seed.deleteParcel(P[1]!);
    await step('list after parcel delete', () => crops.list(a1Key, { limit: 100, offset: 0 }));
    // Last, because it rolls back a family insert: PostgreSQL's sequence keeps the id it used, SQLite's does not.
    await step('patch new family then bad dates', () => crops.patch(a1Key, 2, { family: { name: 'Rolled back' }, closure: '2000-01-01', sowing: '2001-01-01' }));
    await step('families o1 at the end', () => families.list('o1'));
    await step('families o2 at the end', () => families.list('o2'));
  } finally {
    restore();
  }
  return log;
}

describe.skipIf(PG_SKIP !== null)('PostgreSQL crops and crop families: as SQLite', () => {
  let sides: Awaited<ReturnType<typeof openSides>>;
  beforeAll(async () => { sides = await openSides(); });
  afterAll(async () => { await sides?.close(); });

  it('gives the same results and errors, step by step', async () => {
    const expected = normalise(await cropScenario(sides.sqlite)) as [string, Outcome][];
    const actual = normalise(await cropScenario(sides.pg[0]!)) as [string, Outcome][];
    expect(actual.map((s) => s[0])).toEqual(expected.map((s) => s[0]));
    for (let i = 0; i < expected.length; i++) expect(actual[i], `step ${i}: ${expected[i]![0]}`).toEqual(expected[i]);
    // The scenario means something: errors of each kind happened, and the rotation's order is the documented one.
    const codes = new Set(expected.flatMap(([, o]) => ('error' in o ? [o.error.code] : [])));
    expect([...codes].sort()).toEqual(['account_required', 'conflict', 'forbidden', 'not_found', 'validation_failed']);
    const rotation = expected.find(([l]) => l === 'rotation')![1] as { ok: { name: string }[] };
    expect(rotation.ok.map((c) => c.name)).toEqual(['inactive newest', 'tie', 'wheat', 'by id', 'undated 2', 'undated']);
  });
});

/**
 * Two pools on one database, as two service processes. What SQLite's single writer implies, decided the same way:
 * of two POST /api/crop-families/ with one new name (any case), one creates it and the other gets the 409 it would
 * have had a moment later; two crops naming the same new family both get the one family, as the second would have
 * found it existing.
 */
describe.skipIf(PG_SKIP !== null)('PostgreSQL crops and crop families: two service processes', () => {
  let sides: Awaited<ReturnType<typeof openSides>>;
  let P: number[];
  beforeAll(async () => {
    sides = await openSides(2);
    P = await world(sides.pg[0]!.seed);
  });
  afterAll(async () => { await sides?.close(); });
  const familyRows = async (norm: string) =>
    (await sides.pgPools[0]!.query<{ n: number }>("SELECT COUNT(*) AS n FROM crop_families WHERE organization_id = 'o1' AND name_norm = $1", [norm])).rows[0]!.n;

  it('creates a new family name once: the other process gets 409', async () => {
    const [p, q] = sides.pg as [Side, Side];
    for (let i = 0; i < 15; i++) {
      const results = await Promise.allSettled([p.store.cropFamilies.create('o1', `Race ${i}`), q.store.cropFamilies.create('o1', `RACE ${i}`)]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const lost = results.findIndex((r) => r.status === 'rejected');
      const reason = (results[lost] as PromiseRejectedResult).reason as ApiError;
      expect(reason).toBeInstanceOf(ApiError);
      expect([reason.code, reason.message]).toEqual(['conflict', `A crop family named '${lost === 0 ? 'Race' : 'RACE'} ${i}' already exists`]);
      expect(await familyRows(`race ${i}`)).toBe(1);
    }
  });

  /** A third process's transaction that has inserted a family of o1 and not committed yet. */
  async function holdFamily(name: string) {
    const client = await sides.pgPools[1]!.connect();
    await client.query('BEGIN');
    await client.query(`INSERT INTO crop_families (key, organization_id, name, name_norm, observation, created)
      VALUES (gen_random_uuid()::text, 'o1', $1, lower($1), '', now())`, [name]);
    return { end: async (how: 'COMMIT' | 'ROLLBACK') => { await client.query(how); client.release(); } };
  }
  const settledWithin = async (x: Promise<unknown>, ms: number) =>
    Promise.race([x.then(() => true, () => true), new Promise((r) => setTimeout(() => r(false), ms))]);

  it('waits for a concurrent create of the same name, then answers as if it had come second (409) or first', async () => {
    const [p] = sides.pg as [Side];
    let held = await holdFamily('Waited');
    let create = p.store.cropFamilies.create('o1', 'WAITED');
    expect(await settledWithin(create, 300)).toBe(false); // blocked on the unique index, not answered from a stale read
    await held.end('COMMIT');
    await expect(create).rejects.toMatchObject({ code: 'conflict', message: "A crop family named 'WAITED' already exists" });
    held = await holdFamily('Rolled');
    create = p.store.cropFamilies.create('o1', 'ROLLED');
    expect(await settledWithin(create, 300)).toBe(false);
    await held.end('ROLLBACK');
    await expect(create).resolves.toMatchObject({ name: 'ROLLED' });
    expect([await familyRows('waited'), await familyRows('rolled')]).toEqual([1, 1]);
  });

  it('gives a crop naming a family being created concurrently that family once it is committed', async () => {
    const [p] = sides.pg as [Side];
    const held = await holdFamily('Pending');
    const crop = p.store.crops.create(a1Key, { parcel: P[0], family: { name: 'pending' } });
    expect(await settledWithin(crop, 300)).toBe(false);
    await held.end('COMMIT');
    const family = (await sides.pgPools[0]!.query<{ id: number }>("SELECT id FROM crop_families WHERE organization_id = 'o1' AND name_norm = 'pending'")).rows;
    expect(family).toHaveLength(1);
    expect((await crop).family).toMatchObject({ id: family[0]!.id, name: 'Pending' });
  });

  it('gives two crops that name one new family at once that one family', async () => {
    const [p, q] = sides.pg as [Side, Side];
    for (let i = 0; i < 15; i++) {
      const [x, y] = await Promise.all([
        p.store.crops.create(a1Key, { parcel: P[0], family: { name: `Shared new ${i}` } }),
        q.store.crops.create(a1Key, { parcel: P[1], family: { name: `shared NEW ${i}` } }),
      ]);
      expect(x.family!.id).toBe(y.family!.id);
      expect(await familyRows(`shared new ${i}`)).toBe(1);
    }
  });

  it('serialises two patches of one crop: the dates are never left closure before sowing', async () => {
    const [p, q] = sides.pg as [Side, Side];
    for (let i = 0; i < 15; i++) {
      const { id } = await p.store.crops.create(a1Key, { parcel: P[0], name: `dates ${i}` });
      const results = await Promise.allSettled([
        p.store.crops.patch(a1Key, id, { sowing: '2024-06-01' }), q.store.crops.patch(a1Key, id, { closure: '2024-05-01' }),
      ]);
      // Whichever went second saw the other's date and was refused, as it would have been under SQLite.
      expect(results.filter((r) => r.status === 'rejected').map((r) => ((r as PromiseRejectedResult).reason as ApiError).code)).toEqual(['validation_failed']);
      const crop = await p.store.crops.get(a1Key, id);
      expect([crop.sowing, crop.closure].filter((d) => d !== null)).toHaveLength(1);
    }
  });

  it('races a crop\'s create against its parcel\'s delete: created then deleted with it, or 400; never a raw error', async () => {
    const [p, q] = sides.pg as [Side, Side];
    const farm = await p.seed.farm('o1', 'a1');
    for (let i = 0; i < 15; i++) {
      const parcel = await p.seed.parcel('o1', farm, [square(20 + i, 0)]);
      const [created] = await Promise.allSettled([q.store.crops.create(a1Key, { parcel, name: 'racing' }), p.seed.deleteParcel(parcel)]);
      if (created.status === 'rejected') {
        expect([(created.reason as ApiError).code, (created.reason as ApiError).message]).toEqual(['validation_failed', `Parcel ${parcel} does not exist`]);
      } else {
        await expect(p.store.crops.get(a1Key, created.value.id)).rejects.toThrow('Crop not found');
      }
    }
  });
});
