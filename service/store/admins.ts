// The admin panel's accounts, sessions and sign-in, on top of any Store. What is here is not SQL: password hashing,
// the session and rate-limit rules, and the sign-in sequence (whose order matters for security, so it is written
// once for every store); the store keeps the rows (Store.admins).
import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { ApiError, notFound } from '../errors.ts';
import { ErrorCode } from '../../core/errors.ts';
import type { Store } from './store.ts';
import type { AdminInfo, AdminCredentials, AdminSession, NewSession } from './rows.ts';
export type { AdminInfo, AdminCredentials, Flash, AdminSession, NewSession } from './rows.ts';

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


const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Admin e-mails are unique per organization case-insensitively, and looked up in this form. */
export const normEmail = (email: string): string => email.trim().toLowerCase();
export const adminEmailTaken = (): ApiError => new ApiError(ErrorCode.emailTaken, 'This organization already has an admin with this email');

export async function createAdmin(store: Store, organizationId: string, email: string, password: string, params?: ScryptParams): Promise<AdminInfo> {
  const trimmed = email.trim();
  if (!EMAIL.test(trimmed) || trimmed.length > 254) throw new ApiError(ErrorCode.validationFailed, `'${email}' is not an e-mail address`);
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new ApiError(ErrorCode.validationFailed, `The password must have ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
  }
  if (!(await store.organizations.get(organizationId))) throw notFound('Organization');
  // Hashing is asynchronous: the store checks the email is free and inserts together afterwards.
  return store.admins.create(organizationId, trimmed, await hashPassword(password, params));
}

// ---- sessions ----

export const SESSION_IDLE_MS = 30 * 60_000;
export const SESSION_MAX_MS = 12 * 60 * 60_000;
// last_seen is written at most once a minute: a page view should not always cost a write.
export const TOUCH_EVERY_MS = 60_000;


// The token carries 256 random bits: a plain SHA-256 suffices (as for API keys) and keeps every lookup cheap.
export const sessionIdHash = (token: string): string => createHash('sha256').update(token).digest('hex');
export const iso = (ms: number): string => new Date(ms).toISOString();

/** A session's cookie token (the store keeps only its hash), CSRF token and absolute expiry. */
export function newSession(at: Date): NewSession & { idHash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, idHash: sessionIdHash(token), csrfToken: randomBytes(32).toString('base64url'), expires: iso(at.getTime() + SESSION_MAX_MS) };
}

/** What a stored session is worth at `at`: gone (idle too long or past its expiry), due a last_seen write, or fine. */
export function sessionState(s: { expires: string; last_seen: string }, at: Date): 'expired' | 'touch' | 'fresh' {
  const t = at.getTime();
  const lastSeen = Date.parse(s.last_seen);
  if (t >= Date.parse(s.expires) || t - lastSeen >= SESSION_IDLE_MS) return 'expired';
  return t - lastSeen >= TOUCH_EVERY_MS ? 'touch' : 'fresh';
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

/**
 * Seconds until a window of failures lets another attempt through, from the number of failures in it and the
 * `max`-th newest of them (the one whose expiry brings the count back under the limit); 0 when not blocked.
 */
export const blockedSeconds = (n: number, maxthNewest: string | null, max: number, at: Date): number =>
  n >= max && maxthNewest ? Math.max(1, Math.ceil((Date.parse(maxthNewest) + LOGIN_WINDOW_MS - at.getTime()) / 1000)) : 0;

export type LoginResult =
  | { ok: true; admin: AdminInfo; token: string; csrfToken: string; expires: string }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'rate_limited'; retryAfterSeconds: number };

export interface LoginInput { email: string; password: string; ip: string; organizationId?: string | undefined }

export async function login(store: Store, input: LoginInput, at: Date = new Date()): Promise<LoginResult> {
  const email = normEmail(input.email);
  // The attempt counts as a failure before the (slow, asynchronous) hash, in the same atomic step as the check:
  // parallel guesses cannot all slip through the check before the first of them is recorded. A success takes it back.
  const attempt = await store.admins.recordSignInAttempt(email, input.ip, at);
  if ('retryAfterSeconds' in attempt) return { ok: false, reason: 'rate_limited', retryAfterSeconds: attempt.retryAfterSeconds };
  const candidates = input.password.length > MAX_PASSWORD_LENGTH ? [] : await store.admins.forSignIn(email, input.organizationId);
  let match: AdminCredentials | undefined;
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
  await store.admins.signInSucceeded(attempt.attemptId, email, input.ip, at);
  const { password_hash: _hash, ...admin } = match;
  return { ok: true, admin, ...(await store.admins.createSession(admin.id, at)) };
}
