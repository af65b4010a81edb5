import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import type { Db } from './db.ts';
import { now } from '../clock.ts';
import { getOrganization } from './organizations.ts';
import { ApiError, notFound } from '../../errors.ts';
import { ErrorCode } from '../../../core/errors.ts';

// ---- passwords ----

export interface ScryptParams { N: number; r: number; p: number }
/** About 0.3 s on this project's 2-vCPU machines: slow for a guesser, tolerable for one sign-in. */
export const SCRYPT_DEFAULTS: ScryptParams = { N: 2 ** 15, r: 8, p: 1 };
const KEY_BYTES = 32;
const SALT_BYTES = 16;
export const MIN_PASSWORD_LENGTH = 10;
// scrypt itself copes with any length; the cap only keeps a form post from hashing megabytes.
export const MAX_PASSWORD_LENGTH = 1024;

function scrypt(password: string, salt: Buffer, { N, r, p }: ScryptParams): Promise<Buffer> {
  // NFKC: the same password typed on two keyboards (composed or decomposed accents) must hash the same.
  const input = password.normalize('NFKC');
  return new Promise((resolve, reject) => {
    scryptCallback(input, salt, KEY_BYTES, { N, r, p, maxmem: 256 * N * r }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** `scrypt$N$r$p$salt$hash` (base64url): the parameters travel with the hash, so they can be raised later. */
export async function hashPassword(password: string, params: ScryptParams = SCRYPT_DEFAULTS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scrypt(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([\w-]+)\$([\w-]+)$/.exec(stored);
  if (!m) return false;
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // Bounds keep a tampered row from turning one sign-in into a memory or CPU bomb.
  if (!(N >= 2 ** 10 && N <= 2 ** 20 && (N & (N - 1)) === 0 && r >= 1 && r <= 32 && p >= 1 && p <= 16)) return false;
  const expected = Buffer.from(m[5]!, 'base64url');
  const actual = await scrypt(password, Buffer.from(m[4]!, 'base64url'), { N, r, p });
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

// An unknown email still costs one full hash, so response time does not tell which emails are admins.
let dummyHash: Promise<string> | undefined;
const dummy = (): Promise<string> => (dummyHash ??= hashPassword(randomBytes(16).toString('hex')));

// ---- admins ----

export interface AdminInfo { id: number; organization_id: string; email: string; created: string }
interface AdminRow extends AdminInfo { password_hash: string }

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const normEmail = (email: string): string => email.trim().toLowerCase();

export async function createAdmin(db: Db, organizationId: string, email: string, password: string, params?: ScryptParams): Promise<AdminInfo> {
  const trimmed = email.trim();
  if (!EMAIL.test(trimmed) || trimmed.length > 254) throw new ApiError(ErrorCode.validationFailed, `'${email}' is not an e-mail address`);
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new ApiError(ErrorCode.validationFailed, `The password must have ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
  }
  if (!getOrganization(db, organizationId)) throw notFound('Organization');
  const hash = await hashPassword(password, params);
  // Hashing is asynchronous: the uniqueness check and the insert happen together afterwards.
  return db.transaction(() => {
    if (db.prepare('SELECT 1 FROM admins WHERE organization_id = ? AND email_norm = ?').get(organizationId, normEmail(trimmed))) {
      throw new ApiError(ErrorCode.emailTaken, 'This organization already has an admin with this email');
    }
    const created = now();
    const id = Number(db.prepare('INSERT INTO admins (organization_id, email, email_norm, password_hash, created) VALUES (?, ?, ?, ?, ?)')
      .run(organizationId, trimmed, normEmail(trimmed), hash, created).lastInsertRowid);
    return { id, organization_id: organizationId, email: trimmed, created };
  })();
}

export function listAdmins(db: Db, organizationId: string): AdminInfo[] {
  return db.prepare('SELECT id, organization_id, email, created FROM admins WHERE organization_id = ? ORDER BY created, id').all(organizationId) as AdminInfo[];
}

/** Removes the admin and, through the foreign key, every session they had open. */
export function deleteAdmin(db: Db, organizationId: string, email: string): void {
  const r = db.prepare('DELETE FROM admins WHERE organization_id = ? AND email_norm = ?').run(organizationId, normEmail(email));
  if (r.changes === 0) throw notFound('Admin');
}

// ---- sessions ----

export const SESSION_IDLE_MS = 30 * 60_000;
export const SESSION_MAX_MS = 12 * 60 * 60_000;
// last_seen is written at most once a minute: a page view should not always cost a write.
const TOUCH_EVERY_MS = 60_000;

export interface Flash { kind: 'success' | 'error'; text: string }
export interface AdminSession {
  idHash: string;
  adminId: number;
  email: string;
  organizationId: string;
  organizationName: string;
  csrfToken: string;
  expires: string;
  flash: Flash | null;
}

// The token carries 256 random bits: a plain SHA-256 suffices (as for API keys) and keeps every lookup cheap.
const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
const iso = (ms: number): string => new Date(ms).toISOString();

export function createSession(db: Db, adminId: number, at: Date = new Date()): { token: string; csrfToken: string; expires: string } {
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const expires = iso(at.getTime() + SESSION_MAX_MS);
  db.prepare('INSERT INTO admin_sessions (id_hash, admin_id, csrf_token, created, expires, last_seen) VALUES (?, ?, ?, ?, ?, ?)')
    .run(hashToken(token), adminId, csrfToken, at.toISOString(), expires, at.toISOString());
  return { token, csrfToken, expires };
}

/** The session behind a cookie's token, or undefined when unknown, idle too long or past its absolute expiry. */
export function getSession(db: Db, token: string, at: Date = new Date()): AdminSession | undefined {
  if (!token) return undefined;
  const idHash = hashToken(token);
  const row = db.prepare(`SELECT s.admin_id, s.csrf_token, s.flash, s.expires, s.last_seen, a.email, a.organization_id, o.name AS organization_name
    FROM admin_sessions s JOIN admins a ON a.id = s.admin_id JOIN organizations o ON o.id = a.organization_id WHERE s.id_hash = ?`).get(idHash) as
    | { admin_id: number; csrf_token: string; flash: string | null; expires: string; last_seen: string; email: string; organization_id: string; organization_name: string }
    | undefined;
  if (!row) return undefined;
  const t = at.getTime();
  const lastSeen = Date.parse(row.last_seen);
  if (t >= Date.parse(row.expires) || t - lastSeen >= SESSION_IDLE_MS) {
    db.prepare('DELETE FROM admin_sessions WHERE id_hash = ?').run(idHash);
    return undefined;
  }
  if (t - lastSeen >= TOUCH_EVERY_MS) db.prepare('UPDATE admin_sessions SET last_seen = ? WHERE id_hash = ?').run(at.toISOString(), idHash);
  return {
    idHash, adminId: row.admin_id, email: row.email, organizationId: row.organization_id, organizationName: row.organization_name,
    csrfToken: row.csrf_token, expires: row.expires, flash: row.flash ? (JSON.parse(row.flash) as Flash) : null,
  };
}

export function deleteSession(db: Db, token: string): void {
  db.prepare('DELETE FROM admin_sessions WHERE id_hash = ?').run(hashToken(token));
}

/** A one-time message for the next page the admin sees (post/redirect/get). */
export function setFlash(db: Db, session: Pick<AdminSession, 'idHash'>, flash: Flash | null): void {
  db.prepare('UPDATE admin_sessions SET flash = ? WHERE id_hash = ?').run(flash ? JSON.stringify(flash) : null, session.idHash);
}

/** Timing-safe: the comparison takes as long whichever character differs first. */
export function csrfMatches(session: Pick<AdminSession, 'csrfToken'>, given: unknown): boolean {
  if (typeof given !== 'string' || given === '') return false;
  const a = Buffer.from(session.csrfToken);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

// ---- sign-in with rate limiting ----

export const LOGIN_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_EMAIL_IP = 5;
// Guessing across many emails from one address is stopped too, at a level no honest office reaches.
export const MAX_FAILURES_PER_IP = 50;

export type LoginResult =
  | { ok: true; admin: AdminInfo; token: string; csrfToken: string; expires: string }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'rate_limited'; retryAfterSeconds: number };

export interface LoginInput { email: string; password: string; ip: string; organizationId?: string | undefined }

/** Seconds until the oldest failure in the window expires, or 0 when another attempt is allowed. */
export function loginBlockedFor(db: Db, email: string, ip: string, at: Date = new Date()): number {
  const since = iso(at.getTime() - LOGIN_WINDOW_MS);
  const blocked = (where: string, params: Record<string, string>, max: number): number => {
    const r = db.prepare(`SELECT COUNT(*) AS n, (SELECT at FROM admin_login_attempts WHERE ${where} ORDER BY at DESC LIMIT 1 OFFSET ${max - 1}) AS oldest
      FROM admin_login_attempts WHERE ${where}`).get({ ...params, since }) as { n: number; oldest: string | null };
    return r.n >= max && r.oldest ? Math.max(1, Math.ceil((Date.parse(r.oldest) + LOGIN_WINDOW_MS - at.getTime()) / 1000)) : 0;
  };
  // The max-th newest failure is the one whose expiry brings the count back under the limit.
  const byEmail = blocked('email_norm = @email AND ip = @ip AND at > @since', { email: normEmail(email), ip }, MAX_FAILURES_PER_EMAIL_IP);
  const byIp = blocked('ip = @ip AND at > @since', { ip }, MAX_FAILURES_PER_IP);
  return Math.max(byEmail, byIp);
}

export async function login(db: Db, input: LoginInput, at: Date = new Date()): Promise<LoginResult> {
  const email = normEmail(input.email);
  const retryAfterSeconds = loginBlockedFor(db, email, input.ip, at);
  if (retryAfterSeconds > 0) return { ok: false, reason: 'rate_limited', retryAfterSeconds };
  // The attempt counts as a failure before the (slow, asynchronous) hash: parallel guesses cannot all slip
  // through the check above before the first of them is recorded. A success takes it back.
  const attempt = db.prepare('INSERT INTO admin_login_attempts (email_norm, ip, at) VALUES (?, ?, ?)').run(email, input.ip, at.toISOString()).lastInsertRowid;
  const candidates = (input.password.length > MAX_PASSWORD_LENGTH ? [] : db.prepare(`SELECT id, organization_id, email, created, password_hash
    FROM admins WHERE email_norm = @email AND (@org IS NULL OR organization_id = @org) ORDER BY created, id LIMIT 10`)
    .all({ email, org: input.organizationId ?? null })) as AdminRow[];
  let match: AdminRow | undefined;
  // The same person may administer several organizations: the oldest admin row the password opens wins
  // (/admin/login?org=ID picks one explicitly).
  for (const c of candidates) {
    if (await verifyPassword(input.password, c.password_hash)) {
      match = c;
      break;
    }
  }
  if (candidates.length === 0) await verifyPassword(input.password, await dummy());
  if (!match) return { ok: false, reason: 'invalid' };
  db.transaction(() => {
    db.prepare('DELETE FROM admin_login_attempts WHERE id = ? OR (email_norm = ? AND ip = ?)').run(attempt, email, input.ip);
    // Housekeeping rides on successful sign-ins: old failures and dead sessions are never needed again.
    db.prepare('DELETE FROM admin_login_attempts WHERE at <= ?').run(iso(at.getTime() - LOGIN_WINDOW_MS));
    db.prepare('DELETE FROM admin_sessions WHERE expires <= ? OR last_seen <= ?').run(at.toISOString(), iso(at.getTime() - SESSION_IDLE_MS));
  })();
  const { password_hash: _hash, ...admin } = match;
  return { ok: true, admin, ...createSession(db, admin.id, at) };
}
