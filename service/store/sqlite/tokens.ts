// The organizations' signing keys (see ../tokens.ts for the tokens they sign).
import type { Db } from './db.ts';
import { now } from '../clock.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import { newSigningKey, retiredKeysExpireBefore, verifiesUntil, type SigningKey, type SigningKeyInfo } from '../tokens.ts';

function insertKey(db: Db, organizationId: string): SigningKey {
  const row: SigningKey = { ...newSigningKey(), organization_id: organizationId, created: now(), retired: null };
  db.prepare('INSERT INTO signing_keys (kid, organization_id, secret, created) VALUES (@kid, @organization_id, @secret, @created)').run(row);
  return row;
}

/** The key that signs the organization's new tokens, created on first use. */
export function currentSigningKey(db: Db, organizationId: string): SigningKey {
  return db.transaction(() => {
    const row = cachedStatement(db, 'SELECT * FROM signing_keys WHERE organization_id = ? AND retired IS NULL ORDER BY created DESC LIMIT 1').get(organizationId) as SigningKey | undefined;
    return row ?? insertKey(db, organizationId);
  }).immediate();
}

/** The key named by a token's kid, retired or not; undefined once deleted. */
export function signingKey(db: Db, kid: string): SigningKey | undefined {
  return cachedStatement(db, 'SELECT * FROM signing_keys WHERE kid = ?').get(kid) as SigningKey | undefined;
}

/** The organization's keys, newest first; a retired key verifies the tokens it signed until `verifies_until`. */
export function listSigningKeys(db: Db, organizationId: string): SigningKeyInfo[] {
  const rows = db.prepare('SELECT kid, created, retired FROM signing_keys WHERE organization_id = ? ORDER BY created DESC, rowid DESC').all(organizationId) as
    Array<Pick<SigningKey, 'kid' | 'created' | 'retired'>>;
  return rows.map((r) => ({ ...r, verifies_until: verifiesUntil(r.retired) }));
}

/**
 * A new signing secret for the organization. Without `revoke`, the previous key stops signing but keeps
 * verifying the tokens it signed until they expire (at most 3 hours): a routine rotation logs nobody out.
 * With `revoke`, every earlier key of the organization is deleted and every account token it ever issued is
 * refused at once: the answer to a leaked secret or token. Keys whose tokens have all expired are dropped.
 */
export function rotateSigningKey(db: Db, organizationId: string, opts: { revoke?: boolean } = {}): { kid: string; revoked_keys: number } {
  return db.transaction(() => {
    const t = now();
    let revoked = 0;
    if (opts.revoke) revoked = db.prepare('DELETE FROM signing_keys WHERE organization_id = ?').run(organizationId).changes;
    else {
      db.prepare('UPDATE signing_keys SET retired = ? WHERE organization_id = ? AND retired IS NULL').run(t, organizationId);
      db.prepare('DELETE FROM signing_keys WHERE organization_id = ? AND retired < ?').run(organizationId, retiredKeysExpireBefore());
    }
    return { kid: insertKey(db, organizationId).kid, revoked_keys: revoked };
  }).immediate();
}
