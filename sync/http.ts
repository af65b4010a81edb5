import type { Dispatcher } from 'undici';
import { Agent, Pool } from '../platform/node/undici.ts';
import { TokenUnavailable, tokenExpiry, tokenIssuedAt, type TokenProvider } from './tokens.ts';
import { ANSWER_TOO_LARGE, NetworkError, classifyTransportError, markingConnector } from './transport.ts';
import { isInvalidToken, type HttpResponse } from './answers.ts';
import { ACCEPT_ENCODING, decodeBody } from './decode.ts';
import { ReadAfter } from './read-after.ts';
import { READ_AFTER_HEADER, WRITE_LSN_HEADER } from '../core/read-after.ts';

export { ANSWER_TOO_LARGE, NetworkError } from './transport.ts';
export { errorMessage, isAccountNotFound, isInvalidToken, type HttpResponse } from './answers.ts';

/**
 * Reads a 2xx answer's bytes faster than decoding and JSON.parse would (sync/created-scan.ts): a value only when the
 * bytes are valid JSON and the value stands for it as the caller needs; undefined to have them decoded and parsed with
 * JSON.parse as usual.
 */
export type AnswerReader = (bytes: Buffer) => unknown;

/**
 * Called once an answer's bytes are all in, before they are decoded and read, with its status: the request is no
 * longer at the service, so a caller keeping requests in flight can send its next one first (the push, which reads,
 * checks and books each answer only after the next request is written: the service then never waits behind that work).
 */
export type Answered = (status: number) => Promise<void> | void;

/** A request body already serialized (the engine builds parcel JSON from the mirror's stored JSON text). */
export class JsonText {
  constructor(readonly text: string) {}
}


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
  /**
   * The whole exchange (connect, headers and every byte of the body) ends within this, however the answer
   * trickles: an idle timeout alone let an answer of one byte every 5 s run forever. Default REQUEST_DEADLINE_MS.
   */
  deadlineMs?: number;
  /** Largest answer read, in bytes; a larger one is cut and is a transport failure. Default MAX_ANSWER_BYTES. */
  maxAnswerBytes?: number;
  dispatcher?: Dispatcher;
  /** The account's writes, shared across runs (clientFactory); default: this client's own. */
  readAfter?: ReadAfter;
}

/** Default overall deadline of one request (FURROW_HTTP_DEADLINE_MS). */
export const REQUEST_DEADLINE_MS = 300_000;
/** Default answer size cap (FURROW_MAX_ANSWER_BYTES): far above a farm listing page (the engine pages them). */
export const MAX_ANSWER_BYTES = 256 * 1024 * 1024;

/** Longest wait a Retry-After can ask for: `Retry-After: 999999999` scheduled parcels for 2058. */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

/** Retry-After in seconds or as an HTTP date, capped at MAX_RETRY_AFTER_MS; null when absent or unreadable. */
export function parseRetryAfter(v: string | string[] | undefined, now = Date.now()): number | null {
  const s = (Array.isArray(v) ? v[0] : v)?.trim();
  if (!s) return null;
  // delay-seconds is digits only; anything else numeric (-5, 1.5) is neither form (Date.parse would take it as a year).
  if (/^[-+.\d]+$/.test(s) && !/^\d+$/.test(s)) return null;
  const ms = /^\d+$/.test(s) ? Number(s) * 1000 : Date.parse(s) - now;
  return Number.isNaN(ms) ? null : Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}


/**
 * The pool's requests not yet written (what `pool.stats.pending` says), read through the pool's own getter: `stats`
 * builds a PoolStats whose six getters each walk the pool's clients, and the push asks after every answer and before
 * every step (~20 ms of its thread for 20,000 parcels, profiled). The getter is found once, by its symbol's name on the
 * pool's class; if undici ever names it otherwise, or it does not give a count, `stats` answers as before.
 */
