// The admin panel's rows on PostgreSQL: admins, their sessions and the failed sign-ins, as
// service/store/sqlite/admins.ts keeps them (the rules and the sign-in sequence: ../admins.ts).
import type pg from 'pg';
import { now } from '../clock.ts';
import { notFound } from '../../errors.ts';
import {
  LOGIN_WINDOW_MS, MAX_FAILURES_PER_EMAIL_IP, MAX_FAILURES_PER_IP, SESSION_IDLE_MS, adminEmailTaken, blockedSeconds, iso, newSession, normEmail,
  sessionIdHash, sessionState, type AdminCredentials, type AdminInfo, type Flash,
} from '../admins.ts';
import type { AdminStore } from '../store.ts';
import { hasNul, inTransaction } from './tx.ts';

/**
 * The key of the transaction-level advisory lock that serializes one address's sign-in attempts across processes.
 * Both limits count failures from the address (per email and address, per address), so one lock per address makes
 * the check and the record one step, as SQLite's single writer did; other addresses are not held up.
 */
const attemptLock = (ip: string): string => `furrow:admin-sign-in:${ip}`;

/**
 * A failed sign-in's e-mail as counted: PostgreSQL's text cannot hold U+0000, so it is counted as U+FFFD (no admin can
 * have either in their e-mail here, and two guesses that differ only there count together: stricter, never looser).
 */
const attemptEmail = (email: string): string => email.replaceAll('\u0000', '\uFFFD');

interface SessionJoin {
  admin_id: number; csrf_token: string; flash: string | null; expires: string; last_seen: string; email: string; organization_id: string; organization_name: string;
}

/** Seconds until the address's failures in the window let another attempt through, or 0 (SQLite's loginBlockedFor). */
async function blockedFor(c: pg.ClientBase, email: string, ip: string, at: Date): Promise<number> {
  const since = iso(at.getTime() - LOGIN_WINDOW_MS);
  // The count in the window and its max-th newest failure, the one whose expiry brings the count under the limit.
  const window = async (where: string, params: string[], max: number): Promise<number> => {
    const r = (await c.query<{ n: number; oldest: string | null }>(
      `SELECT COUNT(*) AS n, (SELECT at FROM admin_login_attempts WHERE ${where} ORDER BY at DESC LIMIT 1 OFFSET ${max - 1}) AS oldest
        FROM admin_login_attempts WHERE ${where}`, params)).rows[0]!;
    return blockedSeconds(r.n, r.oldest, max, at);
  };
  const byEmail = await window('email_norm = $1 AND ip = $2 AND at > $3', [normEmail(email), ip, since], MAX_FAILURES_PER_EMAIL_IP);
  const byIp = await window('ip = $1 AND at > $2', [ip, since], MAX_FAILURES_PER_IP);
  return Math.max(byEmail, byIp);
}

