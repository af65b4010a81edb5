import { Agent, request, type Dispatcher } from 'undici';
import { TokenUnavailable, type TokenProvider } from './tokens.ts';
import { NetworkError, classifyTransportError, markingConnector } from './transport.ts';

export { NetworkError } from './transport.ts';

/** A request body already serialized (the engine builds parcel JSON from the mirror's stored JSON text). */
export class JsonText {
  constructor(readonly text: string) {}
}

export interface HttpResponse { status: number; body: unknown; headers: Record<string, string | string[] | undefined>; retryAfterMs: number | null; sentBytes: number }

export interface Credentials {
  /** 'api_key': x-api-key + account header. 'bearer': Authorization with the token provider's token. */
  mode: 'api_key' | 'bearer';
  apiKey?: string;
  accountHeader?: string;
  tokens?: TokenProvider;
}

export interface ClientOptions {
  baseUrl: string;
  accountId: string;
  credentials: Credentials;
  /** Time to wait for the response headers; past it the outcome of a write is uncertain. */
  timeoutMs?: number;
  dispatcher?: Dispatcher;
}

function parseRetryAfter(v: string | string[] | undefined): number | null {
  const s = Array.isArray(v) ? v[0] : v;
  if (!s) return null;
  const secs = Number(s);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(s);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/**
 * One connected account's HTTP client. It never logs: the API key and tokens stay in memory only, and
 * error messages carry paths and statuses, never headers.
 */
export class ServiceClient {
  readonly baseUrl: string;
  readonly accountId: string;
  private readonly dispatcher: Dispatcher;

  constructor(private readonly opts: ClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.accountId = opts.accountId;
    const timeout = opts.timeoutMs ?? 60_000;
    this.dispatcher = opts.dispatcher ?? new Agent({ headersTimeout: timeout, bodyTimeout: timeout, connect: markingConnector(10_000), keepAliveTimeout: 10_000 });
  }

  get mode(): Credentials['mode'] {
    return this.opts.credentials.mode;
  }

  private async headers(forceRefresh: boolean): Promise<Record<string, string>> {
    const c = this.opts.credentials;
    const h: Record<string, string> = { accept: 'application/json' };
    if (c.mode === 'api_key') {
      h['x-api-key'] = c.apiKey ?? '';
      h[(c.accountHeader ?? 'Service-Account').toLowerCase()] = this.accountId;
    } else {
      if (!c.tokens) throw new Error('bearer mode needs a token provider');
      h.authorization = `Bearer ${await c.tokens.token(this.accountId, forceRefresh)}`;
    }
    return h;
  }

  /**
   * Sends one request. An answer that says 'Invalid token' gets one token refresh and one retry (the
   * service refuses bad tokens before doing any work, so the retry cannot duplicate anything).
   */
  async send(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<HttpResponse> {
    let res = await this.once(method, path, body, false);
    if (res.status === 401 && this.opts.credentials.mode === 'bearer' && isInvalidToken(res.body) && this.opts.credentials.tokens?.refreshable) {
      res = await this.once(method, path, body, true);
    }
    return res;
  }

  private async once(method: string, path: string, body: unknown, forceRefresh: boolean): Promise<HttpResponse> {
    let headers: Record<string, string>;
    try {
      headers = await this.headers(forceRefresh);
    } catch (err) {
      // No token could be had: the request itself never left, whatever became of the token request.
      if (err instanceof TokenUnavailable || !(err instanceof NetworkError)) throw err;
      throw new NetworkError(`${method} ${path}: not sent, no token (${err.reason})`, { sent: false, reason: err.reason, unreachable: err.unreachable, cause: err });
    }
    let payload: string | undefined;
    if (body !== undefined) {
      payload = body instanceof JsonText ? body.text : JSON.stringify(body);
      headers['content-type'] = 'application/json';
    }
    let res: Dispatcher.ResponseData;
    try {
      res = await request(`${this.baseUrl}${path}`, { method: method as Dispatcher.HttpMethod, headers, body: payload, dispatcher: this.dispatcher });
    } catch (err) {
      const c = classifyTransportError(err);
      throw new NetworkError(`${method} ${path}: ${c.sent ? 'no answer' : 'could not connect'} (${c.reason})`, { ...c, cause: err });
    }
    let text: string;
    try {
      text = await res.body.text();
    } catch (err) {
      throw new NetworkError(`${method} ${path}: the answer was cut off`, { sent: true, reason: 'the answer was cut off', cause: err });
    }
    let parsed: unknown = null;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = { unparsed: text.slice(0, 200) };
      }
    }
    return { status: res.statusCode, body: parsed, headers: res.headers, retryAfterMs: parseRetryAfter(res.headers['retry-after']), sentBytes: payload?.length ?? 0 };
  }

  async close(): Promise<void> {
    if (!this.opts.dispatcher) await this.dispatcher.close();
  }
}

const codeOf = (body: unknown) => (typeof body === 'object' && body !== null ? (body as { code?: unknown }).code : undefined);
const messageOf = (body: unknown) => {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as { message?: unknown; detail?: unknown };
  return typeof b.message === 'string' ? b.message : typeof b.detail === 'string' ? b.detail : undefined;
};

export const isInvalidToken = (body: unknown) => codeOf(body) === 'invalid_token' || messageOf(body) === 'Invalid token';
export const isAccountNotFound = (body: unknown) => codeOf(body) === 'account_not_found' || messageOf(body) === 'Account not found';
export const errorMessage = (res: HttpResponse) => messageOf(res.body) ?? `HTTP ${res.status}`;
