// Accounts on PostgreSQL: the SQLite store's service/store/sqlite/accounts.ts with the same answers, row for row
// (including what each method returns: the row as it was read, with only the changed columns replaced). The rules
// that are not SQL (e-mail, limits, auth_id, the errors) are shared: ../accounts.ts.
//
// SQLite's single writer made each read-then-write safe; here two service processes may act on one account at once,
// so every such method locks the account row (SELECT … FOR UPDATE) in its transaction, and the e-mail's uniqueness
// is the (organization_id, email_norm) constraint's.
import type pg from 'pg';
import { now, uuid } from '../clock.ts';
import { accountNotFound } from '../../errors.ts';
import {
  accountEmail, checkParcelLimit, emailTaken, newAuthId, notDeactivated, parcelLimit, purgeNeedsDeactivation, type AccountRow,
} from '../accounts.ts';
import type { AccountStore } from '../store.ts';
import { hasNul, inTransaction } from './tx.ts';

// What SQLite's SELECT * returns, in its order: email_norm included (rows read back carry it, new ones do not), not
// a column only this schema has. Listed, so that a later migration adding one changes no answer.
const COLUMNS = 'id, organization_id, account_email, email_norm, state, auth_id, max_parcel_hectares, created, modified, deactivated, token_epoch';

type Queryable = pg.Pool | pg.ClientBase;

/** The organization's account in any state, locked for the rest of the transaction; 403 account_not_found otherwise. */
async function lockAccount(c: pg.ClientBase, organizationId: string, id: string): Promise<AccountRow> {
  if (hasNul(id)) throw accountNotFound();
  const a = (await c.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE organization_id = $1 AND id = $2 FOR UPDATE`, [organizationId, id])).rows[0];
  if (!a) throw accountNotFound();
  return a;
}

async function orgAccount(db: Queryable, organizationId: string, id: string): Promise<AccountRow> {
  if (hasNul(id)) throw accountNotFound();
  const a = (await db.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE organization_id = $1 AND id = $2`, [organizationId, id])).rows[0];
  if (!a) throw accountNotFound();
  return a;
}

