// Why an account is blocked — the engine cannot go on for it without the user — and what the user can do about it.
// The CLI and (later) the app show both; the code is kept in the mirror with the reason (accounts.blocked_code).

import type { AccountRow } from '../db/types.ts';
import { isAccountNotFound, isInvalidToken, type HttpResponse } from './answers.ts';

export type BlockedCode =
  /** The organization's API key is unknown or revoked (rotated). */
  | 'invalid_api_key'
  /** The account is unknown to the service, deactivated, deleted, or of another organization. */
  | 'account_not_found'
  /** The token is refused (expired, revoked) and no fresh one can be had. */
  | 'invalid_token'
  /** The token command failed or printed nothing. */
  | 'token_command_failed'
  /** The token provider address gave no token for the account (sync/token-url.ts). */
  | 'token_provider_failed'
  /** No credentials for the account in FURROW_HOME/credentials.json. */
  | 'no_credentials'
  /** Another refusal of the credentials (401/403 of another kind). */
  | 'refused';

/** Why an account stopped: its queue is kept, nothing is dropped. */
export class AccountBlocked extends Error {
  constructor(readonly reason: string, readonly code: BlockedCode) {
    super(reason);
    this.name = 'AccountBlocked';
  }
}

const codeOf = (body: unknown): unknown => (typeof body === 'object' && body !== null ? (body as { code?: unknown }).code : undefined);

/** The block a 401 or a 403 stands for, or null for any other answer. The client has already refreshed a token once. */
export function blockedBy(res: HttpResponse): AccountBlocked | null {
  if (res.status === 403 && isAccountNotFound(res.body)) return new AccountBlocked('Account not found', 'account_not_found');
  if (res.status !== 401) return null;
  if (isInvalidToken(res.body)) return new AccountBlocked('Invalid token (no fresh one could be had)', 'invalid_token');
  if (codeOf(res.body) === 'invalid_api_key') return new AccountBlocked('Invalid API key', 'invalid_api_key');
  const message = (res.body as { message?: unknown } | null)?.message;
  return new AccountBlocked(typeof message === 'string' ? message : 'HTTP 401', 'refused');
}

/** The command that connects this account again, with placeholders for what the user must supply. */
function connectAgain(a: Pick<AccountRow, 'id' | 'service_url' | 'mode'>, how: 'api_key' | 'token'): string {
  const base = `npm run -s cli -- connect --service ${a.service_url}`;
  return how === 'token' ? `${base} --token NEW_TOKEN` : `${base} --api-key NEW_KEY --account ${a.id}${a.mode === 'bearer' ? ' --bearer' : ''}`;
}

/** What the user can do to unblock the account; sync tries a blocked account again every time. */
export function wayOut(code: BlockedCode | null, a: Pick<AccountRow, 'id' | 'service_url' | 'mode'>): string {
  switch (code) {
    case 'invalid_api_key':
      return `the organization's API key was revoked or rotated: connect again with the current key (${connectAgain(a, 'api_key')}), then sync`;
    case 'account_not_found':
      return `the service does not know this account or it was deactivated: ask the organization to reactivate it (reactivate-account ${a.id}), then sync; if it was deleted, export its parcels (export FILE --account ${a.id})`;
    case 'invalid_token':
      return `the token expired or was revoked: paste a new one in the app's Accounts or set its token provider there, or connect again with a fresh token (${connectAgain(a, 'token')}), or with the organization's key and --bearer so tokens renew by themselves`;
    case 'token_command_failed':
      return 'fix the token command (it runs with FURROW_ACCOUNT set to the account id and must print a token), then sync';
    case 'token_provider_failed':
      return "fix the token provider (its address must answer GET with the account's token: {\"token\": \"…\"} or the token as text), or paste a new token in the app's Accounts, then sync"
    case 'no_credentials':
      return `its credentials are missing from this computer: connect again (${connectAgain(a, a.mode === 'bearer' ? 'token' : 'api_key')})`;
    default:
      return `check the account's credentials and connect again (${connectAgain(a, 'api_key')})`;
  }
}
