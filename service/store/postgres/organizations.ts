// Organizations and their API keys on PostgreSQL: the SQLite store's service/store/sqlite/organizations.ts, query for
// query. The key format, its hash and the errors are shared (../organizations.ts).
import type pg from 'pg';
import { now, uuid } from '../clock.ts';
import {
  hashApiKey, newApiKey, noActiveKey, organizationName, organizationNotFound, type ActiveApiKey, type ApiKeyInfo, type Organization,
} from '../organizations.ts';
import type { ApiKeyStore, OrganizationStore } from '../store.ts';
import { hasNul, inTransaction } from './tx.ts';

/**
 * A new key for the organization, in one statement: the INSERT … SELECT finds the organization and inserts under the
 * same snapshot, so an unknown organization is a 404 (no row) rather than a foreign-key error, as in SQLite.
 */
async function insertApiKey(db: pg.ClientBase | pg.Pool, organizationId: string, label: string): Promise<{ api_key: string; prefix: string }> {
  const { api_key, prefix, hash } = newApiKey();
  const r = await db.query(
    `INSERT INTO api_keys (organization_id, prefix, hash, label, created)
      SELECT id, $2, $3, $4, $5 FROM organizations WHERE id = $1`,
    [organizationId, prefix, hash, label, now()],
  );
  if (r.rowCount === 0) throw organizationNotFound();
  return { api_key, prefix };
}

export function pgOrganizations(pool: pg.Pool): OrganizationStore {
  return {
    async create(name) {
      const trimmed = organizationName(name);
      const id = `org-${uuid()}`;
      // The organization and its first key: both or neither.
      return inTransaction(pool, async (c) => {
        await c.query('INSERT INTO organizations (id, name, created) VALUES ($1, $2, $3)', [id, trimmed, now()]);
        const { api_key } = await insertApiKey(c, id, 'initial');
        return { organization_id: id, api_key };
      });
    },
    async get(id) {
      if (hasNul(id)) return undefined;
      return (await pool.query<Organization>('SELECT id, name, created FROM organizations WHERE id = $1', [id])).rows[0];
    },
    async findByName(name) {
      if (hasNul(name)) return undefined;
      return (await pool.query<{ id: string; name: string }>('SELECT id, name FROM organizations WHERE name = $1 ORDER BY created LIMIT 1', [name])).rows[0];
    },
  };
}

export function pgApiKeys(pool: pg.Pool): ApiKeyStore {
  return {
    create: (organizationId, label = '') => insertApiKey(pool, organizationId, label),
    async list(organizationId) {
      return (await pool.query<ApiKeyInfo>(
        'SELECT prefix, label, created, revoked FROM api_keys WHERE organization_id = $1 ORDER BY created, id', [organizationId])).rows;
    },
    async revoke(organizationId, prefix) {
      if (hasNul(prefix)) throw noActiveKey(prefix);
      // One conditional UPDATE: of two processes revoking the same key, the second finds it revoked (404), as in SQLite.
      const r = await pool.query('UPDATE api_keys SET revoked = $1 WHERE organization_id = $2 AND prefix = $3 AND revoked IS NULL',
        [now(), organizationId, prefix]);
      if (r.rowCount === 0) throw noActiveKey(prefix);
    },
    async findActive(apiKey) {
      return (await pool.query<ActiveApiKey>('SELECT id, organization_id FROM api_keys WHERE hash = $1 AND revoked IS NULL', [hashApiKey(apiKey)])).rows[0];
    },
    async isActive(id, organizationId) {
      // Not a number a token could carry (a forged claim beyond int8) is simply not a key, rather than a query error.
      if (!Number.isSafeInteger(id)) return false;
      const r = await pool.query('SELECT 1 FROM api_keys WHERE id = $1 AND organization_id = $2 AND revoked IS NULL', [id, organizationId]);
      return r.rowCount !== 0;
    },
  };
}
