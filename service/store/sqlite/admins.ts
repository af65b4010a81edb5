// The admin panel's rows: admins, their sessions and the failed sign-ins (the rules are in ../admins.ts).
import type { Db } from './db.ts';
import { now } from '../clock.ts';
import { notFound } from '../../errors.ts';
import {
  LOGIN_WINDOW_MS, MAX_FAILURES_PER_EMAIL_IP, MAX_FAILURES_PER_IP, SESSION_IDLE_MS, adminEmailTaken, blockedSeconds, iso, newSession, normEmail,
  sessionIdHash, sessionState, type AdminCredentials, type AdminInfo, type AdminSession, type Flash, type NewSession,
} from '../admins.ts';

/** Inserts an admin whose password is already hashed; the email must be free in the organization. */
export function insertAdmin(db: Db, organizationId: string, email: string, passwordHash: string): AdminInfo {
  return db.transaction(() => {
    if (db.prepare('SELECT 1 FROM admins WHERE organization_id = ? AND email_norm = ?').get(organizationId, normEmail(email))) throw adminEmailTaken();
    const created = now();
    const id = Number(db.prepare('INSERT INTO admins (organization_id, email, email_norm, password_hash, created) VALUES (?, ?, ?, ?, ?)')
      .run(organizationId, email, normEmail(email), passwordHash, created).lastInsertRowid);
    return { id, organization_id: organizationId, email, created };
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

/** The admins an email (normalized) may sign in as, oldest first, in one organization when given. */
export function adminsForSignIn(db: Db, email: string, organizationId?: string): AdminCredentials[] {
  return db.prepare(`SELECT id, organization_id, email, created, password_hash
    FROM admins WHERE email_norm = @email AND (@org IS NULL OR organization_id = @org) ORDER BY created, id LIMIT 10`)
    .all({ email, org: organizationId ?? null }) as AdminCredentials[];
}

export function createSession(db: Db, adminId: number, at: Date = new Date()): NewSession {
  const { token, idHash, csrfToken, expires } = newSession(at);
  db.prepare('INSERT INTO admin_sessions (id_hash, admin_id, csrf_token, created, expires, last_seen) VALUES (?, ?, ?, ?, ?, ?)')
    .run(idHash, adminId, csrfToken, at.toISOString(), expires, at.toISOString());
  return { token, csrfToken, expires };
}

/** The session behind a cookie's token, or undefined when unknown, idle too long or past its absolute expiry. */
export function getSession(db: Db, token: string, at: Date = new Date()): AdminSession | undefined {
  if (!token) return undefined;
  const idHash = sessionIdHash(token);
  const row = db.prepare(`SELECT s.admin_id, s.csrf_token, s.flash, s.expires, s.last_seen, a.email, a.organization_id, o.name AS organization_name
    FROM admin_sessions s JOIN admins a ON a.id = s.admin_id JOIN organizations o ON o.id = a.organization_id WHERE s.id_hash = ?`).get(idHash) as
    | { admin_id: number; csrf_token: string; flash: string | null; expires: string; last_seen: string; email: string; organization_id: string; organization_name: string }
    | undefined;
  if (!row) return undefined;
  const state = sessionState(row, at);
  if (state === 'expired') {
    db.prepare('DELETE FROM admin_sessions WHERE id_hash = ?').run(idHash);
    return undefined;
  }
  if (state === 'touch') db.prepare('UPDATE admin_sessions SET last_seen = ? WHERE id_hash = ?').run(at.toISOString(), idHash);
  return {
    idHash, adminId: row.admin_id, email: row.email, organizationId: row.organization_id, organizationName: row.organization_name,
    csrfToken: row.csrf_token, expires: row.expires, flash: row.flash ? (JSON.parse(row.flash) as Flash) : null,
  };
}

export function deleteSession(db: Db, token: string): void {
  db.prepare('DELETE FROM admin_sessions WHERE id_hash = ?').run(sessionIdHash(token));
}

/** A one-time message for the next page the admin sees (post/redirect/get). */
export function setFlash(db: Db, session: Pick<AdminSession, 'idHash'>, flash: Flash | null): void {
  db.prepare('UPDATE admin_sessions SET flash = ? WHERE id_hash = ?').run(flash ? JSON.stringify(flash) : null, session.idHash);
}

/** Seconds until the oldest failure in the window expires, or 0 when another attempt is allowed. */
export function loginBlockedFor(db: Db, email: string, ip: string, at: Date = new Date()): number {
  const since = iso(at.getTime() - LOGIN_WINDOW_MS);
  const blocked = (where: string, params: Record<string, string>, max: number): number => {
    const r = db.prepare(`SELECT COUNT(*) AS n, (SELECT at FROM admin_login_attempts WHERE ${where} ORDER BY at DESC LIMIT 1 OFFSET ${max - 1}) AS oldest
      FROM admin_login_attempts WHERE ${where}`).get({ ...params, since }) as { n: number; oldest: string | null };
    return blockedSeconds(r.n, r.oldest, max, at);
  };
  const byEmail = blocked('email_norm = @email AND ip = @ip AND at > @since', { email: normEmail(email), ip }, MAX_FAILURES_PER_EMAIL_IP);
  const byIp = blocked('ip = @ip AND at > @since', { ip }, MAX_FAILURES_PER_IP);
  return Math.max(byEmail, byIp);
}

/** The rate limit's check and, when it lets the attempt through, its record as a failure: one step. */
export function recordSignInAttempt(db: Db, email: string, ip: string, at: Date): { attemptId: number } | { retryAfterSeconds: number } {
  const retryAfterSeconds = loginBlockedFor(db, email, ip, at);
  if (retryAfterSeconds > 0) return { retryAfterSeconds };
  return { attemptId: Number(db.prepare('INSERT INTO admin_login_attempts (email_norm, ip, at) VALUES (?, ?, ?)').run(email, ip, at.toISOString()).lastInsertRowid) };
}

/** A success takes its attempt back and forgets the email and address's failures; old failures and dead sessions go too. */
export function signInSucceeded(db: Db, attemptId: number, email: string, ip: string, at: Date): void {
  db.transaction(() => {
    db.prepare('DELETE FROM admin_login_attempts WHERE id = ? OR (email_norm = ? AND ip = ?)').run(attemptId, email, ip);
    // Housekeeping rides on successful sign-ins: old failures and dead sessions are never needed again.
    db.prepare('DELETE FROM admin_login_attempts WHERE at <= ?').run(iso(at.getTime() - LOGIN_WINDOW_MS));
    db.prepare('DELETE FROM admin_sessions WHERE expires <= ? OR last_seen <= ?').run(at.toISOString(), iso(at.getTime() - SESSION_IDLE_MS));
  })();
}