async function accountRow(db: Queryable, id: string): Promise<AccountRow | undefined> {
  if (hasNul(id)) return undefined;
  return (await db.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE id = $1`, [id])).rows[0];
}

/**
 * A new account, or 409 email_taken naming the state of the account that has the e-mail. ON CONFLICT DO NOTHING
 * waits for a concurrent insert of the same e-mail to commit and then inserts nothing, so of two processes creating
 * it at once exactly one succeeds; the loser reads the winner's state in a later statement, which sees the commit.
 */
async function createAccount(pool: pg.Pool, organizationId: string, email: string): Promise<AccountRow> {
  // An e-mail with U+0000 passes SQLite's checks and is stored there; PostgreSQL cannot store it, so it is refused as
  // an invalid e-mail by the shared check, each NUL shown as ' @ ': whatever surrounds it, the '@' and a space
  // survive the trim (or the '@' alone does), which no valid address has.
  if (hasNul(email)) accountEmail(email.replaceAll('\u0000', ' @ '));
  const { email: trimmed, norm } = accountEmail(email);
  // A few rounds at most: the holder of the e-mail can be purged between the INSERT and the read of its state.
  for (let round = 0; ; round++) {
    const t = now();
    const row: AccountRow = {
      id: `acc-${uuid()}`, organization_id: organizationId, account_email: trimmed, state: 'active',
      auth_id: newAuthId(), max_parcel_hectares: null, created: t, modified: t, deactivated: null, token_epoch: 0,
    };
    const inserted = await pool.query(
      `INSERT INTO accounts (id, organization_id, account_email, email_norm, state, auth_id, max_parcel_hectares, created, modified)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (organization_id, email_norm) DO NOTHING`,
      [row.id, organizationId, trimmed, norm, row.state, row.auth_id, row.max_parcel_hectares, t, t],
    );
    if (inserted.rowCount === 1) return row;
    const existing = (await pool.query<{ state: string }>('SELECT state FROM accounts WHERE organization_id = $1 AND email_norm = $2', [organizationId, norm])).rows[0];
    if (existing || round >= 2) throw emailTaken(existing?.state ?? 'active');
  }
}

/**
 * Permanent delete of a deactivated account and its farms (their parcels, crops and plants go by cascade). The
 * account row is locked first: a farm being created for it in another process holds that row too (it checks the
 * account is active), so no farm can slip in between the count and the deletes.
 */
async function purgeAccount(pool: pg.Pool, organizationId: string, id: string): Promise<{ farms: number; parcels: number }> {
  return inTransaction(pool, async (c) => {
    const a = await lockAccount(c, organizationId, id);
    if (a.state !== 'deactivated') throw purgeNeedsDeactivation();
    const counts = (await c.query<{ farms: number; parcels: number }>(
      'SELECT COUNT(*) AS farms, COALESCE(SUM(parcel_count), 0) AS parcels FROM farms WHERE organization_id = $1 AND account_id = $2',
      [organizationId, a.id])).rows[0]!;
    await c.query('DELETE FROM farms WHERE organization_id = $1 AND account_id = $2', [organizationId, a.id]);
    // Crops and plants still naming the account now sit on parcels of farms unlinked earlier (orphans): they belong
    // to the orphan farm, which is kept and billed, so detach them rather than let the account's delete cascade them.
    await c.query('UPDATE crops SET account_id = NULL WHERE organization_id = $1 AND account_id = $2 AND parcel_id IS NOT NULL', [organizationId, a.id]);
    await c.query('UPDATE plants SET account_id = NULL WHERE organization_id = $1 AND account_id = $2 AND parcel_id IS NOT NULL', [organizationId, a.id]);
    await c.query('DELETE FROM accounts WHERE organization_id = $1 AND id = $2', [organizationId, a.id]);
    return { farms: counts.farms, parcels: counts.parcels };
  });
}

export function pgAccounts(pool: pg.Pool): AccountStore {
  return {
    get: (id) => accountRow(pool, id),
    getInOrganization: (organizationId, id) => orgAccount(pool, organizationId, id),
    async getActive(organizationId, id) {
      const a = await orgAccount(pool, organizationId, id);
      if (a.state !== 'active') throw accountNotFound();
      return a;
    },
    async byAuthId(authId) {
      if (hasNul(authId)) return undefined;
      const a = (await pool.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE auth_id = $1`, [authId])).rows[0];
      return a && a.state === 'active' ? a : undefined;
    },
    create: (organizationId, email) => createAccount(pool, organizationId, email),
    async list(organizationId) {
      // COLLATE "C": SQLite's BINARY order for the tie-break, whatever the database's collation.
      return (await pool.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE organization_id = $1 ORDER BY created, id COLLATE "C"`, [organizationId])).rows;
    },
    // Soft delete: every token issued so far is refused for good (the epoch moves on), reactivation brings none back.
    deactivate: (organizationId, id) => inTransaction(pool, async (c) => {
      const a = await lockAccount(c, organizationId, id);
      if (a.state !== 'active') throw accountNotFound();
      const t = now();
      await c.query("UPDATE accounts SET state = 'deactivated', deactivated = $1, modified = $1, token_epoch = token_epoch + 1 WHERE organization_id = $2 AND id = $3",
        [t, organizationId, a.id]);
      return { ...a, state: 'deactivated', deactivated: t, modified: t, token_epoch: a.token_epoch + 1 };
    }),
    reactivate: (organizationId, id) => inTransaction(pool, async (c) => {
      const a = await lockAccount(c, organizationId, id);
      if (a.state !== 'deactivated') throw notDeactivated();
      const t = now();
      await c.query("UPDATE accounts SET state = 'active', deactivated = NULL, modified = $1, token_epoch = token_epoch + 1 WHERE organization_id = $2 AND id = $3",
        [t, organizationId, a.id]);
      return { ...a, state: 'active', deactivated: null, modified: t, token_epoch: a.token_epoch + 1 };
    }),
    // The lock makes two concurrent revocations two epochs, each answer naming its own, as SQLite's single writer did.
    revokeTokens: (organizationId, id) => inTransaction(pool, async (c) => {
      const a = await lockAccount(c, organizationId, id);
      await c.query('UPDATE accounts SET token_epoch = token_epoch + 1 WHERE organization_id = $1 AND id = $2', [organizationId, a.id]);
      return { ...a, token_epoch: a.token_epoch + 1 };
    }),
    purge: (organizationId, id) => purgeAccount(pool, organizationId, id),
    async setParcelLimit(id, hectares) {
      checkParcelLimit(hectares);
      // The interface names the account alone (the operator's CLI): the row is locked by its id.
      if (hasNul(id)) throw accountNotFound();
      return inTransaction(pool, async (c) => {
        const a = (await c.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE id = $1 FOR UPDATE`, [id])).rows[0];
        if (!a) throw accountNotFound();
        await c.query('UPDATE accounts SET max_parcel_hectares = $1, modified = $2 WHERE organization_id = $3 AND id = $4', [hectares, now(), a.organization_id, id]);
        return { ...a, max_parcel_hectares: hectares };
      });
    },
    // A new auth_id: every embedded_url handed out before stops working.
    rotateAuthId: (organizationId, id) => inTransaction(pool, async (c) => {
      const a = await lockAccount(c, organizationId, id);
      const authId = newAuthId();
      await c.query('UPDATE accounts SET auth_id = $1, modified = $2 WHERE organization_id = $3 AND id = $4', [authId, now(), organizationId, a.id]);
      return { ...a, auth_id: authId };
    }),
    async parcelLimit(id) {
      const a = await accountRow(pool, id);
      return a ? parcelLimit(a) : 0;
    },
  };
}
