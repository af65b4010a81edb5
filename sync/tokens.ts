import { promisify } from 'node:util';
import type { BlockedCode } from '../core/accounts/blocked.ts';
import { saidMessage } from './answers.ts';
import { NetworkError, classifyTransportError } from './transport.ts';

// node:child_process (with net and dgram under it) loaded only when a token command runs, not in every sync's start.
const run = async (file: string, args: string[], opts: { env: NodeJS.ProcessEnv; timeout: number }): Promise<{ stdout: string }> =>
  await promisify((await import('node:child_process')).execFile)(file, args, { ...opts, encoding: 'utf8' });

/** Supplies account_access tokens; refreshes shortly before `exp` and on demand, one refresh at a time. */
export interface TokenProvider {
  readonly refreshable: boolean;
  token(accountId: string, forceRefresh?: boolean): Promise<string>;
}

/**
 * No token can be had for the account (refused by the service, the command failed, none given). The engine
 * blocks the account for this run instead of failing it: nothing was sent. The message never holds secrets.
 * A token request that failed for a passing reason (no connection, 5xx) is a NetworkError instead: retried later.
 */
export class TokenUnavailable extends Error {
  constructor(message: string, readonly code: BlockedCode) {
    super(message);
    this.name = 'TokenUnavailable';
  }
}

const REFRESH_MARGIN_S = 5 * 60;

/** A JWT's claims, unverified (the service verifies): null when it is not a JWT with a JSON object for claims. */
function claims(jwt: string): Record<string, unknown> | null {
  const part = jwt.split('.')[1];
  if (!part) return null;
  try {
    const c = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return typeof c === 'object' && c !== null ? c as Record<string, unknown> : null;
  } catch {
    return null;
  }
}

/** When a token says it was issued (its `iat`, seconds), by its issuer's clock; null when it has none. */
export function tokenIssuedAt(jwt: string): number | null {
  const iat = claims(jwt)?.iat;
  return typeof iat === 'number' ? iat : null;
}

export function tokenExpiry(jwt: string): number | null {
  const exp = claims(jwt)?.exp;
  return typeof exp === 'number' ? exp : null;
}

/** The account a token is for (its `sub`), or null when it has none. */
export function tokenSubject(jwt: string): string | null {
  const sub = claims(jwt)?.sub;
  return typeof sub === 'string' ? sub : null;
}

export abstract class CachingProvider implements TokenProvider {
  abstract readonly refreshable: boolean;
  private cache = new Map<string, string>();
  private inflight = new Map<string, Promise<string>>();
  /** Told each token fetched, so that it can be kept (its expiry shown, a restart not asking again). */
  onToken?: (accountId: string, token: string) => void;

  /** `initial`: tokens already held (from the credentials file), used until they near their expiry. */
  constructor(initial: Record<string, string> = {}) {
    for (const [a, t] of Object.entries(initial)) this.seed(a, t);
  }

  protected abstract fetch(accountId: string): Promise<string>;

  async token(accountId: string, forceRefresh = false): Promise<string> {
    const cached = this.cache.get(accountId);
    const exp = cached ? tokenExpiry(cached) : null;
    const fresh = cached && (exp === null || exp - REFRESH_MARGIN_S > Date.now() / 1000);
    if (cached && fresh && !forceRefresh) return cached;
    if (cached && !this.refreshable) return cached;
    let p = this.inflight.get(accountId);
    if (!p) {
      p = this.fetch(accountId).then((t) => { this.onToken?.(accountId, t); return t; }).finally(() => this.inflight.delete(accountId));
      this.inflight.set(accountId, p);
    }
    const t = await p;
    this.cache.set(accountId, t);
    return t;
  }

  seed(accountId: string, token: string): void {
    this.cache.set(accountId, token);
  }
}

