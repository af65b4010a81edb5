// Test rows for the PostgreSQL farm and parcel tests: organizations and accounts inserted with plain SQL, as schema
// 001 has them, so these tests do not depend on the accounts group of the store (written separately). Tests only.
import type { Pool } from 'pg';
import type { AccountRow } from '../accounts.ts';

export async function insertOrganization(pool: Pool, org: { id: string; name: string; created: string }): Promise<void> {
  await pool.query('INSERT INTO organizations (id, name, created) VALUES ($1, $2, $3)', [org.id, org.name, org.created]);
}

/** An account row as the SQLite store (or a test) made it: the same id, e-mail, auth_id, limit and timestamps. */
export async function insertAccount(pool: Pool, a: AccountRow): Promise<void> {
  await pool.query(`INSERT INTO accounts (id, organization_id, account_email, email_norm, state, auth_id, max_parcel_hectares, token_epoch,
      created, modified, deactivated) VALUES ($1, $2, $3, lower($3), $4, $5, $6, $7, $8, $9, $10)`,
  [a.id, a.organization_id, a.account_email, a.state, a.auth_id, a.max_parcel_hectares, a.token_epoch, a.created, a.modified, a.deactivated]);
}

/** A new active account of the organization, created at `created`. */
export async function newAccount(pool: Pool, organizationId: string, id: string, created = '2024-01-01T00:00:00.000Z'): Promise<AccountRow> {
  const a: AccountRow = {
    id, organization_id: organizationId, account_email: `${id}@example.test`, state: 'active', auth_id: `auth-${id}`,
    max_parcel_hectares: null, created, modified: created, deactivated: null, token_epoch: 0,
  };
  await insertAccount(pool, a);
  return a;
}

export async function setAccountState(pool: Pool, id: string, state: 'active' | 'deactivated', at: string): Promise<void> {
  await pool.query('UPDATE accounts SET state = $2, modified = $3, deactivated = $4 WHERE id = $1',
    [id, state, at, state === 'deactivated' ? at : null]);
}

export async function setAccountLimit(pool: Pool, id: string, hectares: number | null): Promise<void> {
  await pool.query('UPDATE accounts SET max_parcel_hectares = $2 WHERE id = $1', [id, hectares]);
}
