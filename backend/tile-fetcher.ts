// Fetching one tile for an area kept offline, politely and stubbornly: a tile server may ask the app to slow down
// (429, or 503, with Retry-After: every request of the download waits until then, not only the one told), may fail
// for a moment (5xx, a reset connection, no answer in time: retried with exponential backoff and jitter, a bounded
// number of times), or have no tile there (404, 204, 410: an empty tile, recorded as such). Redirects are followed
// only to addresses the layers' rules accept (https, or http on this computer), and an answer must be an image of
// bounded size — a WMS error document served with 200 is a failure, never a tile.
import { setMaxListeners } from 'node:events';
import type { Agent, Dispatcher } from 'undici';
import { isBasemapImageUrl } from '../core/basemap.ts';
import { isImageTile } from '../db/mbtiles.ts';

export interface TilePolicy {
  /** Tries per tile, the first included. */
  attempts: number;
  /** Backoff before try n+1: a random wait between half and all of min(capMs, baseMs·2^(n-1)). */
  baseMs: number;
  capMs: number;
  /** The longest Retry-After honoured as given (longer ones are waited this long). */
  maxRetryAfterMs: number;
  /** No answer (headers, or the body's next bytes) for this long: the try failed. */
  timeoutMs: number;
  /** The largest tile taken. */
  maxBytes: number;
}

export const TILE_POLICY: TilePolicy = { attempts: 5, baseMs: 500, capMs: 15_000, maxRetryAfterMs: 120_000, timeoutMs: 30_000, maxBytes: 4 * 1024 * 1024 };

/** A tile fetched, none at the server, or given up on (why, in words). */
/** `unreachable`: the last try found no server at all (refused, unresolved, no answer), not a server's refusal. */
export type TileAnswer = { kind: 'tile'; data: Buffer } | { kind: 'empty' } | { kind: 'failed'; why: string; unreachable?: boolean };

const USER_AGENT = 'Furrow/0.1 (offline area download; https://github.com/furrow)';
const MAX_REDIRECTS = 3;
const RETRIED = new Set([408, 425, 429, 500, 502, 503, 504]);
const EMPTY = new Set([204, 404, 410]);

