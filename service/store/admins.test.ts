// The admin panel's accounts through the Store: scrypt password hashes, admins per organization, sessions (idle and
// absolute expiry, flash, CSRF comparison) and sign-in with its rate limit. How SQLite stores them (hashes only,
// migration 003, housekeeping): sqlite/admins.test.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createAdmin, csrfMatches, hashPassword, login, verifyPassword, LOGIN_WINDOW_MS, SCRYPT_DEFAULTS, SESSION_IDLE_MS, SESSION_MAX_MS,
  type ScryptParams,
} from './admins.ts';
import type { Store } from './store.ts';
import { ApiError } from '../errors.ts';
import { openTestStore } from '../../test/helpers/store.ts';

// Cheap parameters for admins the tests sign in with many times; the defaults are checked on their own.
const FAST: ScryptParams = { N: 2 ** 10, r: 8, p: 1 };
const PASSWORD = 'correct horse battery';
const T0 = new Date('2026-03-01T08:00:00.000Z');
const later = (ms: number, from: Date = T0): Date => new Date(from.getTime() + ms);
const MIN = 60_000;

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-admins-'));
  ({ store } = await openTestStore(dir));
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const newOrg = async (name: string) => (await store.organizations.create(name)).organization_id;
const apiError = async (p: Promise<unknown>): Promise<ApiError> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected an ApiError');
};

