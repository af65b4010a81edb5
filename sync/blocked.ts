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
  if (isInvalidToken(res.body)) {
    const clocks = clockNote(res);
    return clocks ? new AccountBlocked(`Invalid token: ${clocks}`, 'clock_skew') : new AccountBlocked('Invalid token (no fresh one could be had)', 'invalid_token');
  }
  if (codeOf(res.body) === 'invalid_api_key') return new AccountBlocked('Invalid API key', 'invalid_api_key');
  // The service's own words only (sync/answers.ts saidMessage): the reason is shown to the page.
  return new AccountBlocked(saidMessage(res.body) ?? 'HTTP 401', 'refused');
}

/** How far the clocks may disagree before a refused token is put down to them: the service takes a token issued up to 60 s ahead. */
export const CLOCK_SKEW_ALLOWED_S = 60;

const span = (s: number) => {
  const m = Math.round(Math.abs(s) / 60);
  return m >= 1 ? `${m} min` : `${Math.round(Math.abs(s))} s`;
};

/**
 * When a refused token is explained by clocks that disagree, says which and by how much, from the service's `Date`,
 * this computer's clock when the answer came, and the token's own times: issued ahead of the service's clock (its
 * issuer's clock runs ahead), or expired by the service's clock while this computer's still counts it valid. Null when
 * the clocks agree within CLOCK_SKEW_ALLOWED_S (the token was revoked, or expired for everyone).
 */
export function clockNote(res: Pick<HttpResponse, 'headers' | 'token' | 'receivedAt'>): string | null {
  const date = res.headers.date;
  const serviceMs = typeof date === 'string' ? Date.parse(date) : NaN;
  if (Number.isNaN(serviceMs) || !res.token) return null;
  const service = serviceMs / 1000;
  const local = (res.receivedAt ?? Date.now()) / 1000;
  const { iat, exp } = res.token;
  if (iat !== null && iat > service + CLOCK_SKEW_ALLOWED_S) {
    return `it was issued ${span(iat - service)} ahead of the service's clock (${date}): the clock of what issued it runs that far ahead (the service allows ${CLOCK_SKEW_ALLOWED_S} s)`;
  }
  if (exp !== null && exp <= service && exp > local) {
    return `by the service's clock (${date}) it expired ${span(service - exp)} ago; this computer's clock is ${span(service - local)} behind the service's and still counts it valid`;
  }
  return null;
}
