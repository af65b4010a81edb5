// The PostgreSQL farms and billing groups give the SQLite store's answers: the same scenarios on both (parcel-
// conformance.ts), the same results, hectares and farm totals included, and the same typed errors.
import { beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { PG_SKIP, useMigratedPool } from '../../../test/helpers/postgres.ts';
import { farmParcelsBody, type FarmListingPage } from '../farm-listing.ts';
import { onBoth, point, polygon, settle, valid, type Side } from './parcel-conformance.ts';

async function listingBody(s: Side, scopeAccount: string | null, farmId: number, page: FarmListingPage): Promise<string> {
  const listing = await s.store.farms.openParcelListing(s.scope(scopeAccount), farmId, page);
  const body = farmParcelsBody(listing, page, (after) => `https://x.test/api/farms/${farmId}/parcels/?after=${after}`);
  let text = '';
  for await (const chunk of body) text += String(chunk);
  return text;
}

describe.skipIf(PG_SKIP !== null)('PostgreSQL farms conform to SQLite', () => {
  const migrated = useMigratedPool();
  let pool: pg.Pool;
  beforeAll(() => { pool = migrated(); });

  const same = async (scenario: (s: Side) => Promise<unknown>) => {
    const { sqlite, postgres } = await onBoth(pool, scenario);
    expect(postgres).toEqual(sqlite);
    return sqlite;
  };

  it('creates, lists, gets, renames and names farms, with their totals', async () => {
    const out = await same(async (s) => {
      const A = s.scope(s.acc.a);
      const parcels = valid([polygon('P1', -4.78, 37.88, 0.003), point('Pt', -4.7, 37.9, 2.345678), polygon('P2', -4.76, 37.87, 0.0021, { crop: 'olive' })]);
      const f1 = await s.store.farms.create(A, 'North', parcels);
      const f2 = await s.store.farms.create(s.scope(s.acc.b), '  South  ', []);
      const f3 = await s.store.farms.create(A, 'East', valid([polygon('E', 1, 2, 0.0007)]));
      return {
        f1, f2, f3,
        listA: await s.store.farms.list(A),
        listOrg: await s.store.farms.list(s.scope(null)),
        listB: await s.store.farms.list(s.scope(s.acc.b)),
        listOther: await s.store.farms.list(s.scope(null, s.other)),
        get: await s.store.farms.get(A, f1.farm.id),
        getOtherAccount: await settle(s.store.farms.get(s.scope(s.acc.b), f1.farm.id)),
        getOtherOrg: await settle(s.store.farms.get(s.scope(null, s.other), f1.farm.id)),
        getMissing: await settle(s.store.farms.get(A, 99_999)),
        visible: await s.store.farms.visible(s.scope(null), f3.farm.id),
        invisible: await settle(s.store.farms.visible(s.scope(s.acc.b), f3.farm.id)),
        rename: await s.store.farms.rename(A, f1.farm.id, '  Renamed '),
        renameBad: await settle(s.store.farms.rename(A, f1.farm.id, '   ')),
        renameBadInvisible: await settle(s.store.farms.rename(s.scope(s.acc.b), f1.farm.id, 42)),
        renameLong: await settle(s.store.farms.rename(A, f1.farm.id, 'x'.repeat(256))),
        names: await s.store.farms.names(s.org, [f3.farm.id, f1.farm.id, 12345, f2.farm.id]),
        namesOther: await s.store.farms.names(s.other, [f1.farm.id]),
        orgOf: await s.store.farms.organizationOf(f2.farm.id),
        orgOfMissing: await s.store.farms.organizationOf(99_999),
      };
    });
    expect((out as { f1: { farm: { parcel_count: number } } }).f1.farm.parcel_count).toBe(3);
  });

  it('refuses a farm without an account, for a deactivated or foreign account, or with a bad name, and creates nothing', async () => {
    await same(async (s) => ({
      noAccount: await settle(s.store.farms.create(s.scope(null), 'F', [])),
      deactivated: await settle(s.store.farms.create(s.scope(s.acc.c), 'F', [])),
      foreign: await settle(s.store.farms.create(s.scope(s.acc.x), 'F', [])),
      unknown: await settle(s.store.farms.create(s.scope('acc-nobody'), 'F', [])),
      badName: await settle(s.store.farms.create(s.scope(s.acc.a), '', valid([polygon('P', 0, 0)]))),
      after: await s.store.farms.list(s.scope(null)),
      billing: await s.store.billing.of(s.org),
    }));
  });

  it('deletes farms with their parcels; a deactivated account hides its farms until reactivated', async () => {
    await same(async (s) => {
      const A = s.scope(s.acc.a);
      const f1 = await s.store.farms.create(A, 'One', valid([polygon('P', 0, 0), polygon('Q', 0.01, 0)]));
      const f2 = await s.store.farms.create(s.scope(s.acc.b), 'Two', valid([polygon('R', 0, 0.01)]));
      const out: Record<string, unknown> = {};
      out.deleteInvisible = await settle(s.store.farms.delete(s.scope(s.acc.b), f1.farm.id));
      out.delete = await settle(s.store.farms.delete(A, f1.farm.id));
      out.deleteAgain = await settle(s.store.farms.delete(A, f1.farm.id));
      out.parcelGone = await settle(s.store.parcels.get(A, f1.rows[0]!.id));
      await s.deactivate(s.acc.b);
      out.hidden = await s.store.farms.list(s.scope(null));
      out.hiddenGet = await settle(s.store.farms.get(s.scope(null), f2.farm.id));
      out.hiddenDelete = await settle(s.store.farms.delete(s.scope(null), f2.farm.id));
      out.hiddenListing = await settle(s.store.farms.openParcelListing(s.scope(null), f2.farm.id, {}));
      await s.reactivate(s.acc.b);
      out.back = await s.store.farms.list(s.scope(null));
      out.billing = await s.store.billing.of(s.org);
      return out;
    });
  });

  it('unlinks farms into orphans, lists orphans and linked farms, deletes orphans, and bills all of it', async () => {
    await same(async (s) => {
      const f = [];
      for (const [acc, name, n] of [[s.acc.b, 'B1', 2], [s.acc.a, 'A1', 3], [s.acc.a, 'A2', 1], [s.acc.b, 'B2', 0]] as const) {
        f.push(await s.store.farms.create(s.scope(acc), name, valid(Array.from({ length: n }, (_, i) => polygon(`${name}-${i}`, i * 0.01, 0, 0.001 * (i + 1))))));
      }
      const out: Record<string, unknown> = {};
      out.linkedAll = await s.store.farms.listLinked(s.org);
      out.linkedA = await s.store.farms.listLinked(s.org, s.acc.a);
      out.linkedOtherOrg = await s.store.farms.listLinked(s.other);
      out.billingBefore = await s.store.billing.of(s.org);
      out.unlink = await settle(s.store.farms.unlink(s.org, f[1]!.farm.id));
      out.unlinkAgain = await settle(s.store.farms.unlink(s.org, f[1]!.farm.id));
      out.unlinkOtherOrg = await settle(s.store.farms.unlink(s.other, f[0]!.farm.id));
      out.unlinkMissing = await settle(s.store.farms.unlink(s.org, 99_999));
      await s.store.farms.unlink(s.org, f[3]!.farm.id);
      out.orphans = await s.store.farms.listOrphans(s.org);
      out.orphansOther = await s.store.farms.listOrphans(s.other);
      out.invisibleOrphan = await settle(s.store.farms.get(s.scope(null), f[1]!.farm.id));
      out.orgOfOrphan = await s.store.farms.organizationOf(f[1]!.farm.id);
      out.billingOrphans = await s.store.billing.of(s.org);
      out.deleteLinkedAsOrphan = await settle(s.store.farms.deleteOrphan(s.org, f[0]!.farm.id));
      out.deleteOrphanOtherOrg = await settle(s.store.farms.deleteOrphan(s.other, f[1]!.farm.id));
      out.deleteOrphan = await settle(s.store.farms.deleteOrphan(s.org, f[1]!.farm.id));
      out.after = { orphans: await s.store.farms.listOrphans(s.org), linked: await s.store.farms.listLinked(s.org), billing: await s.store.billing.of(s.org) };
      out.billingEmpty = await s.store.billing.of(s.other);
      out.billingUnknown = await s.store.billing.of('org-nobody');
      return out;
    });
  });

  it('lists a farm\'s parcels from one snapshot: whole, in pages, and 404 before anything for a farm it does not see', async () => {
    await same(async (s) => {
      const A = s.scope(s.acc.a);
      const f = await s.store.farms.create(A, 'Listed', valid(Array.from({ length: 40 }, (_, i) => (i % 3 ? polygon(`P${i} "q" é`, i * 0.002, 1, 0.001, { i, odd: i % 2 === 1 }) : point(`Pt${i}`, i * 0.002, 2, 0.5 + i)))));
      await s.store.parcels.createBatch(A, f.farm.id, valid([polygon('late', 5, 5)]));
      const empty = await s.store.farms.create(A, 'Empty', []);
      return {
        whole: await listingBody(s, null, f.farm.id, {}),
        page1: await listingBody(s, s.acc.a, f.farm.id, { limit: 15 }),
        page2: await listingBody(s, s.acc.a, f.farm.id, { limit: 15, after: f.rows[14]!.id }),
        lastFull: await listingBody(s, s.acc.a, f.farm.id, { limit: 11, after: f.rows[29]!.id }),
        afterOnly: await listingBody(s, s.acc.a, f.farm.id, { after: f.rows[37]!.id }),
        empty: await listingBody(s, s.acc.a, empty.farm.id, {}),
        emptyPage: await listingBody(s, s.acc.a, empty.farm.id, { limit: 5 }),
        invisible: await settle(s.store.farms.openParcelListing(s.scope(s.acc.b), f.farm.id, {})),
        otherOrg: await settle(s.store.farms.openParcelListing(s.scope(null, s.other), f.farm.id, {})),
      };
    });
  });

  it('lists a farm spanning many chunks (read ahead on PostgreSQL) the same, whole and in pages', async () => {
    await same(async (s) => {
      const A = s.scope(s.acc.a);
      // ~1.2 KB a parcel: 300 of them make about six 64 KiB chunks, more than one read ahead of PostgreSQL's.
      const parcels = Array.from({ length: 300 }, (_, i) => polygon(`P${i}`, (i % 20) * 0.002, Math.floor(i / 20) * 0.002, 0.001, { note: 'x'.repeat(900 + (i % 7)) }));
      const f = await s.store.farms.create(A, 'Large', []);
      for (let i = 0; i < parcels.length; i += 50) await s.store.parcels.createBatch(A, f.farm.id, valid(parcels.slice(i, i + 50)));
      const whole = await listingBody(s, s.acc.a, f.farm.id, {});
      const ids = (JSON.parse(whole) as { features: { id: number }[] }).features.map((x) => x.id);
      // What the scenario is about: every parcel, over many chunks.
      expect(ids).toHaveLength(300);
      expect(whole.length).toBeGreaterThan(6 * 64 * 1024);
      return {
        whole,
        page: await listingBody(s, s.acc.a, f.farm.id, { limit: 170, after: ids[20] }),
        toTheEnd: await listingBody(s, s.acc.a, f.farm.id, { limit: 279, after: ids[20] }),
        pastTheEnd: await listingBody(s, s.acc.a, f.farm.id, { limit: 1000, after: ids[5] }),
      };
    });
  });
});
