// Why an account is blocked — the engine cannot go on for it without the user: a code (core/accounts/blocked.ts) and
// the reason in words, both kept in the mirror (accounts.blocked, accounts.blocked_code). What the user can do about
// it is said by whoever shows it: the CLI (cli/way-out.ts), the app (renderer/blocked-words.ts).

import type { BlockedCode } from '../core/accounts/blocked.ts';
import { codeOf, isAccountNotFound, isInvalidToken, saidMessage, type HttpResponse } from './answers.ts';

/** Why an account stopped: its queue is kept, nothing is dropped. */
export class AccountBlocked extends Error {
  constructor(readonly reason: string, readonly code: BlockedCode) {
    super(reason);
    this.name = 'AccountBlocked';
  }
}

/** The block a 401 or a 403 stands for, or null for any other answer. The client has already refreshed a token once. */
export function blockedBy(res: HttpResponse): AccountBlocked | null {
  if (res.status === 403 && isAccountNotFound(res.body)) return new AccountBlocked('Account not found', 'account_not_found');
  if (res.status !== 401) return null;
  if (isInvalidToken(res.body)) return new AccountBlocked('Invalid token (no fresh one could be had)', 'invalid_token');
  if (codeOf(res.body) === 'invalid_api_key') return new AccountBlocked('Invalid API key', 'invalid_api_key');
  // The service's own words only (sync/answers.ts saidMessage): the reason is shown to the page.
  return new AccountBlocked(saidMessage(res.body) ?? 'HTTP 401', 'refused');
}