export function pgAdmins(pool: pg.Pool): AdminStore {
  return {
    async create(organizationId, email, passwordHash) {
      // Checked first only so that a refused admin takes no id from the sequence (an INSERT that conflicts does),
      // leaving ids as SQLite's. The (organization_id, email_norm) constraint decides a race between two processes:
      // DO NOTHING waits for the other insert to commit, then inserts nothing, and that is the 409 too.
      const taken = await pool.query('SELECT 1 FROM admins WHERE organization_id = $1 AND email_norm = $2', [organizationId, normEmail(email)]);
      if (taken.rowCount !== 0) throw adminEmailTaken();
      const created = now();
      const r = await pool.query<{ id: number }>(
        `INSERT INTO admins (organization_id, email, email_norm, password_hash, created) VALUES ($1, $2, $3, $4, $5)
          ON CONFLICT (organization_id, email_norm) DO NOTHING RETURNING id`,
        [organizationId, email, normEmail(email), passwordHash, created]);
      const row = r.rows[0];
      if (!row) throw adminEmailTaken();
      return { id: row.id, organization_id: organizationId, email, created };
    },
    async list(organizationId) {
      return (await pool.query<AdminInfo>('SELECT id, organization_id, email, created FROM admins WHERE organization_id = $1 ORDER BY created, id', [organizationId])).rows;
    },
    // Their sessions go by the foreign key's cascade.
    async delete(organizationId, email) {
      if (hasNul(email)) throw notFound('Admin');
      const r = await pool.query('DELETE FROM admins WHERE organization_id = $1 AND email_norm = $2', [organizationId, normEmail(email)]);
      if (r.rowCount === 0) throw notFound('Admin');
    },
    async forSignIn(email, organizationId) {
      if (hasNul(email)) return [];
      const columns = 'id, organization_id, email, created, password_hash';
      const r = organizationId === undefined
        ? await pool.query<AdminCredentials>(`SELECT ${columns} FROM admins WHERE email_norm = $1 ORDER BY created, id LIMIT 10`, [email])
        : await pool.query<AdminCredentials>(`SELECT ${columns} FROM admins WHERE email_norm = $1 AND organization_id = $2 ORDER BY created, id LIMIT 10`, [email, organizationId]);
      return r.rows;
    },
    recordSignInAttempt: (email, ip, at) => inTransaction(pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [attemptLock(ip)]);
      const retryAfterSeconds = await blockedFor(c, attemptEmail(email), ip, at);
      if (retryAfterSeconds > 0) return { retryAfterSeconds };
      const r = await c.query<{ id: number }>('INSERT INTO admin_login_attempts (email_norm, ip, at) VALUES ($1, $2, $3) RETURNING id',
        [attemptEmail(email), ip, at.toISOString()]);
      return { attemptId: r.rows[0]!.id };
    }),
    signInSucceeded: (attemptId, email, ip, at) => inTransaction(pool, async (c) => {
      await c.query('DELETE FROM admin_login_attempts WHERE id = $1 OR (email_norm = $2 AND ip = $3)', [attemptId, attemptEmail(email), ip]);
      // Housekeeping rides on successful sign-ins: old failures and dead sessions are never needed again.
      await c.query('DELETE FROM admin_login_attempts WHERE at <= $1', [iso(at.getTime() - LOGIN_WINDOW_MS)]);
      await c.query('DELETE FROM admin_sessions WHERE expires <= $1 OR last_seen <= $2', [at.toISOString(), iso(at.getTime() - SESSION_IDLE_MS)]);
    }),
    async createSession(adminId, at = new Date()) {
      const { token, idHash, csrfToken, expires } = newSession(at);
      // The session carries its admin's organization (the schema's foreign key is on both): read from the admin in
      // the same statement. An unknown admin is refused, as SQLite's foreign key refuses it.
      const r = await pool.query(
        `INSERT INTO admin_sessions (id_hash, organization_id, admin_id, csrf_token, created, expires, last_seen)
          SELECT $1, organization_id, id, $3, $4, $5, $4 FROM admins WHERE id = $2`,
        [idHash, adminId, csrfToken, at.toISOString(), expires]);
      if (r.rowCount === 0) throw new Error(`No admin ${adminId} to open a session for`);
      return { token, csrfToken, expires };
    },
    async session(token, at = new Date()) {
      if (!token) return undefined;
      const idHash = sessionIdHash(token);
      const row = (await pool.query<SessionJoin>(
        `SELECT s.admin_id, s.csrf_token, s.flash, s.expires, s.last_seen, a.email, a.organization_id, o.name AS organization_name
          FROM admin_sessions s JOIN admins a ON a.organization_id = s.organization_id AND a.id = s.admin_id
          JOIN organizations o ON o.id = a.organization_id WHERE s.id_hash = $1`, [idHash])).rows[0];
      if (!row) return undefined;
      // Each write below is one statement on its own, as in SQLite: a session deleted or touched twice by two
      // processes at once ends the same.
      const state = sessionState(row, at);
      if (state === 'expired') {
        await pool.query('DELETE FROM admin_sessions WHERE id_hash = $1', [idHash]);
        return undefined;
      }
      if (state === 'touch') await pool.query('UPDATE admin_sessions SET last_seen = $1 WHERE id_hash = $2', [at.toISOString(), idHash]);
      return {
        idHash, adminId: row.admin_id, email: row.email, organizationId: row.organization_id, organizationName: row.organization_name,
        csrfToken: row.csrf_token, expires: row.expires, flash: row.flash ? (JSON.parse(row.flash) as Flash) : null,
      };
    },
    async deleteSession(token) {
      await pool.query('DELETE FROM admin_sessions WHERE id_hash = $1', [sessionIdHash(token)]);
    },
    async setFlash(session, flash) {
      await pool.query('UPDATE admin_sessions SET flash = $1 WHERE id_hash = $2', [flash ? JSON.stringify(flash) : null, session.idHash]);
    },
  };
}
