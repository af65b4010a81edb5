// Bytes across the boundary: binary content the mirror host makes for a page (an export to download; later a map's
// tiles read from the user's MBTiles or PMTiles file) is fetched by the page at one path, /bytes/<key>/<id>/<name>,
// which both shells serve — browser mode's loopback server from the file itself (backend/browser-server.ts), Electron's
// main at app://furrow/bytes/… by asking the host over its channel (electron/bytes.ts) — with the same status and
// headers, computed here, and range requests. <key> is the page session's capability (backend/bytes.ts): a page
// cannot put a header on an <img> or an <a download>, and a cookie for 127.0.0.1 would go to every port of it.
//
// Pure: the path's syntax, Range parsing, an answer's status and headers, and the messages of Electron's answer on a
// MessagePort (read back into a ReadableStream by receiveBytes), so all of it is tested under Node.
import { isObject, type Port } from './rpc.ts';

export const BYTES_PREFIX = '/bytes/';

/** A page session's key: 32 random bytes, base64url. */
const KEY = /^[A-Za-z0-9_-]{43}$/;
/** A resource's id: 16 random bytes, hex. */
const ID = /^[0-9a-f]{32}$/;

export interface BytesPath {
  key: string;
  id: string;
  /** The resource's file name, decoded (the one it was registered with: another name is another, unknown, resource). */
  name: string;
}

/** A file name as it may appear in a /bytes/ path: no separator, NUL or dot segment, at most 200 characters. */
export function validBytesName(name: string): boolean {
  return name.length > 0 && name.length <= 200 && name !== '.' && name !== '..' && !/[/\\\0]/.test(name);
}

/** The path a resource is fetched at (its name percent-encoded). */
export function bytesPath(key: string, id: string, name: string): string {
  if (!KEY.test(key) || !ID.test(id) || !validBytesName(name)) throw new Error('not a bytes path');
  return `${BYTES_PREFIX}${key}/${id}/${encodeURIComponent(name)}`;
}

/**
 * The parts of a request's path (as it came, still percent-encoded), or null for anything that is not exactly
 * /bytes/<key>/<id>/<name>: another prefix, a missing or extra segment, a malformed key or id, a name that is not
 * printable ASCII or valid percent-encoding, holds a query or fragment, or decodes to a separator, NUL or dot segment.
 */
export function parseBytesPath(rawPath: string): BytesPath | null {
  const parts = rawPath.split('/');
  if (parts.length !== 5 || parts[0] !== '' || parts[1] !== 'bytes') return null;
  const [, , key, id, encoded] = parts as [string, string, string, string, string];
  // The name as a URL path carries it: printable ASCII, and no query or fragment.
  if (!KEY.test(key) || !ID.test(id) || !/^[\x21-\x7e]+$/.test(encoded) || /[?#]/.test(encoded)) return null;
  let name: string;
  try {
    name = decodeURIComponent(encoded);
  } catch {
    return null;
  }
  return validBytesName(name) ? { key, id, name } : null;
}

/** Whether `path` is a bytes path (what a page is given: the renderer's bytesUrl checks it before use). */
export const isBytesPath = (path: string): boolean => parseBytesPath(path) !== null;

/** What a Range header asks of a representation of `size` bytes. */
export type RangeAsk =
  | { kind: 'full' }
  /** `start` to `end`, both included. */
  | { kind: 'part'; start: number; end: number }
  | { kind: 'unsatisfiable' };

/**
 * RFC 9110 §14: one range, `bytes=a-b`, `bytes=a-` or `bytes=-n` (the last n bytes). A header the server may ignore —
 * none, another unit, malformed, `b` below `a`, several ranges (a multipart answer is needed by no client of ours) —
 * asks for the whole. A range starting at or past the end, a suffix of 0 bytes, or any range of an empty
 * representation is unsatisfiable (416).
 */
export function parseRange(header: string | null | undefined, size: number): RangeAsk {
  if (header == null) return { kind: 'full' };
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'full' };
  const [first, last] = [m[1]!, m[2]!];
  if (first === '') {
    const n = Number(last);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'part', start: Number.isSafeInteger(n) ? Math.max(0, size - n) : 0, end: size - 1 };
  }
  const start = Number(first);
  if (!Number.isSafeInteger(start) || start >= size) {
    // A last position below the first makes the header invalid (ignored) even when the first is out of range.
    return last !== '' && Number(last) < start ? { kind: 'full' } : { kind: 'unsatisfiable' };
  }
  if (last === '') return { kind: 'part', start, end: size - 1 };
  const end = Number(last);
  if (end < start) return { kind: 'full' };
  return { kind: 'part', start, end: Math.min(end, size - 1) };
}

