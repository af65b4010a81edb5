import { ApiError } from '../errors.ts';
import { ErrorCode } from '../../core/errors.ts';

/**
 * Who is asking. An API key without the account header acts for the whole organization (its active
 * accounts); the header or a bearer token narrows it to one account. Every store query filters through this.
 */
export interface Scope {
  organizationId: string;
  accountId: string | null;
  via: 'api_key' | 'bearer';
  /** With via 'api_key': the key's row id, bound into the account tokens it asks for. */
  apiKeyId?: number;
}

export function requireAccount(s: Scope, what: string): string {
  if (!s.accountId) {
    throw new ApiError(ErrorCode.accountRequired, `${what} needs an account: send the Service-Account header with the API key, or use the account's bearer token`);
  }
  return s.accountId;
}
