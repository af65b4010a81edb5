import type { Db } from './db.ts';
import { now, uuid } from '../clock.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import { accountNotFound } from '../../errors.ts';
import {
  accountEmail, checkParcelLimit, emailTaken, newAuthId, notDeactivated, parcelLimit, purgeNeedsDeactivation, type AccountRow,
} from '../accounts.ts';

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

/** The account's largest parcel in hectares; 0 for an unknown account (nothing fits). */
export function limitFor(db: Db, accountId: string): number {
  const a = getAccountRow(db, accountId);
  return a ? parcelLimit(a) : 0;
}

export function createAccount(db: Db, organizationId: string, email: string): AccountRow {
  const { email: trimmed, norm } = accountEmail(email);
  return db.transaction(() => {
    const existing = db.prepare('SELECT state FROM accounts WHERE organization_id = ? AND email_norm = ?').get(organizationId, norm) as
      | { state: string }
      | undefined;
    if (existing) throw emailTaken(existing.state);
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
  if (a.state !== 'deactivated') throw notDeactivated();
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
    if (a.state !== 'deactivated') throw purgeNeedsDeactivation();
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
  checkParcelLimit(hectares);
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
