import { createHash, randomBytes } from 'node:crypto';
import type { Db } from './db.ts';
import { now, uuid } from '../clock.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import { ApiError } from '../../errors.ts';
import { ErrorCode } from '../../../core/errors.ts';

// API keys are high-entropy random strings, so a plain SHA-256 is the right hash: it must be fast to
// check on every request, and brute force is hopeless against 192 random bits.
const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

export interface ApiKeyInfo { prefix: string; label: string; created: string; revoked: string | null }

export function createOrganization(db: Db, name: string): { organization_id: string; api_key: string } {
  const trimmed = name.trim();
  if (!trimmed) throw new ApiError(ErrorCode.validationFailed, 'The organization needs a name');
  const id = `org-${uuid()}`;
  return db.transaction(() => {
    db.prepare('INSERT INTO organizations (id, name, created) VALUES (?, ?, ?)').run(id, trimmed, now());
    const { api_key } = createApiKey(db, id, 'initial');
    return { organization_id: id, api_key };
  })();
}

export function getOrganization(db: Db, id: string): { id: string; name: string; created: string } | undefined {
  return db.prepare('SELECT id, name, created FROM organizations WHERE id = ?').get(id) as
    | { id: string; name: string; created: string }
    | undefined;
}

export function findOrganizationByName(db: Db, name: string): { id: string; name: string } | undefined {
  return db.prepare('SELECT id, name FROM organizations WHERE name = ? ORDER BY created LIMIT 1').get(name) as
    | { id: string; name: string }
    | undefined;
}

export function createApiKey(db: Db, organizationId: string, label = ''): { api_key: string; prefix: string } {
  if (!getOrganization(db, organizationId)) throw new ApiError(ErrorCode.notFound, 'Organization not found');
  const prefix = `fk_${randomBytes(4).toString('hex')}`;
  const apiKey = `${prefix}_${randomBytes(24).toString('base64url')}`;
  db.prepare('INSERT INTO api_keys (organization_id, prefix, hash, label, created) VALUES (?, ?, ?, ?, ?)').run(
    organizationId, prefix, hashKey(apiKey), label, now(),
  );
  return { api_key: apiKey, prefix };
}

export function listApiKeys(db: Db, organizationId: string): ApiKeyInfo[] {
  return db.prepare('SELECT prefix, label, created, revoked FROM api_keys WHERE organization_id = ? ORDER BY created, id')
    .all(organizationId) as ApiKeyInfo[];
}

export function revokeApiKey(db: Db, organizationId: string, prefix: string): void {
  const r = db.prepare('UPDATE api_keys SET revoked = ? WHERE organization_id = ? AND prefix = ? AND revoked IS NULL')
    .run(now(), organizationId, prefix);
  if (r.changes === 0) throw new ApiError(ErrorCode.notFound, `No active API key with prefix ${prefix}`);
}

/** The key's row id and organization, or undefined for an unknown or revoked key. */
export function activeApiKey(db: Db, apiKey: string): { id: number; organization_id: string } | undefined {
  return cachedStatement(db, 'SELECT id, organization_id FROM api_keys WHERE hash = ? AND revoked IS NULL').get(hashKey(apiKey)) as
    | { id: number; organization_id: string }
    | undefined;
}

/** Whether the API key with this row id (the `key` claim of an account token) is the organization's and not revoked. */
export function apiKeyIsActive(db: Db, id: number, organizationId: string): boolean {
  return cachedStatement(db, 'SELECT 1 FROM api_keys WHERE id = ? AND organization_id = ? AND revoked IS NULL').get(id, organizationId) !== undefined;
}
