// account_access tokens: HS256 JWTs signed with the organization's own secret (named by `kid`), bound to the
// account's token epoch and to the API key that asked for them. See docs/api.md, "Account tokens". The JWT work is
// here, on top of any Store; the store keeps the signing keys (Store.signingKeys).
import { randomBytes } from 'node:crypto';
import { SignJWT, decodeProtectedHeader, jwtVerify } from 'jose';
import { accountNotFound } from '../errors.ts';
import type { Store } from './store.ts';
import type { SigningKey } from './rows.ts';
export type { SigningKey, SigningKeyInfo } from './rows.ts';

export const ACCESS_TOKEN_TTL_SECONDS = 3 * 60 * 60;
/** How far in the future a token's iat may be (clock skew between service instances). */
export const MAX_IAT_SKEW_SECONDS = 60;
export const TOKEN_TYPE = 'account_access';


/** A fresh signing key's id and 256-bit secret. */
export const newSigningKey = (): Pick<SigningKey, 'kid' | 'secret'> => ({ kid: `sk_${randomBytes(12).toString('base64url')}`, secret: randomBytes(32) });

/** Until when a key retired at `retired` still verifies the tokens it signed (their 3-hour lifetime). */
export const verifiesUntil = (retired: string | null): string | null =>
  retired ? new Date(Date.parse(retired) + ACCESS_TOKEN_TTL_SECONDS * 1000).toISOString() : null;

/** Retired keys retired before this (ISO time) have no unexpired token left: a rotation drops them. */
export const retiredKeysExpireBefore = (nowMs: number = Date.now()): string =>
  new Date(nowMs - (ACCESS_TOKEN_TTL_SECONDS + MAX_IAT_SKEW_SECONDS) * 1000).toISOString();

const nowSeconds = () => Math.floor(Date.now() / 1000);
const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * Signs a 3-hour account_access token for an account of any state (callers check it is active). `apiKeyId` is
 * the API key the request came with; the token is refused once that key is revoked. Tokens the operator mints
 * with the CLI (create-account, token, demo) have no key: revoke-tokens and the account's epoch revoke them.
 */
export async function signAccountAccess(
  store: Store, accountId: string, opts: { apiKeyId?: number | null; nowSeconds?: number } = {},
): Promise<{ token: string; expiresAt: string }> {
  const account = await store.accounts.get(accountId);
  if (!account) throw accountNotFound();
  const key = await store.signingKeys.current(account.organization_id);
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
 * and the API key are checked by the caller (auth.ts) against the store.
 */
export async function verifyAccountAccess(store: Store, token: string, at: number = nowSeconds()): Promise<AccountAccessClaims | null> {
  try {
    const header = decodeProtectedHeader(token);
    if (header.alg !== 'HS256' || typeof header.kid !== 'string' || (header.typ !== undefined && header.typ !== 'JWT')) return null;
    const key = await store.signingKeys.get(header.kid);
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