/** What the host knows of a resource it serves. */
export interface BytesMeta {
  size: number;
  /** Its Content-Type: one of BYTES_TYPES. */
  type: string;
  /** The name a download is saved under. */
  fileName: string;
  /** Sent as an attachment (a download), not shown inline. */
  download: boolean;
  /** A strong validator: the resource never changes while it is served. */
  etag: string;
}

/**
 * The types a resource may have: never HTML, JavaScript, CSS or SVG, which the app's origin would run or apply were
 * one ever loaded as a document, script or style (the page's CSP allows 'self', and /bytes/ is the app's origin).
 */
export const BYTES_TYPES = new Set([
  'application/geo+json', 'application/json', 'text/csv; charset=utf-8', 'application/octet-stream', 'image/png', 'image/jpeg', 'image/webp',
  'application/x-protobuf', 'application/vnd.pmtiles', 'image/tiff',
  // A printed map (backend/print.ts): always a download, never shown in the page (its bytes policy sandboxes it).
  'application/pdf',
]);

/** A request for bytes, as either shell sees it. */
export interface BytesAsk {
  method: string;
  range?: string | null;
  ifRange?: string | null;
}

/** An answer's status and its own headers (the shell adds core/page-policy.ts bytesPolicyHeaders), and which bytes go in its body. */
export interface BytesHead {
  status: 200 | 206 | 404 | 405 | 416;
  headers: Record<string, string>;
  /** Bytes `start` to `end` (included) of the resource; null: no body (HEAD, an error, an empty resource). */
  body: { start: number; end: number } | null;
}

/** `attachment; filename="…"; filename*=UTF-8''…` (RFC 6266): an ASCII fallback and the name itself, percent-encoded. */
export function contentDisposition(fileName: string, download = true): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${download ? 'attachment' : 'inline'}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * The answer to `ask` for a resource (`meta`; null: none is served at that path — unknown, expired, or its session
 * closed, all alike). GET and HEAD only (405 otherwise). If-Range with another validator asks for the whole: the
 * resource the client holds a part of is not this one.
 */
export function bytesHead(meta: BytesMeta | null, ask: BytesAsk): BytesHead {
  if (ask.method !== 'GET' && ask.method !== 'HEAD') return { status: 405, headers: { allow: 'GET, HEAD', 'content-length': '0' }, body: null };
  if (!meta) return { status: 404, headers: { 'content-length': '0' }, body: null };
  const own = {
    'content-type': meta.type, 'accept-ranges': 'bytes', etag: meta.etag,
    ...(meta.download ? { 'content-disposition': contentDisposition(meta.fileName) } : {}),
  };
  const range = ask.ifRange != null && ask.ifRange.trim() !== meta.etag ? { kind: 'full' as const } : parseRange(ask.range, meta.size);
  const head = ask.method === 'HEAD';
  if (range.kind === 'unsatisfiable') return { status: 416, headers: { ...own, 'content-range': `bytes */${meta.size}`, 'content-length': '0' }, body: null };
  if (range.kind === 'part') {
    const { start, end } = range;
    return {
      status: 206, headers: { ...own, 'content-range': `bytes ${start}-${end}/${meta.size}`, 'content-length': String(end - start + 1) },
      body: head ? null : { start, end },
    };
  }
  return { status: 200, headers: { ...own, 'content-length': String(meta.size) }, body: head || meta.size === 0 ? null : { start: 0, end: meta.size - 1 } };
}

