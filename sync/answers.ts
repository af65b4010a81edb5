// What the service's answers say, read without the HTTP client: the CLI's status and blocked-account code use these
// without loading undici (a tenth of a second at every start), which only the commands that talk to a service need.
import { ACCOUNT_NOT_FOUND_MESSAGE, INVALID_TOKEN_MESSAGE, MISSING_FARM_ID_MESSAGE } from '../core/errors.ts';

export interface HttpResponse {
  status: number; body: unknown; headers: Record<string, string | string[] | undefined>; retryAfterMs: number | null; sentBytes: number;
  /** The bearer token the request carried, as its claims say (its issuer's clock): what a refusal of it is held against. */
  token?: { iat: number | null; exp: number | null };
  /** The answer body's bytes as they came over the wire (compressed, when the service compressed it). */
  receivedBytes?: number;
  /** This computer's clock when the answer came (ms): held against the service's `Date`. */
  receivedAt?: number;
}

/** An answer's `code`, when its body is an object that has one. */
export const codeOf = (body: unknown): unknown => (typeof body === 'object' && body !== null ? (body as { code?: unknown }).code : undefined);
const messageOf = (body: unknown) => {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as { message?: unknown; detail?: unknown };
  return typeof b.message === 'string' ? b.message : typeof b.detail === 'string' ? b.detail : undefined;
};

export const isInvalidToken = (body: unknown) => codeOf(body) === 'invalid_token' || messageOf(body) === 'Invalid token';
export const isAccountNotFound = (body: unknown) => codeOf(body) === 'account_not_found' || messageOf(body) === 'Account not found';

/** The most of a service's message repeated: an answer is the service's to word, not a channel for anything longer. */
export const MAX_SAID = 200;
const ERROR_KEYS = new Set(['code', 'message', 'detail', 'errors']);
/** The messages the spec itself fixes, said whatever shape the answer has (the hosted original's `{"detail": …}`). */
const FIXED = new Set([INVALID_TOKEN_MESSAGE, ACCOUNT_NOT_FOUND_MESSAGE, MISSING_FARM_ID_MESSAGE]);

const cut = (text: string) => (text.length > MAX_SAID ? `${text.slice(0, MAX_SAID - 1)}…` : text);

/**
 * The parcel service's own error body (docs/api.md#errors, core/errors.ts errorBody: `code`, `message`, `detail` the
 * same as `message`, optionally `errors`, nothing else): its code and its message, cut at MAX_SAID characters. Null
 * for anything else. Whatever the address answers reaches the page (a refusal's words, a block's reason), and a page
 * chooses the address: an intranet or loopback server's error page or JSON must not be read through the app.
 */
export function serviceError(body: unknown): { code: string; message: string } | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const b = body as Record<string, unknown>;
  if (!Object.keys(b).every((k) => ERROR_KEYS.has(k))) return null;
  if (typeof b.code !== 'string' || !/^[a-z][a-z0-9_]{0,63}$/.test(b.code) || typeof b.message !== 'string') return null;
  if (b.detail !== undefined && b.detail !== b.message) return null;
  if (b.errors !== undefined && !Array.isArray(b.errors)) return null;
  return { code: b.code, message: cut(b.message) };
}

/** What an answer says that may be repeated: the service's own error message, or one of the spec's fixed messages. */
export function saidMessage(body: unknown): string | undefined {
  const own = serviceError(body);
  if (own) return own.message;
  const m = messageOf(body);
  return m !== undefined && FIXED.has(m) ? m : undefined;
}

/** An answer's refusal in words: the service's message (saidMessage), else its HTTP status only. */
export const errorMessage = (res: HttpResponse) => saidMessage(res.body) ?? `HTTP ${res.status}`;