const PENDING = ((): symbol | undefined => {
  for (let proto: object | null = Pool.prototype; proto; proto = Object.getPrototypeOf(proto) as object | null) {
    const found = Object.getOwnPropertySymbols(proto).find((s) => s.description === 'pending');
    if (found) return found;
  }
  return undefined;
})();
export function pendingOf(pool: Pool): number {
  const n = PENDING ? (pool as unknown as Record<symbol, unknown>)[PENDING] : undefined;
  return typeof n === 'number' ? n : pool.stats.pending;
}
/**
 * One connected account's HTTP client. It never logs: the API key and tokens stay in memory only, and
 * error messages carry paths and statuses, never headers.
 */
export class ServiceClient {
  readonly baseUrl: string;
  readonly accountId: string;
  private readonly dispatcher: Dispatcher;
  /** The base URL parsed once: undici's request(url) parsed the whole URL again for every request. */
  private readonly origin: string;
  private readonly prefix: string;
  /** What the reads send so that a service reading from a standby answers them after this account's writes. */
  readonly readAfter: ReadAfter;
  /** The own Agent's pool per origin (the last it made for each): its stats, read without the Agent's. */
  private readonly pools = new Map<string, Pool>();

  constructor(private readonly opts: ClientOptions) {
    this.readAfter = opts.readAfter ?? new ReadAfter();
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    let origin = this.baseUrl;
    let prefix = '';
    try {
      const base = new URL(this.baseUrl);
      origin = base.origin;
      prefix = base.pathname.replace(/\/+$/, '');
    } catch {
      // Not a URL: undici refuses it at each request, a transport failure as before (no request can leave).
    }
    this.origin = origin;
    this.prefix = prefix;
    this.accountId = opts.accountId;
    const timeout = opts.timeoutMs ?? 60_000;
    // The Agent's pool of each origin is kept (its default factory's, the same Pool), for unwritten().
    const pools = this.pools;
    const factory = (o: string | URL, po: object): Pool => {
      const pool = new Pool(o, po);
      pools.set(String(o), pool);
      return pool;
    };
    this.dispatcher = opts.dispatcher ?? new Agent({ headersTimeout: timeout, bodyTimeout: timeout, connect: markingConnector(10_000), keepAliveTimeout: 10_000, factory });
  }

  get mode(): Credentials['mode'] {
    return this.opts.credentials.mode;
  }

  private async headers(forceRefresh: boolean): Promise<Record<string, string>> {
    const c = this.opts.credentials;
    const h: Record<string, string> = { accept: 'application/json', 'accept-encoding': ACCEPT_ENCODING };
    if (c.mode === 'api_key') {
      h['x-api-key'] = c.apiKey ?? '';
      // No account: the organization's own requests (its accounts, sync/organization.ts).
      if (this.accountId) h[(c.accountHeader ?? 'Service-Account').toLowerCase()] = this.accountId;
    } else {
      if (!c.tokens) throw new Error('bearer mode needs a token provider');
      h.authorization = `Bearer ${await c.tokens.token(this.accountId, forceRefresh)}`;
    }
    return h;
  }

  /**
   * Resolves after a turn of the event loop, once every request handed to this client is written to its socket (or
   * after `maxTurns` turns, for one that waits for a connection). undici writes a request on a kept-alive socket only
   * in a later turn (a setImmediate: it first lets the socket show whether the server closed it; and a socket that
   * has just delivered an answer is free again only a turn later), so a caller about to hold the thread for
   * milliseconds lets those writes go first. Without this the push's requests left 3 ms after they were made at the
   * 90th percentile (0.05 ms at the median): ~0.3 s of 400 requests, while the service had only one request to work on.
   */
  async written(maxTurns = 8): Promise<void> {
    // At least one turn: a request whose sending has begun may be handed to the dispatcher only in a microtask.
    for (let i = 0; i === 0 || (i < maxTurns && this.unwritten() > 0); i++) await new Promise<void>((r) => setImmediate(r));
  }

