// The organizations' signing keys on PostgreSQL (the tokens they sign: ../tokens.ts), as
// service/store/sqlite/tokens.ts keeps them. SQLite's IMMEDIATE transactions made "create the current key on first
// use" and "rotate" one writer at a time; here the organization's row is locked (FOR UPDATE) first, so two service
// processes never give an organization two current keys.
import type pg from 'pg';
import { now } from '../clock.ts';
import { newSigningKey, retiredKeysExpireBefore, verifiesUntil, type SigningKey, type SigningKeyInfo } from '../tokens.ts';
import type { SigningKeyStore } from '../store.ts';
import { hasNul, inTransaction } from './tx.ts';

// SQLite's SELECT *: not seq, which stands in for its rowid.
const COLUMNS = 'kid, organization_id, secret, created, retired';
const CURRENT = `SELECT ${COLUMNS} FROM signing_keys WHERE organization_id = $1 AND retired IS NULL ORDER BY created DESC, seq DESC LIMIT 1`;

async function insertKey(c: pg.ClientBase, organizationId: string): Promise<SigningKey> {
  const row: SigningKey = { ...newSigningKey(), organization_id: organizationId, created: now(), retired: null };
  await c.query('INSERT INTO signing_keys (kid, organization_id, secret, created) VALUES ($1, $2, $3, $4)', [row.kid, organizationId, row.secret, row.created]);
  return row;
}

/** Serializes an organization's key changes across processes; a missing organization fails the insert's foreign key, as in SQLite. */
async function lockOrganization(c: pg.ClientBase, organizationId: string): Promise<void> {
  await c.query('SELECT 1 FROM organizations WHERE id = $1 FOR UPDATE', [organizationId]);
}

export function pgSigningKeys(pool: pg.Pool): SigningKeyStore {
  return {
    async current(organizationId) {
      // Every token signed reads this: the key is found without a transaction or a lock but on first use.
      const found = (await pool.query<SigningKey>(CURRENT, [organizationId])).rows[0];
      if (found) return found;
      return inTransaction(pool, async (c) => {
        await lockOrganization(c, organizationId);
        // Under the lock: another process may have created it since the read above.
        return (await c.query<SigningKey>(CURRENT, [organizationId])).rows[0] ?? insertKey(c, organizationId);
      });
    },
    async get(kid) {
      // The kid comes from a token's header, before its signature is checked: anything at all.
      if (hasNul(kid)) return undefined;
      return (await pool.query<SigningKey>(`SELECT ${COLUMNS} FROM signing_keys WHERE kid = $1`, [kid])).rows[0];
    },
    async list(organizationId) {
      const rows = (await pool.query<Pick<SigningKey, 'kid' | 'created' | 'retired'>>(
        'SELECT kid, created, retired FROM signing_keys WHERE organization_id = $1 ORDER BY created DESC, seq DESC', [organizationId])).rows;
      return rows.map((r): SigningKeyInfo => ({ ...r, verifies_until: verifiesUntil(r.retired) }));
    },
    // Without revoke the previous key retires (it verifies its tokens until they expire) and keys with no unexpired
    // token left are dropped; with revoke every earlier key, and so every token they signed, is gone at once.
    rotate: (organizationId, opts = {}) => inTransaction(pool, async (c) => {
      await lockOrganization(c, organizationId);
      const t = now();
      let revoked = 0;
      if (opts.revoke) revoked = (await c.query('DELETE FROM signing_keys WHERE organization_id = $1', [organizationId])).rowCount ?? 0;
      else {
        await c.query('UPDATE signing_keys SET retired = $1 WHERE organization_id = $2 AND retired IS NULL', [t, organizationId]);
        await c.query('DELETE FROM signing_keys WHERE organization_id = $1 AND retired < $2', [organizationId, retiredKeysExpireBefore()]);
      }
      return { kid: (await insertKey(c, organizationId)).kid, revoked_keys: revoked };
    }),
  };
}
