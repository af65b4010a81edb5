// account_access tokens: HS256 JWTs signed with the organization's own secret (named by `kid`), bound to the
// account's token epoch and to the API key that asked for them. See docs/api.md, "Account tokens".
import { randomBytes } from 'node:crypto';
import { SignJWT, decodeProtectedHeader, jwtVerify } from 'jose';
import type { Db } from './db.ts';
import { now } from '../clock.ts';
import { cachedStatement } from '../../../platform/node/statements.ts';
import { accountNotFound } from '../../errors.ts';

export const ACCESS_TOKEN_TTL_SECONDS = 3 * 60 * 60;
/** How far in the future a token's iat may be (clock skew between service instances). */
export const MAX_IAT_SKEW_SECONDS = 60;
export const TOKEN_TYPE = 'account_access';

interface SigningKeyRow { kid: string; organization_id: string; secret: Buffer; created: string; retired: string | null }

const nowSeconds = () => Math.floor(Date.now() / 1000);
const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

function insertKey(db: Db, organizationId: string): SigningKeyRow {
  const row: SigningKeyRow = { kid: `sk_${randomBytes(12).toString('base64url')}`, organization_id: organizationId, secret: randomBytes(32), created: now(), retired: null };
  db.prepare('INSERT INTO signing_keys (kid, organization_id, secret, created) VALUES (@kid, @organization_id, @secret, @created)').run(row);
  return row;
}

/** The key that signs the organization's new tokens, created on first use. */
export function currentSigningKey(db: Db, organizationId: string): SigningKeyRow {
  return db.transaction(() => {
    const row = cachedStatement(db, 'SELECT * FROM signing_keys WHERE organization_id = ? AND retired IS NULL ORDER BY created DESC LIMIT 1').get(organizationId) as SigningKeyRow | undefined;
    return row ?? insertKey(db, organizationId);
  }).immediate();
}

export interface SigningKeyInfo { kid: string; created: string; retired: string | null; verifies_until: string | null }

/** The organization's keys, newest first; a retired key verifies the tokens it signed until `verifies_until`. */
export function listSigningKeys(db: Db, organizationId: string): SigningKeyInfo[] {
  const rows = db.prepare('SELECT kid, created, retired FROM signing_keys WHERE organization_id = ? ORDER BY created DESC, rowid DESC').all(organizationId) as
    Array<Pick<SigningKeyRow, 'kid' | 'created' | 'retired'>>;
  return rows.map((r) => ({ ...r, verifies_until: r.retired ? new Date(Date.parse(r.retired) + ACCESS_TOKEN_TTL_SECONDS * 1000).toISOString() : null }));
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
      const expired = new Date(Date.now() - (ACCESS_TOKEN_TTL_SECONDS + MAX_IAT_SKEW_SECONDS) * 1000).toISOString();
      db.prepare('DELETE FROM signing_keys WHERE organization_id = ? AND retired < ?').run(organizationId, expired);
    }
    return { kid: insertKey(db, organizationId).kid, revoked_keys: revoked };
  }).immediate();
}

/**
 * Signs a 3-hour account_access token for an account of any state (callers check it is active). `apiKeyId` is
 * the API key the request came with; the token is refused once that key is revoked. Tokens the operator mints
 * with the CLI (create-account, token, demo) have no key: revoke-tokens and the account's epoch revoke them.
 */
export async function signAccountAccess(
  db: Db, accountId: string, opts: { apiKeyId?: number | null; nowSeconds?: number } = {},
): Promise<{ token: string; expiresAt: string }> {
  const account = cachedStatement(db, 'SELECT organization_id, token_epoch FROM accounts WHERE id = ?').get(accountId) as
    | { organization_id: string; token_epoch: number }
    | undefined;
  if (!account) throw accountNotFound();
  const key = currentSigningKey(db, account.organization_id);
  const iat = opts.nowSeconds ?? nowSeconds();
  const exp = iat + ACCESS_TOKEN_TTL_SECONDS;
  const claims: Record<string, unknown> = { org: account.organization_id, typ: TOKEN_TYPE, ep: account.token_epoch };
  if (opts.apiKeyId != null) claims.key = opts.apiKeyId;
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: key.kid })
    .setSubject(accountId)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(key.secret);
  return { token, expiresAt: new Date(exp * 1000).toISOString() };
}

export interface AccountAccessClaims {
  accountId: string;
  organizationId: string;
  /** The account's token epoch when the token was signed. */
  epoch: number;
  /** The API key that asked for the token, or null for one the operator minted. */
  apiKeyId: number | null;
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * The claims of a token this service signed and has not stopped trusting, or null: malformed; an algorithm other
 * than HS256; an unknown kid (another service, a deleted key, a token from before per-organization keys); a bad
 * signature; expired; a lifetime over 3 hours; iat more than 60 s ahead; a missing claim or a wrong typ; an org
 * claim other than the key's organization; signed by a retired key after it was retired. The account, its epoch
 * and the API key are checked by the caller (auth.ts) against the database.
 */
export async function verifyAccountAccess(db: Db, token: string, at: number = nowSeconds()): Promise<AccountAccessClaims | null> {
  try {
    const header = decodeProtectedHeader(token);
    if (header.alg !== 'HS256' || typeof header.kid !== 'string' || (header.typ !== undefined && header.typ !== 'JWT')) return null;
    const key = cachedStatement(db, 'SELECT * FROM signing_keys WHERE kid = ?').get(header.kid) as SigningKeyRow | undefined;
    if (!key) return null;
    const { payload } = await jwtVerify(token, key.secret, {
      algorithms: ['HS256'], requiredClaims: ['exp', 'iat', 'sub', 'org', 'typ', 'ep'], currentDate: new Date(at * 1000),
    });
    const { sub, org, typ, ep, iat, exp } = payload;
    if (typ !== TOKEN_TYPE || org !== key.organization_id || typeof sub !== 'string' || !isCount(ep) || !isCount(iat) || !isCount(exp)) return null;
    if (exp <= iat || exp - iat > ACCESS_TOKEN_TTL_SECONDS || iat > at + MAX_IAT_SKEW_SECONDS) return null;
    if (key.retired && iat > seconds(key.retired)) return null;
    const apiKey = payload.key;
    if (apiKey !== undefined && !(isCount(apiKey) && apiKey > 0)) return null;
    return { accountId: sub, organizationId: org, epoch: ep, apiKeyId: apiKey ?? null };
  } catch {
    return null;
  }
}

export const looksLikeJwt = (value: string): boolean => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(value);
