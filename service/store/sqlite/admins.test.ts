// The admin panel's store: migration 003, scrypt password hashes, sessions (hashed ids, idle and absolute
// expiry, flash, CSRF comparison) and sign-in with its rate limit.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { migrate, type Db } from './db.ts';
import { createOrganization } from './organizations.ts';
import {
  createAdmin, createSession, csrfMatches, deleteAdmin, deleteSession, getSession, hashPassword, listAdmins, login, loginBlockedFor,
  setFlash, verifyPassword, LOGIN_WINDOW_MS, MAX_FAILURES_PER_IP, SCRYPT_DEFAULTS, SESSION_IDLE_MS, SESSION_MAX_MS, type ScryptParams,
} from './admins.ts';
import { ApiError } from '../../errors.ts';

// Cheap parameters for admins the tests sign in with many times; the defaults are checked on their own.
const FAST: ScryptParams = { N: 2 ** 10, r: 8, p: 1 };
const PASSWORD = 'correct horse battery';
const T0 = new Date('2026-03-01T08:00:00.000Z');
const later = (ms: number, from: Date = T0): Date => new Date(from.getTime() + ms);
const MIN = 60_000;

let db: Db;
beforeEach(() => {
  db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  migrate(db);
});
afterEach(() => db.close());

const objects = (type: string) =>
  (db.prepare(`SELECT name FROM sqlite_master WHERE type = ? AND name LIKE 'admin%' ORDER BY name`).all(type) as { name: string }[]).map((r) => r.name);
const columns = (table: string) => (db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name);
const count = (sql: string, ...args: unknown[]) => (db.prepare(sql).get(...args) as { n: number }).n;
const apiError = async (p: Promise<unknown>): Promise<ApiError> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected an ApiError');
};

describe('migration 003', () => {
  it('adds admins, admin_sessions and admin_login_attempts to a version-2 database, leaving its data alone', () => {
    const old = new Database(':memory:');
    try {
      old.pragma('foreign_keys = ON');
      migrate(old, 2);
      const { organization_id } = createOrganization(old, 'Before 003');
      migrate(old, 3);
      expect(old.pragma('user_version', { simple: true })).toBe(3);
      const names = (type: string) => (old.prepare(`SELECT name FROM sqlite_master WHERE type = ? AND name LIKE 'admin%' ORDER BY name`).all(type) as { name: string }[]).map((r) => r.name);
      expect(names('table')).toEqual(['admin_login_attempts', 'admin_sessions', 'admins']);
      expect(names('index')).toEqual(expect.arrayContaining(['admins_email', 'admin_sessions_admin', 'admin_sessions_expires', 'admin_login_attempts_email_ip', 'admin_login_attempts_ip']));
      expect((old.prepare('SELECT name FROM organizations WHERE id = ?').get(organization_id) as { name: string }).name).toBe('Before 003');
      expect(old.prepare('SELECT COUNT(*) AS n FROM admins').get()).toEqual({ n: 0 });
    } finally {
      old.close();
    }
    // Only a hash of the password and of the session id is ever stored.
    expect(columns('admins')).toEqual(['id', 'organization_id', 'email', 'email_norm', 'password_hash', 'created']);
    expect(columns('admin_sessions')).toEqual(['id_hash', 'admin_id', 'csrf_token', 'flash', 'created', 'expires', 'last_seen']);
    expect(columns('admin_login_attempts')).toEqual(['id', 'email_norm', 'ip', 'at']);
    // Admins go with their organization, sessions with their admin.
    const fk = (t: string) => db.pragma(`foreign_key_list(${t})`) as { table: string; from: string; on_delete: string }[];
    expect(fk('admins')).toEqual([expect.objectContaining({ table: 'organizations', from: 'organization_id', on_delete: 'CASCADE' })]);
    expect(fk('admin_sessions')).toEqual([expect.objectContaining({ table: 'admins', from: 'admin_id', on_delete: 'CASCADE' })]);
    // Email unique per organization.
    const { organization_id: org } = createOrganization(db, 'Acme');
    const ins = db.prepare("INSERT INTO admins (organization_id, email, email_norm, password_hash, created) VALUES (?, 'A@x.io', 'a@x.io', 'h', 't')");
    ins.run(org);
    expect(() => ins.run(org)).toThrow(/UNIQUE/);
    expect(objects('table')).toHaveLength(3);
  });
});

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
    const acme = createOrganization(db, 'Acme').organization_id;
    const other = createOrganization(db, 'Other').organization_id;
    const a = await createAdmin(db, acme, ' Admin@Acme.test ', PASSWORD, FAST);
    expect(a).toMatchObject({ organization_id: acme, email: 'Admin@Acme.test' });
    expect((await apiError(createAdmin(db, acme, 'admin@acme.TEST', 'another password', FAST))).status).toBe(409);
    await createAdmin(db, other, 'admin@acme.test', PASSWORD, FAST);
    expect(listAdmins(db, acme).map((x) => x.email)).toEqual(['Admin@Acme.test']);
    const stored = db.prepare('SELECT * FROM admins').all() as Record<string, unknown>[];
    expect(JSON.stringify(stored)).not.toContain(PASSWORD);
  });

  it('need a valid email, a password of at least 10 characters and an existing organization', async () => {
    const acme = createOrganization(db, 'Acme').organization_id;
    expect((await apiError(createAdmin(db, acme, 'not-an-email', PASSWORD, FAST))).status).toBe(400);
    expect((await apiError(createAdmin(db, acme, 'a@b.io', 'short', FAST))).message).toMatch(/10/);
    expect((await apiError(createAdmin(db, acme, 'a@b.io', 'x'.repeat(1025), FAST))).status).toBe(400);
    expect((await apiError(createAdmin(db, 'org-missing', 'a@b.io', PASSWORD, FAST))).status).toBe(404);
    expect(count('SELECT COUNT(*) AS n FROM admins')).toBe(0);
  });

  it('deleting an admin ends their sessions', async () => {
    const acme = createOrganization(db, 'Acme').organization_id;
    const a = await createAdmin(db, acme, 'admin@acme.test', PASSWORD, FAST);
    const s = createSession(db, a.id, T0);
    deleteAdmin(db, acme, 'ADMIN@acme.test');
    expect(getSession(db, s.token, T0)).toBeUndefined();
    expect(count('SELECT COUNT(*) AS n FROM admin_sessions')).toBe(0);
    expect(() => deleteAdmin(db, acme, 'admin@acme.test')).toThrow(/not found/);
  });
});

