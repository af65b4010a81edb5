// The admin panel's rows and the served URLs on PostgreSQL against the SQLite store (accounts.conformance-world.ts):
// admins, sessions (touch, idle and absolute expiry, flash), the sign-in rate limit and its housekeeping. Then the
// sign-in attempts of two service processes on one database, counted as one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { PG_SKIP, useMigratedPool, useTestDatabase } from '../../../test/helpers/postgres.ts';
import { MAX_FAILURES_PER_EMAIL_IP, MAX_FAILURES_PER_IP, SESSION_IDLE_MS, SESSION_MAX_MS, createAdmin, login } from '../admins.ts';
import type { Store } from '../store.ts';
import { migratePg } from './migrate.ts';
import { openPgPool } from './pool.ts';
import { conform, outcome, pgPart, pgWorld } from './accounts.conformance-world.ts';

const T0 = new Date('2026-03-01T08:00:00.000Z');
const MIN = 60_000;
const later = (ms: number): Date => new Date(T0.getTime() + ms);
const HASH = 'scrypt$1024$8$1$c2FsdA$aGFzaA';

describe.skipIf(PG_SKIP !== null)('PostgreSQL store ≡ SQLite store: admins, sessions, sign-in attempts, served URLs', () => {
  const migrated = useMigratedPool();
  let pool: pg.Pool;
  beforeAll(() => { pool = migrated(); });

  it('admins: create, the e-mail unique per organization (any case), list, sign-in candidates, delete', async () => {
    await conform(pool, async (w, log) => {
      const { store } = w;
      const { organization_id: org } = await store.organizations.create('Admins');
      const { organization_id: other } = await store.organizations.create('Other');
      log('create', await store.admins.create(org, 'Boss@Example.com', HASH));
      log('taken', await outcome(() => store.admins.create(org, 'boss@example.COM', HASH)));
      log('elsewhere', await store.admins.create(other, 'boss@example.com', `${HASH}2`));
      log('second', await store.admins.create(org, 'deputy@example.com', HASH));
      log('list', await store.admins.list(org));
      log('sign-in, any org', await store.admins.forSignIn('boss@example.com'));
      log('sign-in, one org', await store.admins.forSignIn('boss@example.com', other));
      log('sign-in, not normalized', await store.admins.forSignIn('Boss@Example.com'));
      log('sign-in, unknown', await store.admins.forSignIn('nobody@example.com'));
      log('sign-in, NUL', await store.admins.forSignIn('boss@example.com\u0000'));
      log('delete NUL', await outcome(() => store.admins.delete(org, 'boss@example.com\u0000')));
      const s = await store.admins.createSession(1, T0);
      log('session', s);
      log('delete unknown', await outcome(() => store.admins.delete(org, 'nobody@example.com')));
      log('delete elsewhere', await outcome(() => store.admins.delete(other, 'deputy@example.com')));
      log('delete', await outcome(() => store.admins.delete(org, ' BOSS@example.com ')));
      log('session of a deleted admin', await store.admins.session(s.token, later(MIN)));
      log('list after', await store.admins.list(org));
      log('rows', await w.rows(org));
    });
  });

  it('sessions: read, touched at most once a minute, flash, idle and absolute expiry, sign-out', async () => {
    await conform(pool, async (w, log) => {
      const { store } = w;
      const { organization_id: org } = await store.organizations.create('Sessions');
      const admin = await store.admins.create(org, 'a@example.com', HASH);
      const s = await store.admins.createSession(admin.id, T0);
      log('new', s);
      log('empty token', await store.admins.session(''));
      log('unknown token', await store.admins.session('nope', T0));
      const seen = await store.admins.session(s.token, later(30_000));
      log('fresh', seen);
      log('rows fresh', await w.rows(org));
      log('touched', await store.admins.session(s.token, later(2 * MIN)));
      log('rows touched', await w.rows(org));
      await store.admins.setFlash(seen!, { kind: 'success', text: 'Saved «ünïcode»' });
      log('flash', await store.admins.session(s.token, later(3 * MIN)));
      await store.admins.setFlash(seen!, null);
      log('flash cleared', await store.admins.session(s.token, later(3 * MIN)));
      log('idle', await store.admins.session(s.token, later(3 * MIN + SESSION_IDLE_MS)));
      log('rows idle', await w.rows(org));
      // Kept alive every 20 minutes, it still ends at its absolute expiry.
      const long = await store.admins.createSession(admin.id, T0);
      for (let t = 20 * MIN; t < SESSION_MAX_MS; t += 20 * MIN) await store.admins.session(long.token, later(t));
      log('before expiry', (await store.admins.session(long.token, later(SESSION_MAX_MS - 1)))?.expires);
      log('at expiry', await store.admins.session(long.token, later(SESSION_MAX_MS)));
      const out = await store.admins.createSession(admin.id, later(MIN));
      await store.admins.deleteSession(out.token);
      await store.admins.deleteSession('never-issued');
      log('signed out', await store.admins.session(out.token, later(2 * MIN)));
      log('rows end', await w.rows(org));
    });
  });

  it('sign-in attempts: limited per e-mail and address, then per address; a success forgets and tidies up', async () => {
    await conform(pool, async (w, log) => {
      const { store } = w;
      const { organization_id: org } = await store.organizations.create('Sign-in');
      const admin = await store.admins.create(org, 'a@example.com', HASH);
      const attempts = [];
      for (let i = 0; i <= MAX_FAILURES_PER_EMAIL_IP; i++) attempts.push(await store.admins.recordSignInAttempt('a@example.com', '10.0.0.1', later(i * MIN)));
      log('per e-mail and address', attempts);
      log('blocked later', await store.admins.recordSignInAttempt('a@example.com', '10.0.0.1', later(14 * MIN)));
      log('another address', await store.admins.recordSignInAttempt('a@example.com', '10.0.0.2', later(6 * MIN)));
      log('another e-mail', await store.admins.recordSignInAttempt('b@example.com', '10.0.0.1', later(6 * MIN)));
      log('the oldest expired', await store.admins.recordSignInAttempt('a@example.com', '10.0.0.1', later(15 * MIN + 1)));
      const perIp = [];
      for (let i = 0; i < MAX_FAILURES_PER_IP + 1; i++) perIp.push(await store.admins.recordSignInAttempt(`u${i}@example.com`, '10.9.9.9', later(20 * MIN + i * 1000)));
      log('per address', perIp.slice(-3));
      log('per address, allowed', perIp.filter((r) => 'attemptId' in r).length);
      // Dead sessions and old failures go with the next success.
      await store.admins.createSession(admin.id, T0);
      const live = await store.admins.createSession(admin.id, later(40 * MIN));
      const ok = await store.admins.recordSignInAttempt('c@example.com', '10.0.0.3', later(41 * MIN));
      log('ok', ok);
      await store.admins.signInSucceeded('attemptId' in ok ? ok.attemptId : -1, 'c@example.com', '10.0.0.3', later(41 * MIN));
      log('rows after success', await w.rows(org));
      log('live session', (await store.admins.session(live.token, later(42 * MIN)))?.email);
      await store.admins.signInSucceeded(0, 'b@example.com', '10.0.0.1', later(42 * MIN));
      log('rows after forgetting b', (await w.rows(org)).attempts);
    });
  });

  it('the shared sign-in sequence (createAdmin, login) on either store: same answers, same rows', async () => {
    await conform(pool, async (w, log) => {
      // createAdmin and login reach only this part's groups (organizations, admins) of the Store they are given.
      const store = w.store as Store;
      const { organization_id: org } = await store.organizations.create('Login');
      const fast = { N: 2 ** 10, r: 8, p: 1 };
      log('admin', await createAdmin(store, org, ' Ann@Example.com ', 'correct horse battery', fast));
      log('unknown org', await outcome(() => createAdmin(store, 'org-nope', 'x@example.com', 'correct horse battery', fast)));
      log('taken', await outcome(() => createAdmin(store, org, 'ann@example.com', 'correct horse battery', fast)));
      for (let i = 0; i < 3; i++) log(`wrong ${i}`, await login(store, { email: 'ann@example.com', password: 'wrong password', ip: '10.0.0.1' }, later(i * MIN)));
      log('rows', (await w.rows(org)).attempts);
      const ok = await login(store, { email: 'ANN@example.com', password: 'correct horse battery', ip: '10.0.0.1' }, later(4 * MIN));
      log('ok', ok);
      log('rows after', await w.rows(org));
      log('session', 'token' in ok ? await store.admins.session(ok.token, later(5 * MIN)) : null);
    });
  });

  it('served URLs: none until the service listens, then the last recorded', async () => {
    await conform(pool, async ({ store }, log) => {
      const since = (v: Awaited<ReturnType<typeof store.servedUrls.get>>) => v && { ...v, since: Number.isNaN(Date.parse(v.since)) ? v.since : '<iso>' };
      log('none', await store.servedUrls.get());
      await store.servedUrls.record({ publicUrl: 'http://127.0.0.1:8080', embedUrl: 'http://127.0.0.1:8080/embed' });
      log('first', since(await store.servedUrls.get()));
      await store.servedUrls.record({ publicUrl: 'https://furrow.example', embedUrl: 'https://map.furrow.example' });
      log('second', since(await store.servedUrls.get()));
    });
  });
});

