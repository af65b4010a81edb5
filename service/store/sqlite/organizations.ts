import type { Db } from './db.ts';
import { now, uuid } from '../clock.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import {
  hashApiKey, newApiKey, noActiveKey, organizationName, organizationNotFound, type ActiveApiKey, type ApiKeyInfo, type Organization,
} from '../organizations.ts';

export function createOrganization(db: Db, name: string): { organization_id: string; api_key: string } {
  const trimmed = organizationName(name);
  const id = `org-${uuid()}`;
  return db.transaction(() => {
    db.prepare('INSERT INTO organizations (id, name, created) VALUES (?, ?, ?)').run(id, trimmed, now());
    const { api_key } = createApiKey(db, id, 'initial');
    return { organization_id: id, api_key };
  })();
}

export function getOrganization(db: Db, id: string): Organization | undefined {
  return db.prepare('SELECT id, name, created FROM organizations WHERE id = ?').get(id) as Organization | undefined;
}

export function findOrganizationByName(db: Db, name: string): { id: string; name: string } | undefined {
  return db.prepare('SELECT id, name FROM organizations WHERE name = ? ORDER BY created LIMIT 1').get(name) as
    | { id: string; name: string }
    | undefined;
}

export function createApiKey(db: Db, organizationId: string, label = ''): { api_key: string; prefix: string } {
  if (!getOrganization(db, organizationId)) throw organizationNotFound();
  const { api_key, prefix, hash } = newApiKey();
  db.prepare('INSERT INTO api_keys (organization_id, prefix, hash, label, created) VALUES (?, ?, ?, ?, ?)').run(
    organizationId, prefix, hash, label, now(),
  );
  return { api_key, prefix };
}

export function listApiKeys(db: Db, organizationId: string): ApiKeyInfo[] {
  return db.prepare('SELECT prefix, label, created, revoked FROM api_keys WHERE organization_id = ? ORDER BY created, id')
    .all(organizationId) as ApiKeyInfo[];
}

export function revokeApiKey(db: Db, organizationId: string, prefix: string): void {
  const r = db.prepare('UPDATE api_keys SET revoked = ? WHERE organization_id = ? AND prefix = ? AND revoked IS NULL')
    .run(now(), organizationId, prefix);
  if (r.changes === 0) throw noActiveKey(prefix);
}

/** The key's row id and organization, or undefined for an unknown or revoked key. */
export function activeApiKey(db: Db, apiKey: string): ActiveApiKey | undefined {
  return cachedStatement(db, 'SELECT id, organization_id FROM api_keys WHERE hash = ? AND revoked IS NULL').get(hashApiKey(apiKey)) as
    | ActiveApiKey
    | undefined;
}

/** Whether the API key with this row id (the `key` claim of an account token) is the organization's and not revoked. */
export function apiKeyIsActive(db: Db, id: number, organizationId: string): boolean {
  return cachedStatement(db, 'SELECT 1 FROM api_keys WHERE id = ? AND organization_id = ? AND revoked IS NULL').get(id, organizationId) !== undefined;
}