// Electron's answer on a MessagePort. Main posts the host { type: BYTES_PORT } (core/host-protocol.ts) with one end of
// a fresh channel and sends the request on the other; the host answers with the head, then sends one chunk per
// `more` (so main holds at most one chunk the response has not taken), and `end`. Main posts `cancel` when the
// response is dropped, and closes its end when done.

/** main → host: the request (first), then `more` for each chunk the response reads, or `cancel`. */
export type BytesToHost =
  | { t: 'get'; method: string; path: string; range: string | null; ifRange: string | null }
  | { t: 'more' }
  | { t: 'cancel' };
/** host → main: the head, then chunks and `end` (or `error`) as asked. */
export type BytesToMain =
  | { t: 'head'; status: number; headers: Record<string, string>; body: boolean }
  | { t: 'chunk'; data: Uint8Array }
  | { t: 'end' }
  | { t: 'error'; message: string };

/** The largest chunk the host sends per `more`. */
export const BYTES_CHUNK = 256 * 1024;

/** The headers main takes from the host's head; anything else is dropped (the policy's headers are main's own). */
const ANSWER_HEADERS = new Set(['content-type', 'content-length', 'content-range', 'accept-ranges', 'content-disposition', 'etag', 'allow']);
const STATUSES = new Set([200, 206, 404, 405, 416]);


/** What receiveBytes makes of the host's answer: a Response's parts. */
export interface ReceivedBytes {
  status: number;
  headers: Record<string, string>;
  body: ReadableStream<Uint8Array> | null;
}

/**
 * Reads the host's answer on `port` (the request already sent): the head, checked (a known status, known headers,
 * string values; anything else is a 502), and the body as a ReadableStream that asks for each chunk as it is read.
 * `close` is called once the conversation is over (the end, an error, a cancel, no head within `timeoutMs`: 504).
 */
export function receiveBytes(port: Port, opts: { close(): void; timeoutMs?: number }): Promise<ReceivedBytes> {
  const waiting: ((m: unknown) => void)[] = [];
  const queued: unknown[] = [];
  let closed = false;
  const stop = port.onMessage((m) => {
    const w = waiting.shift();
    if (w) w(m);
    else queued.push(m);
  });
  const next = (): Promise<unknown> => (queued.length ? Promise.resolve(queued.shift()) : new Promise((resolve) => waiting.push(resolve)));
  const close = () => {
    if (closed) return;
    closed = true;
    stop();
    opts.close();
  };
  const failed = (status: number, why: string): ReceivedBytes => {
    close();
    return { status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: new Blob([`${why}\n`]).stream() };
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => resolve('timeout'), opts.timeoutMs ?? 30_000); });
  return Promise.race([next(), timeout]).then((m) => {
    clearTimeout(timer);
    if (m === 'timeout') return failed(504, 'The app\'s backend did not answer');
    if (!isObject(m) || m.t !== 'head' || typeof m.status !== 'number' || !STATUSES.has(m.status) || !isObject(m.headers) || typeof m.body !== 'boolean') {
      return failed(502, 'The app\'s backend gave no valid answer');
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(m.headers)) {
      if (typeof v !== 'string') return failed(502, 'The app\'s backend gave no valid answer');
      if (ANSWER_HEADERS.has(k.toLowerCase())) headers[k.toLowerCase()] = v;
    }
    if (!m.body) {
      close();
      return { status: m.status, headers, body: null };
    }
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        port.postMessage({ t: 'more' } satisfies BytesToHost);
        const c = await next();
        if (isObject(c) && c.t === 'chunk' && c.data instanceof Uint8Array) controller.enqueue(c.data);
        else if (isObject(c) && c.t === 'end') {
          close();
          controller.close();
        } else {
          close();
          controller.error(new Error(isObject(c) && c.t === 'error' ? String(c.message) : 'the app\'s backend broke off the answer'));
        }
      },
      cancel() {
        if (!closed) port.postMessage({ t: 'cancel' } satisfies BytesToHost);
        close();
      },
    }, { highWaterMark: 1 });
    return { status: m.status, headers, body };
  });
}