/** Retry-After in milliseconds (seconds, or an HTTP date), or null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null) return null;
  const t = header.trim();
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  const at = Date.parse(t);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

class Retry {
  constructor(readonly why: string, readonly waitMs: number | null, readonly unreachable = false) {}
}

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve, reject) => {
  if (signal.aborted) return reject(signal.reason as Error);
  const t = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, ms);
  const onAbort = () => { clearTimeout(t); reject(signal.reason as Error); };
  signal.addEventListener('abort', onAbort, { once: true });
});

export class TileFetcher {
  /** No request leaves before this time: the last Retry-After a server gave. */
  private notBefore = 0;
  /** Requests made, tries included (what a test or the benchmark counts). */
  requests = 0;
  /**
   * Its own connections, kept alive between tiles: undici's request, the sync engine's HTTP client, rather than
   * fetch, whose WHATWG machinery (a Request, a Response, an AbortSignal and a timer for each tile) cost the host a
   * fifth more CPU per tile than the download loop without it. The timeouts are the dispatcher's. Made at the first
   * request, with undici's Agent loaded then (platform/node/undici.ts, without undici's index: the sync engine loads
   * the same module statically): this module is reached from every command line start (backend.ts).
   */
  private agent: Promise<Agent> | null = null;

  constructor(private readonly signal: AbortSignal, private readonly policy: TilePolicy = TILE_POLICY, private readonly random = Math.random) {
    // Each request in flight listens to the download's signal.
    setMaxListeners(64, signal);
  }

  private dispatcher(): Promise<Agent> {
    const { timeoutMs } = this.policy;
    return (this.agent ??= import('../platform/node/undici.ts').then(({ Agent }) => new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 10_000 })));
  }

  /** Closes its connections (the download is over). */
  async close(): Promise<void> {
    if (this.agent) await (await this.agent).destroy().catch(() => undefined);
  }

  /** The tile at `url`, trying again as the policy says; throws only when the download's signal aborts. */
  async fetch(url: string): Promise<TileAnswer> {
    let last = 'not tried';
    let unreachable = false;
    for (let attempt = 1; attempt <= this.policy.attempts; attempt++) {
      const wait = this.notBefore - Date.now();
      if (wait > 0) await sleep(wait, this.signal);
      try {
        return await this.once(url);
      } catch (err) {
        if (this.signal.aborted) throw this.signal.reason;
        if (!(err instanceof Retry)) throw err;
        last = err.why;
        unreachable = err.unreachable;
        if (attempt === this.policy.attempts) break;
        if (err.waitMs !== null) {
          // The server's own wait, for every request of the download.
          this.notBefore = Math.max(this.notBefore, Date.now() + Math.min(err.waitMs, this.policy.maxRetryAfterMs));
        } else {
          const ceiling = Math.min(this.policy.capMs, this.policy.baseMs * 2 ** (attempt - 1));
          await sleep(ceiling / 2 + (this.random() * ceiling) / 2, this.signal);
        }
      }
    }
    return { kind: 'failed', why: `${last} (${this.policy.attempts} tries)`, unreachable };
  }

  /** Whether each address's scheme and authority (all the rules look at) is one tiles are taken from. */
  private readonly authorities = new Map<string, boolean>();

  /**
   * The address parsed, when the layers' rules accept it (isBasemapImageUrl); null when not. The rules' answer is
   * kept per scheme and authority, so that a tile's address is parsed once, not three times (a download's tiles share
   * one or a few servers).
   */
  private allowed(url: string): URL | null {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return null;
    }
    // What the rules look at, as parsed (not as written: an address can be spelt many ways).
    const authority = `${u.protocol}//${u.username}:${u.password}@${u.host}`;
    let ok = this.authorities.get(authority);
    if (ok === undefined) {
      ok = isBasemapImageUrl(u.href);
      if (this.authorities.size < 64) this.authorities.set(authority, ok);
    }
    return ok ? u : null;
  }

  /** One try: the tile, empty, a failure not worth retrying, or a Retry thrown. */
  private async once(first: string): Promise<TileAnswer> {
    let url = first;
    for (let hop = 0; ; hop++) {
      const u = this.allowed(url);
      if (!u) return { kind: 'failed', why: `${host(url)} is not an address tiles are taken from (https, or http on this computer)` };
      this.requests++;
      let res: Dispatcher.ResponseData;
      try {
        res = await (await this.dispatcher()).request({ origin: u.origin, path: `${u.pathname}${u.search}`, method: 'GET', headers: HEADERS, signal: this.signal });
      } catch (err) {
        if (this.signal.aborted) throw this.signal.reason;
        throw new Retry(timedOut(err) ? `${host(url)} did not answer within ${this.policy.timeoutMs / 1000} s` : `${host(url)} could not be reached`, null, true);
      }
      const header = (name: string): string | null => {
        const v = res.headers[name];
        return typeof v === 'string' ? v : Array.isArray(v) ? v[0] ?? null : null;
      };
      let read = false;
      try {
        const status = res.statusCode;
        if (status >= 300 && status < 400 && header('location')) {
          if (hop >= MAX_REDIRECTS) return { kind: 'failed', why: `${host(first)} redirected more than ${MAX_REDIRECTS} times` };
          url = new URL(header('location')!, url).href;
          continue;
        }
        if (EMPTY.has(status)) return { kind: 'empty' };
        if (RETRIED.has(status)) {
          const after = status === 429 || status === 503 ? retryAfterMs(header('retry-after')) : null;
          throw new Retry(`${host(url)} answered ${status}`, after);
        }
        if (status !== 200) return { kind: 'failed', why: `${host(url)} answered ${status}` };
        const declared = Number(header('content-length') ?? 0);
        if (declared > this.policy.maxBytes) return { kind: 'failed', why: `a tile of ${declared} bytes is over ${this.policy.maxBytes}` };
        read = true;
        const chunks: Buffer[] = [];
        let size = 0;
        try {
          for await (const chunk of res.body as AsyncIterable<Buffer>) {
            size += chunk.length;
            if (size > this.policy.maxBytes) {
              res.body.destroy();
              return { kind: 'failed', why: `a tile is over ${this.policy.maxBytes} bytes` };
            }
            chunks.push(chunk);
          }
        } catch (err) {
          if (this.signal.aborted) throw this.signal.reason;
          throw new Retry(timedOut(err) ? `${host(url)} did not send a tile whole within ${this.policy.timeoutMs / 1000} s` : `${host(url)} broke off a tile`, null);
        }
        const data = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
        if (!isImageTile(data)) return { kind: 'failed', why: `${host(url)} answered with something that is not an image (${header('content-type') ?? 'no type'})` };
        return { kind: 'tile', data };
      } finally {
        // An answer not read is let go, so that its connection is not held.
        if (!read) await res.body.dump().catch(() => undefined);
      }
    }
  }
}

const HEADERS = { 'user-agent': USER_AGENT, accept: 'image/*' };
const timedOut = (err: unknown): boolean => {
  const code = (err as { code?: string }).code;
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT';
};

const host = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return 'The tile server';
  }
};