  /** Requests handed to the dispatcher and not yet written: an Agent's stats per origin, a Pool's or a Client's own. */
  private unwritten(): number {
    // The Agent's own stats build every origin's with its URL's origin, ~25 µs a call (~20 ms of a push's thread).
    const pool = this.pools.get(this.origin);
    if (pool) return pendingOf(pool);
    const stats = (this.dispatcher as { stats?: { pending?: unknown } & Record<string, { pending?: unknown } | unknown> }).stats;
    if (!stats) return 0;
    const own = typeof stats.pending === 'number' ? stats : stats[this.origin] as { pending?: unknown } | undefined;
    return typeof own?.pending === 'number' ? own.pending : 0;
  }

  /**
   * Sends one request. An answer that says 'Invalid token' gets one token refresh and one retry (the
   * service refuses bad tokens before doing any work, so the retry cannot duplicate anything).
   */
  async send(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, read?: AnswerReader, answered?: Answered): Promise<HttpResponse> {
    let res = await this.once(method, path, body, false, read, answered);
    if (res.status === 401 && this.opts.credentials.mode === 'bearer' && isInvalidToken(res.body) && this.opts.credentials.tokens?.refreshable) {
      res = await this.once(method, path, body, true, read, answered);
    }
    return res;
  }

  private async once(method: string, path: string, body: unknown, forceRefresh: boolean, read?: AnswerReader, answered?: Answered): Promise<HttpResponse> {
    let headers: Record<string, string>;
    try {
      headers = await this.headers(forceRefresh);
    } catch (err) {
      // No token could be had: the request itself never left, whatever became of the token request.
      if (err instanceof TokenUnavailable || !(err instanceof NetworkError)) throw err;
      throw new NetworkError(`${method} ${path}: not sent, no token (${err.reason})`, { sent: false, reason: err.reason, unreachable: err.unreachable, cause: err });
    }
    const write = method !== 'GET';
    if (!write) {
      const after = this.readAfter.header();
      if (after !== null) headers[READ_AFTER_HEADER] = after;
    }
    // Encoded once, here: handed a string, undici encodes it and the byte count read it again (a push's 400 bodies of
    // ~25 kB: ~6 ms of its thread for the count).
    let payload: Buffer | undefined;
    if (body !== undefined) {
      payload = Buffer.from(body instanceof JsonText ? body.text : JSON.stringify(body));
      headers['content-type'] = 'application/json';
    }
    const deadlineMs = this.opts.deadlineMs ?? REQUEST_DEADLINE_MS;
    const deadline = AbortSignal.timeout(deadlineMs);
    const late = `no complete answer within ${Math.round(deadlineMs / 100) / 10} s (the request deadline)`;
    let res: Dispatcher.ResponseData;
    try {
      res = await this.dispatcher.request({ origin: this.origin, path: this.pathOf(path), method: method as Dispatcher.HttpMethod, headers, body: payload, signal: deadline });
    } catch (err) {
      const c = classifyTransportError(err);
      const reason = deadline.aborted ? late : c.reason;
      // No answer began, within the client's timeout or the deadline: the service is not answering.
      const silent = c.sent && (c.silent === true || deadline.aborted);
      if (write && c.sent) this.readAfter.uncertain();
      throw new NetworkError(`${method} ${path}: ${c.sent ? 'no answer' : 'could not connect'} (${reason})`, { ...c, reason, silent, cause: err });
    }
    // A write answered 5xx (a gateway's 504 after the work committed) may have been done: no position came with it.
    if (write && res.statusCode >= 500) this.readAfter.uncertain();
    else if (write && res.statusCode < 300) this.readAfter.answered(res.headers[WRITE_LSN_HEADER]);
    let wire: Buffer;
    try {
      wire = await this.readAnswer(method, path, res, deadline, late);
    } catch (err) {
      if (write) this.readAfter.uncertain();
      throw err;
    }
    if (answered) await answered(res.statusCode);
    const bytes = await decodeBody(method, path, wire, res.headers['content-encoding'], this.opts.maxAnswerBytes ?? MAX_ANSWER_BYTES);
    // A redirect or a 2xx that is not JSON comes from something in between (a proxy, a captive portal, a moved
    // service), not from the service's handling of the request: a transport failure to retry, never a refusal.
    if (res.statusCode >= 300 && res.statusCode < 400) {
      throw new NetworkError(`${method} ${path}: redirected (HTTP ${res.statusCode}) instead of answered`, { sent: true, reason: `redirected (HTTP ${res.statusCode})` });
    }
    let parsed: unknown = null;
    const fast = bytes.length > 0 && read && res.statusCode >= 200 && res.statusCode < 300 ? read(bytes) : undefined;
    if (fast !== undefined) parsed = fast;
    else if (bytes.length > 0) {
      const text = bytes.toString('utf8');
      try {
        parsed = JSON.parse(text);
      } catch {
        if (res.statusCode < 300) throw new NetworkError(`${method} ${path}: the answer was not JSON (HTTP ${res.statusCode}; a proxy or portal in between?)`, { sent: true, reason: 'the answer was not JSON' });
        parsed = { unparsed: text.slice(0, 200) };
      }
    }
    const bearer = headers.authorization?.startsWith('Bearer ') ? headers.authorization.slice(7) : null;
    return {
      status: res.statusCode, body: parsed, headers: res.headers, retryAfterMs: parseRetryAfter(res.headers['retry-after']), sentBytes: payload?.length ?? 0,
      receivedBytes: wire.length, receivedAt: Date.now(), ...(bearer ? { token: { iat: tokenIssuedAt(bearer), exp: tokenExpiry(bearer) } } : {}),
    };
  }

