// The host's byte resources: binary content a feature makes for one page session — an export written to a private
// file under FURROW_HOME/exports/, or a map layer's file kept by the host (backend/layer-files.ts: the whole file read
// by range, or an MBTiles file's tiles by name) — registered here and fetched by the page at
// /bytes/<session key>/<id>/<name> (core/bytes-protocol.ts), which browser mode's server (backend/browser-server.ts)
// and Electron's main (through backend/bytes-port.ts) both serve.
//
// Who may read one: the page session that asked for it, and no other. Each page session (a browser tab's WebSocket,
// an Electron window's port) gets a key of 32 random bytes, which reaches the page only inside the paths answered on
// that session; a resource is served only while its session is open, for BYTES_TTL_MS after it was made. Why not any
// page of this host: a session is the unit the host already trusts (each is served as a 'page' caller), and a path
// outlives its use — a browser keeps a download's address in its history — so once the tab that asked is closed or
// reloaded, its addresses must lead nowhere. Why a key in the path and no header or cookie: a page cannot put a
// header on an <a download> or an <img>, and a cookie for 127.0.0.1 goes to every port of it. The files are the
// registry's: 0600 in a 0700 folder, removed when they expire, when their session ends and when the host stops; the
// folder is emptied at the host's start (a host killed before it could).
//
// A layer's resource differs in two ways: it does not expire (a map stays open for hours) but still dies with its
// session, and its file is not the registry's (the layer files' registry keeps it): ending it removes nothing.
import { randomBytes } from 'node:crypto';
import { closeSync, createReadStream, readSync, rmSync, statSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { bytesPath, BYTES_TYPES, validBytesName, type BytesMeta, type BytesPath } from '../core/bytes-protocol.ts';
import { ensurePrivateDir } from '../platform/node/private-files.ts';

/** How long a resource stays readable after it was made. */
export const BYTES_TTL_MS = 10 * 60_000;
/** The most resources a session keeps: a new one beyond removes the oldest. */
export const BYTES_PER_SESSION = 20;

/** The most layer resources a session keeps (one per layer file it shows): a new one beyond ends the oldest. */
export const LAYER_RESOURCES_PER_SESSION = 64;

interface FileResource {
  kind: 'file';
  id: string;
  file: string;
  name: string;
  type: string;
  download: boolean;
  expires: number;
}

/** A layer's bytes, opened by name (its file's one name, or a tile's) by whoever registered it. */
interface LayerResource {
  kind: 'layer';
  id: string;
  open(name: string, id: string): Promise<OpenedBytes | null>;
}

type Resource = FileResource | LayerResource;

/**
 * What an answer's bytes are read from: a file, or bytes in memory (a tile read out of an MBTiles file). The two
 * shells read it their own way: browser mode's server as a stream, Electron's path a chunk per `more`.
 */
export interface ByteBody {
  /** Bytes `start` to `end` (included), as a stream that leaves the body open. */
  stream(start: number, end: number): Readable;
  /** Reads into `into` from `position`; how many bytes were read (0 at the end). */
  read(into: Uint8Array, position: number): Promise<number>;
  close(): Promise<void>;
}

/** A file's bytes, read from its open handle. */
export function fileBody(handle: FileHandle): ByteBody {
  return {
    stream: (start, end) => handle.createReadStream({ start, end, autoClose: false }),
    read: async (into, position) => (await handle.read(into, 0, into.length, position)).bytesRead,
    close: () => handle.close(),
  };
}

/** Ranges up to this size are read at once, synchronously (a tile of a PMTiles archive, a GeoTIFF's block). */
const SMALL_RANGE = 1024 * 1024;

/**
 * A file's bytes through a descriptor opened synchronously, for the many small ranges a map's layer asks (a tile by
 * range): a range up to SMALL_RANGE is read in one synchronous call — as an MBTiles tile is read from SQLite — where
 * the stream of an open FileHandle took four trips through the thread pool (bench/layer-files.ts, a 64 KiB range of a
 * 2 GB archive: p50 0.63 ms that way, 0.41 ms this way); larger ones are streamed.
 */
export function syncFileBody(fd: number): ByteBody {
  let closed = false;
  return {
    stream: (start, end) => {
      if (end - start + 1 > SMALL_RANGE) return createReadStream('', { fd, start, end, autoClose: false });
      const buf = Buffer.allocUnsafe(end - start + 1);
      let n = 0;
      while (n < buf.length) {
        const got = readSync(fd, buf, n, buf.length - n, start + n);
        if (got === 0) break;
        n += got;
      }
      return Readable.from([buf.subarray(0, n)]);
    },
    read: (into, position) => Promise.resolve(readSync(fd, into, 0, into.length, position)),
    close: () => {
      if (!closed) closeSync(fd);
      closed = true;
      return Promise.resolve();
    },
  };
}

/** Bytes held in memory (small: a tile). */
export function memoryBody(bytes: Uint8Array): ByteBody {
  return {
    stream: (start, end) => Readable.from([bytes.subarray(start, end + 1)]),
    read: (into, position) => {
      const part = bytes.subarray(position, position + into.length);
      into.set(part);
      return Promise.resolve(part.length);
    },
    close: () => Promise.resolve(),
  };
}

/** A resource opened for reading: its answer's facts and its body (the caller closes it). */
export interface OpenedBytes {
  meta: BytesMeta;
  body: ByteBody;
}

/** What serves bytes reads: the registry (browser-server.ts and bytes-port.ts take only this). */
export interface BytesSource {
  open(path: BytesPath): Promise<OpenedBytes | null>;
}

export interface ByteResourcesOptions {
  ttlMs?: number;
  perSession?: number;
  now?: () => number;
}

export class ByteResources implements BytesSource {
  private readonly sessions = new Map<string, ByteSession>();
  private readonly sweeper: ReturnType<typeof setInterval>;
  readonly ttlMs: number;
  readonly perSession: number;
  readonly now: () => number;

  /** `dir`: FURROW_HOME/exports, emptied now (what a host that was killed left is no session's). */
  constructor(readonly dir: string, opts: ByteResourcesOptions = {}) {
    this.ttlMs = opts.ttlMs ?? BYTES_TTL_MS;
    this.perSession = opts.perSession ?? BYTES_PER_SESSION;
    this.now = opts.now ?? Date.now;
    rmSync(dir, { recursive: true, force: true });
    ensurePrivateDir(dir);
    this.sweeper = setInterval(() => { for (const s of this.sessions.values()) s.sweep(); }, Math.min(60_000, this.ttlMs)).unref();
  }

  /** A new page session's scope; closing it removes its resources. */
  session(): ByteSession {
    const s = new ByteSession(this, () => this.sessions.delete(s.key));
    this.sessions.set(s.key, s);
    return s;
  }

  /** The resource at `path` opened for reading, or null: unknown key, id or name, expired, or its session closed. */
  async open(path: BytesPath): Promise<OpenedBytes | null> {
    const session = this.sessions.get(path.key);
    const r = session?.get(path.id);
    if (!session || !r) return null;
    if (r.kind === 'layer') {
      const opened = await r.open(path.name, r.id).catch(() => null);
      if (opened && session.get(path.id) !== r) {
        await opened.body.close();
        return null;
      }
      return opened;
    }
    if (r.name !== path.name) return null;
    const handle = await open(r.file, 'r').catch(() => null);
    if (!handle) return null;
    // Still served once open (its session may have ended meanwhile); and the size the file has, should it differ.
    if (session.get(path.id) !== r) {
      await handle.close();
      return null;
    }
    const size = (await handle.stat()).size;
    return { body: fileBody(handle), meta: { size, type: r.type, fileName: r.name, download: r.download, etag: `"${r.id}-${size.toString(36)}"` } };
  }

  /** Every session ended and the folder removed (the host stops). */
  close(): void {
    clearInterval(this.sweeper);
    for (const s of [...this.sessions.values()]) s.close();
    remove(this.dir);
  }
}

/** Removes a file or the folder, quietly: one still open for a download (Windows) goes at the host's next start. */
function remove(file: string): void {
  try {
    rmSync(file, { recursive: true, force: true });
  } catch {
    // kept until the folder goes
  }
}

/** One page session's resources, and its key. */
export class ByteSession {
  readonly key = randomBytes(32).toString('base64url');
  private readonly resources = new Map<string, Resource>();
  /** Layer resources by their key (a layer file's id). */
  private readonly layers = new Map<string, string>();
  private closed = false;

  constructor(private readonly registry: ByteResources, private readonly onClose: () => void) {}

  /**
   * A new file's path in the registry's private folder, for a feature to write (created 0600 by the writer: the
   * host runs under umask 077) and then `add`. `ext`: its extension, letters and digits.
   */
  file(ext: string): string {
    if (!/^[a-z0-9]{1,10}$/.test(ext)) throw new Error(`not an extension: ${ext}`);
    return join(this.registry.dir, `${randomBytes(16).toString('hex')}.${ext}`);
  }

  /**
   * Registers `file` (one the feature wrote with `file()`, removed with the resource) under `name`; its path for the
   * page, and its size. A session closed meanwhile refuses it (and removes the file).
   */
  add(r: { file: string; name: string; type: string; download?: boolean }): { path: string; size: number } {
    if (this.closed) {
      remove(r.file);
      throw new Error('the page that asked for it has gone');
    }
    if (!BYTES_TYPES.has(r.type)) throw new Error(`bytes of type ${r.type} are not served`);
    if (!validBytesName(r.name)) throw new Error(`not a file name: ${r.name}`);
    const id = randomBytes(16).toString('hex');
    const size = statSync(r.file).size;
    this.resources.set(id, { kind: 'file', id, file: r.file, name: r.name, type: r.type, download: r.download ?? true, expires: this.registry.now() + this.registry.ttlMs });
    this.trim('file', this.registry.perSession);
    return { path: bytesPath(this.key, id, r.name), size };
  }

  /**
   * Registers a layer's bytes under `key` (the layer file's id: asked again, the same resource answers), opened by
   * `open` with the name a request gives (`open` decides which names it serves); its id. It lives as long as the
   * session, and removes nothing when it ends. A session closed meanwhile refuses it.
   */
  addLayer(key: string, open: (name: string, id: string) => Promise<OpenedBytes | null>): string {
    if (this.closed) throw new Error('the page that asked for it has gone');
    const known = this.layers.get(key);
    if (known && this.resources.has(known)) return known;
    const id = randomBytes(16).toString('hex');
    this.resources.set(id, { kind: 'layer', id, open });
    this.layers.set(key, id);
    this.trim('layer', LAYER_RESOURCES_PER_SESSION);
    return id;
  }

  /** Ends the layer resource registered under `key`, if any (its file is going). */
  dropLayer(key: string): void {
    const id = this.layers.get(key);
    if (id !== undefined) this.drop(id);
  }

  /** Keeps the newest `most` resources of a kind, dropping the oldest. */
  private trim(kind: Resource['kind'], most: number): void {
    const ids = [...this.resources.values()].filter((r) => r.kind === kind).map((r) => r.id);
    for (const id of ids.slice(0, Math.max(0, ids.length - most))) this.drop(id);
  }

  /** A live resource (an expired one is removed on the way). */
  get(id: string): Resource | undefined {
    const r = this.resources.get(id);
    if (r?.kind === 'file' && r.expires <= this.registry.now()) {
      this.drop(id);
      return undefined;
    }
    return r;
  }

  /** Removes what has expired. */
  sweep(): void {
    for (const id of [...this.resources.keys()]) this.get(id);
  }

  private drop(id: string): void {
    const r = this.resources.get(id);
    this.resources.delete(id);
    if (r?.kind === 'file') remove(r.file);
    if (r?.kind === 'layer') for (const [k, v] of this.layers) if (v === id) this.layers.delete(k);
  }

  /** The session ended: its resources are removed, its key leads nowhere. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const id of [...this.resources.keys()]) this.drop(id);
    this.onClose();
  }
}