describe.skipIf(PG_SKIP !== null)('sign-in attempts and admins of two service processes on one database (two pools)', () => {
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

  it('parallel guesses at one e-mail from one address, through both: exactly the limit gets through', async () => {
    const [pa, pb] = [pgPart(a), pgPart(b)];
    const results = await Promise.all(Array.from({ length: 24 }, (_, i) =>
      (i % 2 ? pa : pb).admins.recordSignInAttempt('race@example.com', '10.1.1.1', later(i))));
    expect(results.filter((r) => 'attemptId' in r)).toHaveLength(MAX_FAILURES_PER_EMAIL_IP);
    expect(results.filter((r) => 'retryAfterSeconds' in r)).toHaveLength(24 - MAX_FAILURES_PER_EMAIL_IP);
    expect((await a.query("SELECT COUNT(*) AS n FROM admin_login_attempts WHERE ip = '10.1.1.1'")).rows[0]).toEqual({ n: MAX_FAILURES_PER_EMAIL_IP });
  });

  it('parallel guesses at many e-mails from one address, through both: exactly the per-address limit', async () => {
    const [pa, pb] = [pgPart(a), pgPart(b)];
    // Up to a few under the limit one by one, then a burst: the burst races at the limit.
    const head = MAX_FAILURES_PER_IP - 4;
    for (let i = 0; i < head; i++) await pa.admins.recordSignInAttempt(`early${i}@example.com`, '10.2.2.2', later(i));
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      (i % 2 ? pa : pb).admins.recordSignInAttempt(`guess${i}@example.com`, '10.2.2.2', later(head + i))));
    expect(results.filter((r) => 'attemptId' in r)).toHaveLength(4);
    expect((await a.query("SELECT COUNT(*) AS n FROM admin_login_attempts WHERE ip = '10.2.2.2'")).rows[0]).toEqual({ n: MAX_FAILURES_PER_IP });
  });

  it('the same admin added by both at once: one admin, one 409 email_taken', async () => {
    const [pa, pb] = [pgPart(a), pgPart(b)];
    const { organization_id: org } = await pa.organizations.create('Admins race');
    for (let i = 0; i < 10; i++) {
      const results = await Promise.allSettled([pa.admins.create(org, `x${i}@example.com`, HASH), pb.admins.create(org, `X${i}@example.com`, HASH)]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'email_taken', message: 'This organization already has an admin with this email' } });
    }
    expect(await pa.admins.list(org)).toHaveLength(10);
  });
});