  /**
   * The request target: our paths as they are when they hold only characters a URL keeps as written (every path the
   * engine builds), else as the URL parser writes them (what request(url) sent).
   */
  private pathOf(path: string): string {
    const full = `${this.prefix}${path.startsWith('/') ? path : `/${path}`}`;
    if (/^[A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*$/.test(full) && !/\/\.\.?(\/|\?|$)/.test(full)) return full;
    const u = new URL(`${this.origin}${full}`);
    return `${u.pathname}${u.search}`;
  }

  /**
   * The body's bytes, within the deadline and the size cap (a larger answer is cut, not read to the end). Read by its
   * events: an async iterator over each answer (its set-up, a promise per chunk) took ~20 ms of a push's 400 answers.
   */
  private readAnswer(method: string, path: string, res: Dispatcher.ResponseData, deadline: AbortSignal, late: string): Promise<Buffer> {
    const cap = this.opts.maxAnswerBytes ?? MAX_ANSWER_BYTES;
    const body = res.body;
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let settled = false;
      const fail = (err: NetworkError) => {
        if (settled) return;
        settled = true;
        reject(err);
      };
      // An error, or the stream closed before its end (a destroyed body emits no error): the answer is incomplete.
      const cutOff = (cause: unknown) => {
        const reason = deadline.aborted ? late : 'the answer was cut off';
        fail(new NetworkError(`${method} ${path}: ${reason}`, { sent: true, reason, cause }));
      };
      body.on('data', (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        if (size > cap) {
          fail(new NetworkError(`${method} ${path}: the answer passed ${cap} bytes and was cut`, { sent: true, reason: ANSWER_TOO_LARGE }));
          body.destroy();
          return;
        }
        chunks.push(chunk);
      });
      body.once('end', () => {
        if (settled) return;
        settled = true;
        resolve(Buffer.concat(chunks));
      });
      body.once('error', cutOff);
      body.once('close', () => cutOff(new Error('the answer\'s stream closed before its end')));
    });
  }

  async close(): Promise<void> {
    if (!this.opts.dispatcher) await this.dispatcher.close();
  }
}
