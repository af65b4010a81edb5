import type { FastifyRequest } from 'fastify';
import type { Store } from './store/store.ts';
import { ApiError, accountNotFound, invalidToken } from './errors.ts';
import { ErrorCode } from '../core/errors.ts';
import { looksLikeJwt, verifyAccountAccess } from './store/tokens.ts';
import type { Scope } from './store/scope.ts';

const header = (req: FastifyRequest, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * Resolves the caller. The two spec messages are exact: 'Invalid token' for a bad, expired, forged or revoked
 * JWT (and for a JWT sent as x-api-key), 'Account not found' for an account that is unknown, of another
 * organization, deactivated or deleted. Another organization's account is indistinguishable from none.
 * A token is revoked when the API key that asked for it is revoked, when the account's token epoch moved on
 * (deactivated and reactivated since, or revoke-tokens), or when its signing key was deleted (store/tokens.ts, Store.signingKeys).
 */
export async function authenticate(req: FastifyRequest, store: Store, accountHeader: string): Promise<Scope> {
  const authorization = header(req, 'authorization');
  const apiKey = header(req, 'x-api-key');
  if (authorization !== undefined && apiKey !== undefined) {
    throw new ApiError(ErrorCode.validationFailed, 'Send either x-api-key or Authorization: Bearer, not both');
  }
  if (authorization !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) throw invalidToken();
    const claims = await verifyAccountAccess(store, m[1]!);
    if (!claims) throw invalidToken();
    const account = await store.accounts.get(claims.accountId);
    if (!account || account.organization_id !== claims.organizationId || account.state !== 'active') throw accountNotFound();
    if (account.token_epoch !== claims.epoch) throw invalidToken();
    if (claims.apiKeyId !== null && !(await store.apiKeys.isActive(claims.apiKeyId, claims.organizationId))) throw invalidToken();
    const named = header(req, accountHeader);
    if (named !== undefined && named !== account.id) throw accountNotFound();
    return { organizationId: account.organization_id, accountId: account.id, via: 'bearer' };
  }
  if (apiKey !== undefined) {
    if (looksLikeJwt(apiKey.trim())) throw invalidToken();
    const key = await store.apiKeys.findActive(apiKey.trim());
    if (!key) throw new ApiError(ErrorCode.invalidApiKey, 'Invalid API key');
    const organizationId = key.organization_id;
    const named = header(req, accountHeader);
    if (named === undefined || named === '') return { organizationId, accountId: null, via: 'api_key', apiKeyId: key.id };
    const account = await store.accounts.get(named.trim());
    if (!account || account.organization_id !== organizationId || account.state !== 'active') throw accountNotFound();
    return { organizationId, accountId: account.id, via: 'api_key', apiKeyId: key.id };
  }
  throw new ApiError(ErrorCode.notAuthenticated, 'Authentication credentials were not provided: send x-api-key or Authorization: Bearer');
}

/** Organization-level operations (managing accounts, billing) need the API key itself. */
export function requireApiKey(scope: Scope, what: string): string {
  if (scope.via !== 'api_key') throw new ApiError(ErrorCode.forbidden, `${what} needs the organization's API key; an account token cannot do it`);
  return scope.organizationId;
}