describe.skipIf(PG_SKIP !== null)('U+0000, which PostgreSQL text cannot hold', () => {
  const db = useTestDatabase();
  let pool: pg.Pool;
  beforeAll(async () => {
    pool = openPgPool(db().url, { max: 2 });
    await migratePg(pool);
  });
  afterAll(async () => {
    await pool.end();
  });

  it('an account e-mail with one is refused as invalid (SQLite stores it), wherever the NUL is', async () => {
    const store = pgPart(pool);
    const { organization_id: org } = await store.organizations.create('NUL');
    for (const email of ['a\u0000@example.com', 'a@example.com\u0000', '\u0000a@example.com', 'aexample\u0000com', 'a\u0000example.com', '\u0000']) {
      await expect(store.accounts.create(org, email)).rejects.toMatchObject({ code: 'validation_failed', status: 400 });
    }
    expect(await store.accounts.list(org)).toEqual([]);
  });

  it('sign-in attempts with one are counted (as U+FFFD), blocked at the limit, and taken back on success', async () => {
    const store = pgPart(pool);
    const results = [];
    for (let i = 0; i <= MAX_FAILURES_PER_EMAIL_IP; i++) results.push(await store.admins.recordSignInAttempt('x\u0000@example.com', '10.3.3.3', later(i)));
    expect(results.filter((r) => 'attemptId' in r)).toHaveLength(MAX_FAILURES_PER_EMAIL_IP);
    expect(results.at(-1)).toHaveProperty('retryAfterSeconds');
    await store.admins.signInSucceeded(0, 'x\u0000@example.com', '10.3.3.3', later(MIN));
    expect(await store.admins.recordSignInAttempt('x\u0000@example.com', '10.3.3.3', later(MIN))).toHaveProperty('attemptId');
  });
});
