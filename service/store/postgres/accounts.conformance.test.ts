// This part of the PostgreSQL store (organizations, API keys, accounts, signing keys) against the SQLite store:
// the same scenario on both must log the same results and the same typed errors (accounts.conformance-world.ts).
// The admins and served URLs: admins.conformance.test.ts. Two service processes on one database: the concurrency
// cases at the end, with two pools.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { PG_SKIP, useMigratedPool, useTestDatabase } from '../../../test/helpers/postgres.ts';
import { migratePg } from './migrate.ts';
import { openPgPool } from './pool.ts';
import { conform, outcome, pgPart, pgWorld } from './accounts.conformance-world.ts';

describe.skipIf(PG_SKIP !== null)('PostgreSQL store ≡ SQLite store: organizations, API keys, accounts, signing keys', () => {
  const migrated = useMigratedPool();
  let pool: pg.Pool;
  beforeAll(() => { pool = migrated(); });

  it('organizations: create, get, find by name (the oldest), a blank name refused', async () => {
    await conform(pool, async ({ store }, log) => {
      const a = await store.organizations.create('  Acme  ');
      const b = await store.organizations.create('Acme');
      log('a', a);
      log('get', await store.organizations.get(a.organization_id));
      log('unknown', await store.organizations.get('org-nope'));
      log('NUL', [await store.organizations.get('org-\u0000'), await store.organizations.findByName('Acme\u0000')]);
      log('by name', await store.organizations.findByName('Acme'));
      log('by name, no match', await store.organizations.findByName('acme'));
      log('b', b.organization_id);
      log('blank', await outcome(() => store.organizations.create('   ')));
    });
  });

  it('API keys: create, list, find, check, revoke (twice), an unknown organization', async () => {
    await conform(pool, async ({ store }, log) => {
      const { organization_id: org, api_key: initial } = await store.organizations.create('Keys');
      const { organization_id: other } = await store.organizations.create('Other');
      const second = await store.apiKeys.create(org, 'ci');
      const third = await store.apiKeys.create(org);
      log('second', second);
      log('list', await store.apiKeys.list(org));
      const found = await store.apiKeys.findActive(initial);
      log('find', found);
      log('find garbage', await store.apiKeys.findActive('fk_00000000_nothing'));
      log('active', await store.apiKeys.isActive(found!.id, org));
      log('active elsewhere', await store.apiKeys.isActive(found!.id, other));
      log('revoke', await outcome(() => store.apiKeys.revoke(org, second.prefix)));
      log('revoke again', await outcome(() => store.apiKeys.revoke(org, second.prefix)));
      log('revoke NUL', await outcome(() => store.apiKeys.revoke(org, 'fk_\u0000')));
      log('revoke in another org', await outcome(() => store.apiKeys.revoke(other, third.prefix)));
      const revoked = await store.apiKeys.findActive(second.api_key);
      log('find revoked', revoked);
      log('third active', await store.apiKeys.isActive((await store.apiKeys.findActive(third.api_key))!.id, org));
      log('revoked id', await store.apiKeys.isActive(2, org));
      log('list after', await store.apiKeys.list(org));
      log('unknown org', await outcome(() => store.apiKeys.create('org-nope', 'x')));
    });
  });

  it('accounts: create, e-mail rules, lookups by organization, state and auth_id', async () => {
    await conform(pool, async ({ store }, log) => {
      const { organization_id: org } = await store.organizations.create('Accounts');
      const { organization_id: other } = await store.organizations.create('Other');
      // Created in the same second: listed by id (SQLite's binary order, whatever PostgreSQL's collation).
      const same = [await store.accounts.create(other, 'x@example.com'), await store.accounts.create(other, 'y@example.com'), await store.accounts.create(other, 'z@example.com')];
      log('same second, by id', (await store.accounts.list(other)).map((r) => r.id).join() === same.map((r) => r.id).sort().join());
      const a = await store.accounts.create(org, '  Ana@Example.com ');
      log('a', a);
      const b = await store.accounts.create(org, 'bo@example.com');
      log('same email elsewhere', await store.accounts.create(other, 'ana@example.com'));
      log('taken (case, spaces)', await outcome(() => store.accounts.create(org, 'ANA@example.com  ')));
      log('invalid', await outcome(() => store.accounts.create(org, 'not-an-email')));
      log('too long', await outcome(() => store.accounts.create(org, `${'x'.repeat(250)}@example.com`)));
      log('get', await store.accounts.get(a.id));
      log('get unknown', await store.accounts.get('acc-nope'));
      log('in org', await store.accounts.getInOrganization(org, b.id));
      log('in another org', await outcome(() => store.accounts.getInOrganization(other, b.id)));
      log('active', await store.accounts.getActive(org, a.id));
      log('by auth id', await store.accounts.byAuthId(a.auth_id));
      log('by unknown auth id', await store.accounts.byAuthId('nope'));
      // What a path's %00 or a header becomes: SQLite finds nothing, PostgreSQL could not even compare it.
      const nul = 'acc-\u0000';
      log('NUL lookups', [await store.accounts.get(nul), await store.accounts.byAuthId('\u0000'), await store.accounts.parcelLimit(nul)]);
      for (const call of [(): Promise<unknown> => store.accounts.getInOrganization(org, nul), () => store.accounts.getActive(org, nul), () => store.accounts.deactivate(org, nul),
        () => store.accounts.reactivate(org, nul), () => store.accounts.revokeTokens(org, nul), () => store.accounts.purge(org, nul),
        () => store.accounts.rotateAuthId(org, nul), () => store.accounts.setParcelLimit(nul, 5)]) log('NUL', await outcome(call));
      log('list', await store.accounts.list(org));
      log('list other', (await store.accounts.list(other)).map((r) => r.account_email).sort());
    });
  });

  it('accounts: deactivate, reactivate, revoke tokens, rotate auth_id, each epoch and error as in SQLite', async () => {
    await conform(pool, async ({ store }, log) => {
      const { organization_id: org } = await store.organizations.create('States');
      const { organization_id: other } = await store.organizations.create('Other');
      const a = await store.accounts.create(org, 'a@example.com');
      log('reactivate active', await outcome(() => store.accounts.reactivate(org, a.id)));
      log('deactivate elsewhere', await outcome(() => store.accounts.deactivate(other, a.id)));
      log('deactivate', await store.accounts.deactivate(org, a.id));
      log('deactivate again', await outcome(() => store.accounts.deactivate(org, a.id)));
      log('active?', await outcome(() => store.accounts.getActive(org, a.id)));
      log('by auth id when deactivated', await store.accounts.byAuthId(a.auth_id));
      log('email of a deactivated account', await outcome(() => store.accounts.create(org, 'A@example.com')));
      log('revoke tokens', await store.accounts.revokeTokens(org, a.id));
      log('reactivate', await store.accounts.reactivate(org, a.id));
      log('revoke elsewhere', await outcome(() => store.accounts.revokeTokens(other, a.id)));
      const rotated = await store.accounts.rotateAuthId(org, a.id);
      log('rotate', rotated);
      log('old auth id', await store.accounts.byAuthId(a.auth_id));
      log('new auth id', await store.accounts.byAuthId(rotated.auth_id));
      log('rotate elsewhere', await outcome(() => store.accounts.rotateAuthId(other, a.id)));
      log('row', await store.accounts.get(a.id));
    });
  });

  it('accounts: the parcel limit, set, refused and restored', async () => {
    await conform(pool, async ({ store }, log) => {
      const { organization_id: org } = await store.organizations.create('Limits');
      const a = await store.accounts.create(org, 'a@example.com');
      log('default', await store.accounts.parcelLimit(a.id));
      log('unknown', await store.accounts.parcelLimit('acc-nope'));
      log('set', await store.accounts.setParcelLimit(a.id, 12.5));
      log('now', await store.accounts.parcelLimit(a.id));
      for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) log(`refused ${bad}`, await outcome(() => store.accounts.setParcelLimit(a.id, bad)));
      log('unknown account', await outcome(() => store.accounts.setParcelLimit('acc-nope', 3)));
      log('restored', await store.accounts.setParcelLimit(a.id, null));
      log('row', await store.accounts.get(a.id));
    });
  });

  it('accounts: purge deletes the farms (parcels, crops, plants), detaches what sits on orphan farms, frees the e-mail', async () => {
    await conform(pool, async (w, log) => {
      const { store } = w;
      const { organization_id: org } = await store.organizations.create('Purge');
      const { organization_id: other } = await store.organizations.create('Other');
      const a = await store.accounts.create(org, 'a@example.com');
      const keep = await store.accounts.create(org, 'keep@example.com');
      const f1 = await w.farm(org, a.id, [1.25, 2.5000005, 0.1]);
      const f2 = await w.farm(org, a.id, []);
      const orphan = await w.farm(org, a.id, [3]);
      const kept = await w.farm(org, keep.id, [4]);
      await w.unlink(org, orphan.farm);
      await w.crop(org, a.id, f1.parcels[0]!);
      await w.crop(org, a.id, orphan.parcels[0]!);
      await w.crop(org, a.id, null);
      await w.crop(org, keep.id, kept.parcels[0]!);
      await w.plant(org, a.id, f1.parcels[1]!);
      await w.plant(org, a.id, orphan.parcels[0]!);
      await w.plant(org, a.id, null);
      log('farms', [f1, f2, orphan, kept]);
      log('active', await outcome(() => store.accounts.purge(org, a.id)));
      log('unknown', await outcome(() => store.accounts.purge(org, 'acc-nope')));
      await store.accounts.deactivate(org, a.id);
      log('elsewhere', await outcome(() => store.accounts.purge(other, a.id)));
      log('purge', await store.accounts.purge(org, a.id));
      log('gone', await store.accounts.get(a.id));
      log('rows', await w.rows(org));
      log('again', await outcome(() => store.accounts.purge(org, a.id)));
      log('email reusable', await store.accounts.create(org, 'a@example.com'));
      log('list', await store.accounts.list(org));
    });
  });

  it('signing keys: created on first use, listed, rotated, revoked', async () => {
    await conform(pool, async ({ store }, log) => {
      const { organization_id: org } = await store.organizations.create('Keys');
      const { organization_id: other } = await store.organizations.create('Other');
      log('none yet', await store.signingKeys.list(org));
      const k1 = await store.signingKeys.current(org);
      log('current', k1);
      log('current again', (await store.signingKeys.current(org)).kid === k1.kid);
      log('get', await store.signingKeys.get(k1.kid));
      log('get unknown', await store.signingKeys.get('sk_nope'));
      log('get NUL', await store.signingKeys.get('sk_\u0000'));
      log('other org', await store.signingKeys.current(other));
      log('rotate', await store.signingKeys.rotate(org));
      log('list', await store.signingKeys.list(org));
      log('retired key', await store.signingKeys.get(k1.kid));
      log('rotate again', await store.signingKeys.rotate(org, {}));
      log('list after', await store.signingKeys.list(org));
      log('k1', await store.signingKeys.get(k1.kid));
      // Three keys created in the same second: newest first by order of creation (SQLite's rowid, seq here).
      const same = [(await store.signingKeys.rotate(org)).kid, (await store.signingKeys.rotate(org)).kid];
      const listed = await store.signingKeys.list(org);
      log('same second', listed.slice(0, 3).map((k) => k.kid).join() === [...same].reverse().concat(listed[2]!.kid).join());
      log('same second list', listed);
      const current = await store.signingKeys.current(org);
      log('revoke', await store.signingKeys.rotate(org, { revoke: true }));
      log('revoked current', await store.signingKeys.get(current.kid));
      log('list revoked', await store.signingKeys.list(org));
      log('other org untouched', await store.signingKeys.list(other));
    });
  });

  it('signing keys: a rotation drops the keys retired longer ago than a token lives', async () => {
    // The store's clock in 2020: retiredKeysExpireBefore reads the real time, so a key retired then has no token left.
    await conform(pool, async ({ store }, log) => {
      const { organization_id: org } = await store.organizations.create('Old keys');
      const k1 = await store.signingKeys.current(org);
      log('rotate', await store.signingKeys.rotate(org));
      log('k1 retired, kept until the next rotation', await store.signingKeys.get(k1.kid));
      log('rotate again', await store.signingKeys.rotate(org, {}));
      log('k1 gone', await store.signingKeys.get(k1.kid));
      log('list', await store.signingKeys.list(org));
    }, { start: '2020-01-01T00:00:00.000Z' });
  });
});