/** A token given once (`connect --token`): it cannot be renewed; when it expires the account is blocked. */
export class StaticTokenProvider extends CachingProvider {
  readonly refreshable = false;
  constructor(private readonly tokens: Record<string, string>) {
    super(tokens);
  }
  protected async fetch(accountId: string): Promise<string> {
    const t = this.tokens[accountId];
    if (!t) throw new TokenUnavailable(`No token for ${accountId}: connect again`, 'invalid_token');
    return t;
  }
}

/** Account mode: the integrator's backend issues tokens; a configured command prints one on stdout. */
export class CommandTokenProvider extends CachingProvider {
  readonly refreshable = true;
  constructor(private readonly command: string, initial?: Record<string, string>) {
    super(initial);
  }
  protected async fetch(accountId: string): Promise<string> {
    let stdout: string;
    try {
      ({ stdout } = await run('/bin/sh', ['-c', this.command], { env: { ...process.env, FURROW_ACCOUNT: accountId }, timeout: 30_000 }));
    } catch (err) {
      // Not the error's message: it repeats the command, which may hold a key.
      const code = (err as { code?: unknown }).code;
      throw new TokenUnavailable(`The token command failed${typeof code === 'number' ? ` (exit ${code})` : ''}`, 'token_command_failed');
    }
    const token = stdout.trim().split(/\s+/).pop() ?? '';
    if (!token) throw new TokenUnavailable('The token command printed nothing', 'token_command_failed');
    return token;
  }
}

/** Organization mode: the API key asks the service's token endpoint for the account's token. */
export class ServiceTokenProvider extends CachingProvider {
  readonly refreshable = true;
  /** deadlineMs: the whole token request (it had no bound at all); 30 s by default. */
  constructor(private readonly baseUrl: string, private readonly apiKey: string, private readonly deadlineMs = 30_000) {
    super();
  }
  protected async fetch(accountId: string): Promise<string> {
    const url = `${this.baseUrl.replace(/\/+$/, '')}/api/accounts/${encodeURIComponent(accountId)}/token/`;
    const signal = AbortSignal.timeout(Math.min(this.deadlineMs, 30_000));
    // undici's index, loaded only for a token: a push by API key never asks for one (platform/node/undici.ts).
    const { request } = await import('undici');
    let res;
    let text = '';
    try {
      res = await request(url, { method: 'POST', headers: { 'x-api-key': this.apiKey, accept: 'application/json' }, headersTimeout: 60_000, bodyTimeout: 60_000, signal });
      // A token answer is a few hundred bytes: anything past 64 KiB is not one, and is not read to its end.
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        text += chunk.toString('utf8');
        if (text.length > 65_536) {
          res.body.destroy();
          break;
        }
      }
    } catch (err) {
      // Asking again for a token is harmless: whatever the token request's fate, it is a passing failure.
      const c = classifyTransportError(err);
      const reason = signal.aborted ? 'no answer within the token request deadline' : c.reason;
      throw new NetworkError(`token request: ${reason}`, { ...c, reason, cause: err });
    }
    const body = parseOrNull(text) as { account_access?: unknown; message?: unknown; code?: unknown } | null;
    if (res.statusCode === 200 && typeof body?.account_access === 'string') return body.account_access;
    // The service's own words only (sync/answers.ts): the page chose the address, and reads what is said here.
    const message = saidMessage(body) ?? `HTTP ${res.statusCode}`;
    if (res.statusCode === 429 || res.statusCode >= 500) {
      throw new NetworkError(`token request: the service answered ${message}`, { sent: false, reason: `the token request got ${message}` });
    }
    const code: BlockedCode = body?.code === 'invalid_api_key' || (res.statusCode === 401 && body?.code === undefined) ? 'invalid_api_key'
      : body?.code === 'account_not_found' || message === 'Account not found' ? 'account_not_found' : 'refused';
    throw new TokenUnavailable(code === 'invalid_api_key' ? 'Invalid API key' : code === 'account_not_found' ? 'Account not found' : `The service refused a token for ${accountId}: ${message}`, code);
  }
}

/** A JSON answer, or null for anything else (judged by its status). */
function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