describe('sessions', () => {
  let adminId: number;
  beforeEach(async () => {
    const acme = createOrganization(db, 'Acme <Farms>').organization_id;
    adminId = (await createAdmin(db, acme, 'admin@acme.test', PASSWORD, FAST)).id;
  });

  it('store only the SHA-256 of the random token, and resolve to the admin, the organization and the CSRF token', () => {
    const s = createSession(db, adminId, T0);
    expect(s.token).toMatch(/^[\w-]{43}$/);
    expect(s.csrfToken).toMatch(/^[\w-]{43}$/);
    expect(s.csrfToken).not.toBe(s.token);
    expect(s.expires).toBe(later(SESSION_MAX_MS).toISOString());
    const row = db.prepare('SELECT * FROM admin_sessions').get() as Record<string, string>;
    expect(row.id_hash).toBe(createHash('sha256').update(s.token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(s.token);
    expect(getSession(db, s.token, T0)).toMatchObject({ adminId, email: 'admin@acme.test', organizationName: 'Acme <Farms>', csrfToken: s.csrfToken, flash: null });
    expect(getSession(db, `${s.token}x`, T0)).toBeUndefined();
    expect(getSession(db, '', T0)).toBeUndefined();
    expect(createSession(db, adminId, T0).token).not.toBe(s.token);
  });

  it('end after 30 idle minutes; each use keeps them alive', () => {
    expect(SESSION_IDLE_MS).toBe(30 * MIN);
    const s = createSession(db, adminId, T0);
    expect(getSession(db, s.token, later(29 * MIN))).toBeDefined();
    expect(getSession(db, s.token, later(58 * MIN))).toBeDefined();
    expect(getSession(db, s.token, later(88 * MIN))).toBeUndefined();
    // An expired session is deleted, not just ignored.
    expect(count('SELECT COUNT(*) AS n FROM admin_sessions')).toBe(0);
  });

  it('end 12 hours after sign-in however active the admin is', () => {
    expect(SESSION_MAX_MS).toBe(12 * 60 * MIN);
    const s = createSession(db, adminId, T0);
    for (let t = 20 * MIN; t < SESSION_MAX_MS; t += 20 * MIN) expect(getSession(db, s.token, later(t)), `${t / MIN} min`).toBeDefined();
    expect(getSession(db, s.token, later(SESSION_MAX_MS))).toBeUndefined();
  });

  it('end at sign-out', () => {
    const s = createSession(db, adminId, T0);
    const other = createSession(db, adminId, T0);
    deleteSession(db, s.token);
    expect(getSession(db, s.token, T0)).toBeUndefined();
    expect(getSession(db, other.token, T0)).toBeDefined();
  });

  it('carry a one-time flash message', () => {
    const s = createSession(db, adminId, T0);
    setFlash(db, getSession(db, s.token, T0)!, { kind: 'success', text: 'Done <b>' });
    expect(getSession(db, s.token, T0)!.flash).toEqual({ kind: 'success', text: 'Done <b>' });
    setFlash(db, getSession(db, s.token, T0)!, null);
    expect(getSession(db, s.token, T0)!.flash).toBeNull();
  });

  it('accept exactly their own CSRF token', () => {
    const s = createSession(db, adminId, T0);
    const other = createSession(db, adminId, T0);
    const session = getSession(db, s.token, T0)!;
    expect(csrfMatches(session, s.csrfToken)).toBe(true);
    for (const bad of [other.csrfToken, s.csrfToken.slice(0, -1), `${s.csrfToken}a`, '', undefined, null, 42, [s.csrfToken]]) {
      expect(csrfMatches(session, bad), String(bad)).toBe(false);
    }
  });
});

describe('sign-in', () => {
  let acme: string;
  const ip = '203.0.113.7';
  const attempt = (password: string, at: Date, over: Partial<{ email: string; ip: string; organizationId: string }> = {}) =>
    login(db, { email: 'admin@acme.test', password, ip, ...over }, at);
  beforeEach(async () => {
    acme = createOrganization(db, 'Acme').organization_id;
    await createAdmin(db, acme, 'admin@acme.test', PASSWORD, FAST);
  });

  it('opens a session for the right password only; an unknown email fails the same way', async () => {
    const ok = await attempt(PASSWORD, T0, { email: ' ADMIN@acme.test' });
    expect(ok.ok).toBe(true);
    if (!ok.ok) return;
    expect(getSession(db, ok.token, T0)).toMatchObject({ organizationId: acme, email: 'admin@acme.test' });
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

  it('is refused for any email once one address has 50 failures', async () => {
    const ins = db.prepare('INSERT INTO admin_login_attempts (email_norm, ip, at) VALUES (?, ?, ?)');
    for (let i = 0; i < MAX_FAILURES_PER_IP; i++) ins.run(`user${i}@x.io`, ip, later(i * 1000).toISOString());
    expect(loginBlockedFor(db, 'admin@acme.test', ip, later(MIN))).toBeGreaterThan(0);
    expect(await attempt(PASSWORD, later(MIN))).toMatchObject({ ok: false, reason: 'rate_limited' });
    expect(loginBlockedFor(db, 'admin@acme.test', '198.51.100.1', later(MIN))).toBe(0);
  });

  it('picks the organization named by org when one email administers several, else the oldest the password opens', async () => {
    const other = createOrganization(db, 'Other').organization_id;
    await createAdmin(db, other, 'admin@acme.test', 'the other password', FAST);
    const first = await attempt(PASSWORD, T0);
    const second = await attempt('the other password', T0);
    const chosen = await attempt(PASSWORD, T0, { organizationId: other });
    expect(first.ok && getSession(db, first.token, T0)!.organizationId).toBe(acme);
    expect(second.ok && getSession(db, second.token, T0)!.organizationId).toBe(other);
    expect(chosen).toEqual({ ok: false, reason: 'invalid' });
  });

  it('clears expired sessions and old failures on a success', async () => {
    const old = await attempt(PASSWORD, T0);
    await attempt('wrong', T0, { email: 'someone@else.io' });
    expect(count('SELECT COUNT(*) AS n FROM admin_login_attempts')).toBe(1);
    expect((await attempt(PASSWORD, later(SESSION_MAX_MS))).ok).toBe(true);
    expect(count('SELECT COUNT(*) AS n FROM admin_login_attempts')).toBe(0);
    expect(count('SELECT COUNT(*) AS n FROM admin_sessions')).toBe(1);
    expect(old.ok && getSession(db, old.token, later(SESSION_MAX_MS))).toBeUndefined();
  });
});
