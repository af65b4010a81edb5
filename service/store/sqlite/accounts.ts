import { randomBytes } from 'node:crypto';
import type { Db } from './db.ts';
import { now, uuid } from '../clock.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import { ApiError, accountNotFound } from '../../errors.ts';
import { ErrorCode } from '../../../core/errors.ts';
import { DEFAULT_MAX_PARCEL_HECTARES } from '../../../core/parcels/validate.ts';
import type { AccountSummary } from '../../../core/schemas/accounts.ts';

export interface AccountRow {
  id: string;
  organization_id: string;
  account_email: string;
  state: 'active' | 'deactivated';
  auth_id: string;
  max_parcel_hectares: number | null;
  created: string;
  modified: string;
  deactivated: string | null;
  /** In every account_access token; a token of another epoch is refused (store/tokens.ts, auth.ts). */
  token_epoch: number;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const newAuthId = () => randomBytes(24).toString('base64url');

export const embeddedUrl = (embedUrl: string, authId: string): string => `${embedUrl}/?auth_id=${encodeURIComponent(authId)}`;
export const parcelLimit = (a: Pick<AccountRow, 'max_parcel_hectares'>): number => a.max_parcel_hectares ?? DEFAULT_MAX_PARCEL_HECTARES;

export function summarize(a: AccountRow, embedUrl: string): AccountSummary {
  return {
    id: a.id,
    account_email: a.account_email,
    embedded_url: embeddedUrl(embedUrl, a.auth_id),
    state: a.state,
    max_parcel_hectares: parcelLimit(a),
    created: a.created,
    deactivated: a.deactivated,
  };
}

export function getAccountRow(db: Db, id: string): AccountRow | undefined {
  return cachedStatement(db, 'SELECT * FROM accounts WHERE id = ?').get(id) as AccountRow | undefined;
}

/** An account of this organization in any state; another organization's account does not exist here. */
export function getOrgAccount(db: Db, organizationId: string, id: string): AccountRow {
  const a = getAccountRow(db, id);
  if (!a || a.organization_id !== organizationId) throw accountNotFound();
  return a;
}

export function activeAccount(db: Db, organizationId: string, id: string): AccountRow {
  const a = getOrgAccount(db, organizationId, id);
  if (a.state !== 'active') throw accountNotFound();
  return a;
}

export function createAccount(db: Db, organizationId: string, email: string): AccountRow {
  const trimmed = email.trim();
  if (!EMAIL.test(trimmed) || trimmed.length > 254) {
    throw new ApiError(ErrorCode.validationFailed, `'${email}' is not a valid account_email`, [
      { path: 'body/account_email', code: 'format', message: 'account_email must be an e-mail address' },
    ]);
  }
  const norm = trimmed.toLowerCase();
  return db.transaction(() => {
    const existing = db.prepare('SELECT state FROM accounts WHERE organization_id = ? AND email_norm = ?').get(organizationId, norm) as
      | { state: string }
      | undefined;
    if (existing) {
      throw new ApiError(ErrorCode.emailTaken, existing.state === 'deactivated'
        ? 'This account_email belongs to a deactivated account; reactivate it or delete it permanently to reuse the address'
        : 'An account with this account_email already exists');
    }
    const t = now();
    const row: AccountRow = {
      id: `acc-${uuid()}`, organization_id: organizationId, account_email: trimmed, state: 'active',
      auth_id: newAuthId(), max_parcel_hectares: null, created: t, modified: t, deactivated: null, token_epoch: 0,
    };
    db.prepare(`INSERT INTO accounts (id, organization_id, account_email, email_norm, state, auth_id, max_parcel_hectares, created, modified)
      VALUES (@id, @organization_id, @account_email, @norm, @state, @auth_id, @max_parcel_hectares, @created, @modified)`).run({ ...row, norm });
    return row;
  })();
}

export function listAccounts(db: Db, organizationId: string): AccountRow[] {
  return db.prepare('SELECT * FROM accounts WHERE organization_id = ? ORDER BY created, id').all(organizationId) as AccountRow[];
}

/**
 * DELETE /api/accounts/{id}/: a soft delete. Data is kept; the header stops working, and every token issued so
 * far is revoked for good (the epoch moves on), so reactivating the account brings none of them back.
 */
export function deactivateAccount(db: Db, organizationId: string, id: string): AccountRow {
  const a = activeAccount(db, organizationId, id);
  const t = now();
  db.prepare("UPDATE accounts SET state = 'deactivated', deactivated = ?, modified = ?, token_epoch = token_epoch + 1 WHERE id = ?").run(t, t, a.id);
  return { ...a, state: 'deactivated', deactivated: t, modified: t, token_epoch: a.token_epoch + 1 };
}

/** Back to active with all its data. Its old tokens stay revoked (a new epoch): it needs fresh ones. */
export function reactivateAccount(db: Db, organizationId: string, id: string): AccountRow {
  const a = getOrgAccount(db, organizationId, id);
  if (a.state !== 'deactivated') throw new ApiError(ErrorCode.conflict, 'Only a deactivated account can be reactivated');
  const t = now();
  db.prepare("UPDATE accounts SET state = 'active', deactivated = NULL, modified = ?, token_epoch = token_epoch + 1 WHERE id = ?").run(t, a.id);
  return { ...a, state: 'active', deactivated: null, modified: t, token_epoch: a.token_epoch + 1 };
}

/** Refuses every account_access token issued to the account so far; the account itself is untouched. */
export function revokeAccountTokens(db: Db, organizationId: string, id: string): AccountRow {
  const a = getOrgAccount(db, organizationId, id);
  db.prepare('UPDATE accounts SET token_epoch = token_epoch + 1 WHERE id = ?').run(a.id);
  return { ...a, token_epoch: a.token_epoch + 1 };
}

/**
 * Permanent delete: the account and all its data go, and its email becomes reusable. Its tokens die with the row
 * (and were already refused since the deactivation this requires); a new account with the same email gets a new id.
 */
export function purgeAccount(db: Db, organizationId: string, id: string): { farms: number; parcels: number } {
  return db.transaction(() => {
    const a = getOrgAccount(db, organizationId, id);
    if (a.state !== 'deactivated') {
      throw new ApiError(ErrorCode.conflict, 'Deactivate the account before deleting it permanently');
    }
    const counts = db.prepare('SELECT COUNT(*) AS farms, COALESCE(SUM(parcel_count), 0) AS parcels FROM farms WHERE account_id = ?')
      .get(a.id) as { farms: number; parcels: number };
    db.prepare('DELETE FROM farms WHERE account_id = ?').run(a.id);
    // Crops and plants still naming the account now sit on parcels of farms unlinked earlier (orphans):
    // they belong to the orphan farm, which is kept and billed, so detach them rather than cascade them away.
    db.prepare('UPDATE crops SET account_id = NULL WHERE account_id = ? AND parcel_id IS NOT NULL').run(a.id);
    db.prepare('UPDATE plants SET account_id = NULL WHERE account_id = ? AND parcel_id IS NOT NULL').run(a.id);
    db.prepare('DELETE FROM accounts WHERE id = ?').run(a.id);
    return counts;
  })();
}

export function setParcelLimit(db: Db, id: string, hectares: number | null): AccountRow {
  if (hectares !== null && !(Number.isFinite(hectares) && hectares > 0)) {
    throw new ApiError(ErrorCode.validationFailed, 'The parcel limit must be a positive number of hectares');
  }
  const a = getAccountRow(db, id);
  if (!a) throw accountNotFound();
  db.prepare('UPDATE accounts SET max_parcel_hectares = ?, modified = ? WHERE id = ?').run(hectares, now(), id);
  return { ...a, max_parcel_hectares: hectares };
}

/** A new auth_id invalidates every embedded_url handed out before. */
export function rotateAuthId(db: Db, organizationId: string, id: string): AccountRow {
  const a = getOrgAccount(db, organizationId, id);
  const authId = newAuthId();
  db.prepare('UPDATE accounts SET auth_id = ?, modified = ? WHERE id = ?').run(authId, now(), a.id);
  return { ...a, auth_id: authId };
}

export function accountByAuthId(db: Db, authId: string): AccountRow | undefined {
  const a = db.prepare('SELECT * FROM accounts WHERE auth_id = ?').get(authId) as AccountRow | undefined;
  return a && a.state === 'active' ? a : undefined;
}