describe('passwords', () => {
  it('are hashed with scrypt N=2^15 r=8 p=1, a random 16-byte salt and the parameters kept with the hash', async () => {
    const a = await hashPassword(PASSWORD);
    const b = await hashPassword(PASSWORD);
    expect(SCRYPT_DEFAULTS).toEqual({ N: 32768, r: 8, p: 1 });
    const m = /^scrypt\$32768\$8\$1\$([\w-]+)\$([\w-]+)$/.exec(a);
    expect(m).not.toBeNull();
    expect(Buffer.from(m![1]!, 'base64url')).toHaveLength(16);
    expect(Buffer.from(m![2]!, 'base64url')).toHaveLength(32);
    expect(a).not.toBe(b);
    expect(a).not.toContain(PASSWORD);
    expect(await verifyPassword(PASSWORD, a)).toBe(true);
    expect(await verifyPassword(PASSWORD, b)).toBe(true);
    expect(await verifyPassword(`${PASSWORD} `, a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
  });

  it('compare Unicode passwords in NFKC form, so composed and decomposed accents match', async () => {
    const h = await hashPassword('contrase\u00f1a segura', FAST);
    expect(await verifyPassword('contrasen\u0303a segura', h)).toBe(true);
  });

  it('refuse malformed or tampered hashes without hashing with absurd parameters', async () => {
    const good = await hashPassword(PASSWORD, FAST);
    const [, , r, p, salt, key] = good.split('$');
    for (const bad of ['', PASSWORD, 'bcrypt$x', `scrypt$1000$${r}$${p}$${salt}$${key}`, `scrypt$${2 ** 30}$${r}$${p}$${salt}$${key}`,
      `scrypt$1024$99$${p}$${salt}$${key}`, `scrypt$1024$${r}$${p}$${salt}$${key!.slice(0, 10)}`, `scrypt$1024$${r}$${p}$${salt}$${key}$extra`]) {
      expect(await verifyPassword(PASSWORD, bad), bad).toBe(false);
    }
  });
});

describe('admins', () => {
  it('are created per organization; the email is unique within it, case-insensitively, and may recur in another', async () => {
    const acme = await newOrg('Acme');
    const other = await newOrg('Other');
    const a = await createAdmin(store, acme, ' Admin@Acme.test ', PASSWORD, FAST);
    expect(a).toMatchObject({ organization_id: acme, email: 'Admin@Acme.test' });
    expect((await apiError(createAdmin(store, acme, 'admin@acme.TEST', 'another password', FAST))).status).toBe(409);
    await createAdmin(store, other, 'admin@acme.test', PASSWORD, FAST);
    expect((await store.admins.list(acme)).map((x) => x.email)).toEqual(['Admin@Acme.test']);
    // What the store keeps to check a password is its hash.
    const [stored] = await store.admins.forSignIn('admin@acme.test', acme);
    expect(stored!.password_hash).toMatch(/^scrypt\$/);
    expect(JSON.stringify(stored)).not.toContain(PASSWORD);
  });

  it('need a valid email, a password of at least 10 characters and an existing organization', async () => {
    const acme = await newOrg('Acme');
    expect((await apiError(createAdmin(store, acme, 'not-an-email', PASSWORD, FAST))).status).toBe(400);
    expect((await apiError(createAdmin(store, acme, 'a@b.io', 'short', FAST))).message).toMatch(/10/);
    expect((await apiError(createAdmin(store, acme, 'a@b.io', 'x'.repeat(1025), FAST))).status).toBe(400);
    expect((await apiError(createAdmin(store, 'org-missing', 'a@b.io', PASSWORD, FAST))).status).toBe(404);
    expect(await store.admins.list(acme)).toEqual([]);
  });

  it('deleting an admin ends their sessions', async () => {
    const acme = await newOrg('Acme');
    const a = await createAdmin(store, acme, 'admin@acme.test', PASSWORD, FAST);
    const s = await store.admins.createSession(a.id, T0);
    await store.admins.delete(acme, 'ADMIN@acme.test');
    expect(await store.admins.session(s.token, T0)).toBeUndefined();
    await expect(store.admins.delete(acme, 'admin@acme.test')).rejects.toThrow(/not found/);
  });
});

describe('sessions', () => {
  let adminId: number;
  beforeEach(async () => {
    const acme = await newOrg('Acme <Farms>');
    adminId = (await createAdmin(store, acme, 'admin@acme.test', PASSWORD, FAST)).id;
  });
  const session = (token: string, at: Date = T0) => store.admins.session(token, at);

  it('resolve a random token to the admin, the organization and the CSRF token', async () => {
    const s = await store.admins.createSession(adminId, T0);
    expect(s.token).toMatch(/^[\w-]{43}$/);
    expect(s.csrfToken).toMatch(/^[\w-]{43}$/);
    expect(s.csrfToken).not.toBe(s.token);
    expect(s.expires).toBe(later(SESSION_MAX_MS).toISOString());
    expect(await session(s.token)).toMatchObject({ adminId, email: 'admin@acme.test', organizationName: 'Acme <Farms>', csrfToken: s.csrfToken, flash: null });
    expect(await session(`${s.token}x`)).toBeUndefined();
    expect(await session('')).toBeUndefined();
    expect((await store.admins.createSession(adminId, T0)).token).not.toBe(s.token);
  });

  it('end after 30 idle minutes; each use keeps them alive', async () => {
    expect(SESSION_IDLE_MS).toBe(30 * MIN);
    const s = await store.admins.createSession(adminId, T0);
    expect(await session(s.token, later(29 * MIN))).toBeDefined();
    expect(await session(s.token, later(58 * MIN))).toBeDefined();
    expect(await session(s.token, later(88 * MIN))).toBeUndefined();
    // Expired for good: an earlier time does not bring it back.
    expect(await session(s.token, later(60 * MIN))).toBeUndefined();
  });

  it('end 12 hours after sign-in however active the admin is', async () => {
    expect(SESSION_MAX_MS).toBe(12 * 60 * MIN);
    const s = await store.admins.createSession(adminId, T0);
    for (let t = 20 * MIN; t < SESSION_MAX_MS; t += 20 * MIN) expect(await session(s.token, later(t)), `${t / MIN} min`).toBeDefined();
    expect(await session(s.token, later(SESSION_MAX_MS))).toBeUndefined();
  });

  it('end at sign-out', async () => {
    const s = await store.admins.createSession(adminId, T0);
    const other = await store.admins.createSession(adminId, T0);
    await store.admins.deleteSession(s.token);
    expect(await session(s.token)).toBeUndefined();
    expect(await session(other.token)).toBeDefined();
  });

  it('carry a one-time flash message', async () => {
    const s = await store.admins.createSession(adminId, T0);
    await store.admins.setFlash((await session(s.token))!, { kind: 'success', text: 'Done <b>' });
    expect((await session(s.token))!.flash).toEqual({ kind: 'success', text: 'Done <b>' });
    await store.admins.setFlash((await session(s.token))!, null);
    expect((await session(s.token))!.flash).toBeNull();
  });

  it('accept exactly their own CSRF token', async () => {
    const s = await store.admins.createSession(adminId, T0);
    const other = await store.admins.createSession(adminId, T0);
    const current = (await session(s.token))!;
    expect(csrfMatches(current, s.csrfToken)).toBe(true);
    for (const bad of [other.csrfToken, s.csrfToken.slice(0, -1), `${s.csrfToken}a`, '', undefined, null, 42, [s.csrfToken]]) {
      expect(csrfMatches(current, bad), String(bad)).toBe(false);
    }
  });
});

describe('sign-in', () => {
  let acme: string;
  const ip = '203.0.113.7';
  const attempt = (password: string, at: Date, over: Partial<{ email: string; ip: string; organizationId: string }> = {}) =>
    login(store, { email: 'admin@acme.test', password, ip, ...over }, at);
  beforeEach(async () => {
    acme = await newOrg('Acme');
    await createAdmin(store, acme, 'admin@acme.test', PASSWORD, FAST);
  });

  it('opens a session for the right password only; an unknown email fails the same way', async () => {
    const ok = await attempt(PASSWORD, T0, { email: ' ADMIN@acme.test' });
    expect(ok.ok).toBe(true);
    if (!ok.ok) return;
    expect(await store.admins.session(ok.token, T0)).toMatchObject({ organizationId: acme, email: 'admin@acme.test' });
    expect(await attempt('wrong password', T0)).toEqual({ ok: false, reason: 'invalid' });
    expect(await attempt(PASSWORD, T0, { email: 'nobody@acme.test' })).toEqual({ ok: false, reason: 'invalid' });
  });

  it('is refused after 5 failures for the same email and address within 15 minutes, even with the right password', async () => {
    for (let i = 0; i < 5; i++) expect(await attempt(`wrong ${i}`, later(i * MIN))).toEqual({ ok: false, reason: 'invalid' });
    const blocked = await attempt(PASSWORD, later(5 * MIN));
    // The first failure (at T0) leaves the window at T0 + 15 min: 10 minutes from now.
    expect(blocked).toEqual({ ok: false, reason: 'rate_limited', retryAfterSeconds: 10 * 60 });
    // Another address, or another email from this address, is not affected.
    expect((await attempt(PASSWORD, later(5 * MIN), { ip: '198.51.100.1' })).ok).toBe(true);
    expect(await attempt('x', later(5 * MIN), { email: 'other@acme.test' })).toEqual({ ok: false, reason: 'invalid' });
    // Refused attempts are not counted: once the oldest failure leaves the window, one more try is allowed.
    expect((await attempt(PASSWORD, later(LOGIN_WINDOW_MS - 1))).ok).toBe(false);
    expect((await attempt(PASSWORD, later(LOGIN_WINDOW_MS + 1))).ok).toBe(true);
  });

  it('forgets the failures of an email and address after a success', async () => {
    for (let i = 0; i < 4; i++) await attempt('wrong', T0);
    expect((await attempt(PASSWORD, T0)).ok).toBe(true);
    for (let i = 0; i < 4; i++) expect(await attempt('wrong', T0)).toEqual({ ok: false, reason: 'invalid' });
    expect((await attempt(PASSWORD, T0)).ok).toBe(true);
  });

  it('counts parallel guesses before hashing: of 10 at once only 5 are checked', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => attempt(`guess ${i}`, T0)));
    expect(results.filter((r) => !r.ok && r.reason === 'invalid')).toHaveLength(5);
    expect(results.filter((r) => !r.ok && r.reason === 'rate_limited')).toHaveLength(5);
  });

  it('picks the organization named by org when one email administers several, else the oldest the password opens', async () => {
    const other = await newOrg('Other');
    await createAdmin(store, other, 'admin@acme.test', 'the other password', FAST);
    const first = await attempt(PASSWORD, T0);
    const second = await attempt('the other password', T0);
    const chosen = await attempt(PASSWORD, T0, { organizationId: other });
    expect(first.ok && (await store.admins.session(first.token, T0))!.organizationId).toBe(acme);
    expect(second.ok && (await store.admins.session(second.token, T0))!.organizationId).toBe(other);
    expect(chosen).toEqual({ ok: false, reason: 'invalid' });
  });

  it('a success clears sessions that have expired', async () => {
    const old = await attempt(PASSWORD, T0);
    expect((await attempt(PASSWORD, later(SESSION_MAX_MS))).ok).toBe(true);
    expect(old.ok && (await store.admins.session(old.token, later(SESSION_MAX_MS)))).toBeUndefined();
  });
});
