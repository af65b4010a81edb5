// Account mode's token provider address (core/accounts/token-provider.ts has the rule and the contract): a GET that
// answers the account's fresh account_access token, as JSON {"token": …} (or {"account_access": …}) or as text. The
// token must be for that account and not expired; anything else is said, and the account waits with its queue.
import { tokenUrlFor, tokenUrlProblem } from '../core/accounts/token-provider.ts';
import { CachingProvider, TokenUnavailable, tokenExpiry, tokenSubject } from './tokens.ts';
import { NetworkError, classifyTransportError } from './transport.ts';

/** A token answer is a few hundred bytes: past this it is not one, and is not read to its end. */
const MAX_ANSWER = 65_536;
const DEADLINE_MS = 15_000;

const failed = (message: string) => new TokenUnavailable(message, 'token_provider_failed');

/** The token in a provider's answer: JSON with `token` or `account_access`, a JSON string, or the text itself. */
function tokenOf(text: string): string | null {
  const t = text.trim();
  if (t.startsWith('{') || t.startsWith('"')) {
    try {
      const v = JSON.parse(t) as unknown;
      if (typeof v === 'string') return v.trim() || null;
      const o = v as { token?: unknown; account_access?: unknown } | null;
      const token = typeof o?.token === 'string' ? o.token : typeof o?.account_access === 'string' ? o.account_access : null;
      return token?.trim() || null;
    } catch {
      return null;
    }
  }
  return /^\S+$/.test(t) ? t : null;
}

/**
 * Asks the provider for `accountId`'s token. TokenUnavailable (token_provider_failed) when it answers without one,
 * with another account's or an expired one; NetworkError when it cannot be reached or answers 429/5xx (passing).
 */
export async function fetchProviderToken(template: string, accountId: string, now = Date.now()): Promise<string> {
  const problem = tokenUrlProblem(template);
  if (problem) throw failed(problem);
  const signal = AbortSignal.timeout(DEADLINE_MS);
  // undici's index, loaded only for a token (platform/node/undici.ts).
  const { request } = await import('undici');
  let status: number;
  let text = '';
  try {
    const res = await request(tokenUrlFor(template, accountId), {
      method: 'GET', signal, headersTimeout: DEADLINE_MS, bodyTimeout: DEADLINE_MS,
      headers: { accept: 'application/json, text/plain;q=0.9', 'furrow-account': accountId },
    });
    status = res.statusCode;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      text += chunk.toString('utf8');
      if (text.length > MAX_ANSWER) {
        res.body.destroy();
        throw failed(`The token provider's answer passed ${MAX_ANSWER} bytes: it is not a token`);
      }
    }
  } catch (err) {
    if (err instanceof TokenUnavailable) throw err;
    const c = classifyTransportError(err);
    const reason = signal.aborted ? `no answer within ${DEADLINE_MS / 1000} s` : c.reason;
    throw new NetworkError(`token provider: ${reason}`, { ...c, reason, cause: err });
  }
  if (status === 429 || status >= 500) throw new NetworkError(`token provider: HTTP ${status}`, { sent: false, reason: `the token provider answered HTTP ${status}` });
  if (status >= 300 && status < 400) throw failed(`The token provider redirected (HTTP ${status}): give the address it redirects to`);
  // Its status only, never its body: the address is a page's to set, and what it answers would reach the page (a
  // loopback or intranet server's error page read through the app).
  if (status !== 200) throw failed(`The token provider refused (HTTP ${status})`);
  const token = tokenOf(text);
  if (!token) throw failed('The token provider answered without a token (expected {"token": "…"} or the token as text)');
  const sub = tokenSubject(token);
  if (sub === null) throw failed('The token provider gave something that is not an account token');
  if (sub !== accountId) throw failed(`The token provider gave a token for another account (${sub.length > 100 ? `${sub.slice(0, 99)}…` : sub}): it must answer for ${accountId}`);
  const exp = tokenExpiry(token);
  if (exp !== null && exp * 1000 <= now) throw failed('The token provider gave an expired token');
  return token;
}

/** Tokens from the provider address, fetched shortly before the one held expires and when the service refuses it. */
export class UrlTokenProvider extends CachingProvider {
  readonly refreshable = true;
  constructor(private readonly template: string, initial?: Record<string, string>) {
    super(initial);
  }
  protected fetch(accountId: string): Promise<string> {
    return fetchProviderToken(this.template, accountId);
  }
}
