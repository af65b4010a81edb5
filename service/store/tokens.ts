import { randomBytes } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Db } from './db.ts';

export const ACCESS_TOKEN_TTL_SECONDS = 3 * 60 * 60;

/** The HMAC secret lives in the database so tokens survive restarts; JWT_SECRET overrides it. */
export function jwtSecret(db: Db, env: NodeJS.ProcessEnv = process.env): Uint8Array {
  if (env.JWT_SECRET) return new TextEncoder().encode(env.JWT_SECRET);
  const row = db.prepare("SELECT value FROM settings WHERE key = 'jwt_secret'").get() as { value: string } | undefined;
  if (row) return Buffer.from(row.value, 'base64url');
  const secret = randomBytes(32);
  db.prepare("INSERT OR IGNORE INTO settings (key, value) VALUES ('jwt_secret', ?)").run(secret.toString('base64url'));
  const again = db.prepare("SELECT value FROM settings WHERE key = 'jwt_secret'").get() as { value: string };
  return Buffer.from(again.value, 'base64url');
}

export async function signAccountAccess(
  secret: Uint8Array,
  accountId: string,
  organizationId: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<{ token: string; expiresAt: string }> {
  const exp = nowSeconds + ACCESS_TOKEN_TTL_SECONDS;
  const token = await new SignJWT({ org: organizationId, typ: 'account_access' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(accountId)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(exp)
    .sign(secret);
  return { token, expiresAt: new Date(exp * 1000).toISOString() };
}

/** The account id a valid token names, or null: expired, malformed, forged or of another algorithm. */
export async function verifyAccountAccess(secret: Uint8Array, token: string): Promise<{ accountId: string; organizationId: string } | null> {
  try {
    const { payload } = await jwtVerify(token, secret, { algorithms: ['HS256'], requiredClaims: ['exp', 'iat', 'sub'] });
    if (payload.typ !== 'account_access' || typeof payload.org !== 'string' || typeof payload.sub !== 'string') return null;
    return { accountId: payload.sub, organizationId: payload.org };
  } catch {
    return null;
  }
}

export const looksLikeJwt = (value: string): boolean => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(value);