describe.skipIf(PG_SKIP !== null)('two service processes on one database (two pools)', () => {
  const db = useTestDatabase();
  let a: pg.Pool;
  let b: pg.Pool;
  beforeAll(async () => {
    a = openPgPool(db().url, { max: 5 });
    b = openPgPool(db().url, { max: 5 });
    await migratePg(a);
    await pgWorld(a);
  });
  afterAll(async () => {
    await a.end();
    await b.end();
  });

  it('the same e-mail created at once by both: exactly one account, the other 409 email_taken', async () => {
    const [pa, pb] = [pgPart(a), pgPart(b)];
    const { organization_id: org } = await pa.organizations.create('Race');
    for (let i = 0; i < 20; i++) {
      const email = `race${i}@example.com`;
      const results = await Promise.allSettled([pa.accounts.create(org, email), pb.accounts.create(org, email.toUpperCase())]);
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]!.reason).toMatchObject({ code: 'email_taken', status: 409, message: 'An account with this account_email already exists' });
    }
    expect(await pa.accounts.list(org)).toHaveLength(20);
  });

  it('the current signing key asked for by both at once is one key; concurrent revocations are distinct epochs', async () => {
    const [pa, pb] = [pgPart(a), pgPart(b)];
    for (let i = 0; i < 10; i++) {
      const { organization_id: org } = await pa.organizations.create(`Keys ${i}`);
      const [ka, kb] = await Promise.all([pa.signingKeys.current(org), pb.signingKeys.current(org)]);
      expect(ka.kid).toBe(kb.kid);
      const acc = await pa.accounts.create(org, 'k@example.com');
      const epochs = await Promise.all([pa.accounts.revokeTokens(org, acc.id), pb.accounts.revokeTokens(org, acc.id), pa.accounts.revokeTokens(org, acc.id)]);
      expect(epochs.map((r) => r.token_epoch).sort()).toEqual([1, 2, 3]);
      expect((await pb.accounts.get(acc.id))!.token_epoch).toBe(3);
      // A rotation racing a first use still leaves one current key.
      await Promise.all([pa.signingKeys.rotate(org), pb.signingKeys.rotate(org), pa.signingKeys.current(org)]);
      expect((await pa.signingKeys.list(org)).filter((k) => k.retired === null)).toHaveLength(1);
    }
  });

  it('deactivate racing purge and reactivate: every account ends in one consistent state, errors typed', async () => {
    const [pa, pb] = [pgPart(a), pgPart(b)];
    const { organization_id: org } = await pa.organizations.create('States race');
    const acc = await pa.accounts.create(org, 's@example.com');
    await pa.accounts.deactivate(org, acc.id);
    const results = await Promise.allSettled([pa.accounts.reactivate(org, acc.id), pb.accounts.reactivate(org, acc.id)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'conflict', message: 'Only a deactivated account can be reactivated' } });
    expect((await pa.accounts.get(acc.id))!.token_epoch).toBe(2);
  });
});
