// How the SQLite store keeps the admin panel's data (the behaviour, through the Store: ../admins.test.ts): migration
// 003, only hashes of passwords and session ids on disk, expired sessions and old failures deleted, and the
// per-address rate limit counted from the rows.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { migrate, type Db } from './db.ts';
import { sqliteStore } from './store.ts';
import { createOrganization } from './organizations.ts';
import { loginBlockedFor } from './admins.ts';
import { createAdmin, login, MAX_FAILURES_PER_IP, SESSION_MAX_MS, type ScryptParams } from '../admins.ts';
import type { Store } from '../store.ts';

// Cheap parameters for admins the tests sign in with many times.
const FAST: ScryptParams = { N: 2 ** 10, r: 8, p: 1 };
const PASSWORD = 'correct horse battery';
const T0 = new Date('2026-03-01T08:00:00.000Z');
const later = (ms: number, from: Date = T0): Date => new Date(from.getTime() + ms);
const MIN = 60_000;

let db: Db;
let store: Store;
beforeEach(() => {
  db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  migrate(db);
  store = sqliteStore(db);
});
afterEach(() => db.close());

const objects = (type: string) =>
  (db.prepare(`SELECT name FROM sqlite_master WHERE type = ? AND name LIKE 'admin%' ORDER BY name`).all(type) as { name: string }[]).map((r) => r.name);
const columns = (table: string) => (db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name);
const count = (sql: string, ...args: unknown[]) => (db.prepare(sql).get(...args) as { n: number }).n;

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

describe('what is stored', () => {
  let acme: string;
  let adminId: number;
  beforeEach(async () => {
    acme = createOrganization(db, 'Acme').organization_id;
    adminId = (await createAdmin(store, acme, 'admin@acme.test', PASSWORD, FAST)).id;
  });

  it('an admin row holds the password only as its hash', async () => {
    const stored = db.prepare('SELECT * FROM admins').all() as Record<string, unknown>[];
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(PASSWORD);
  });

  it('a session row holds only the SHA-256 of the random token', async () => {
    const s = await store.admins.createSession(adminId, T0);
    const row = db.prepare('SELECT * FROM admin_sessions').get() as Record<string, string>;
    expect(row.id_hash).toBe(createHash('sha256').update(s.token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(s.token);
  });

  it('an expired session is deleted, not just ignored; so are an admin\'s sessions with the admin', async () => {
    const s = await store.admins.createSession(adminId, T0);
    expect(await store.admins.session(s.token, later(88 * MIN))).toBeUndefined();
    expect(count('SELECT COUNT(*) AS n FROM admin_sessions')).toBe(0);
    await store.admins.createSession(adminId, T0);
    await store.admins.delete(acme, 'admin@acme.test');
    expect(count('SELECT COUNT(*) AS n FROM admin_sessions')).toBe(0);
  });

  it('is refused for any email once one address has 50 failures', async () => {
    const ip = '203.0.113.7';
    const ins = db.prepare('INSERT INTO admin_login_attempts (email_norm, ip, at) VALUES (?, ?, ?)');
    for (let i = 0; i < MAX_FAILURES_PER_IP; i++) ins.run(`user${i}@x.io`, ip, later(i * 1000).toISOString());
    expect(loginBlockedFor(db, 'admin@acme.test', ip, later(MIN))).toBeGreaterThan(0);
    expect(await login(store, { email: 'admin@acme.test', password: PASSWORD, ip }, later(MIN))).toMatchObject({ ok: false, reason: 'rate_limited' });
    expect(loginBlockedFor(db, 'admin@acme.test', '198.51.100.1', later(MIN))).toBe(0);
  });

  it('a success clears old failures and dead sessions', async () => {
    const ip = '203.0.113.7';
    const attempt = (password: string, at: Date, email = 'admin@acme.test') => login(store, { email, password, ip }, at);
    await attempt(PASSWORD, T0);
    await attempt('wrong', T0, 'someone@else.io');
    expect(count('SELECT COUNT(*) AS n FROM admin_login_attempts')).toBe(1);
    expect((await attempt(PASSWORD, later(SESSION_MAX_MS))).ok).toBe(true);
    expect(count('SELECT COUNT(*) AS n FROM admin_login_attempts')).toBe(0);
    expect(count('SELECT COUNT(*) AS n FROM admin_sessions')).toBe(1);
  });
});
