// The host's byte resources: binary content a feature makes for one page session — an export written to a private
// file under FURROW_HOME/exports/; bytes a reader makes by name (an MBTiles file's tiles); a layer's file the host
// keeps, served whole by range (a PMTiles archive, a GeoTIFF) — registered here and fetched by the page at
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
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { bytesPath, BYTES_TYPES, validBytesName, type BytesMeta, type BytesPath } from '../core/bytes-protocol.ts';
import { ensurePrivateDir } from '../platform/node/private-files.ts';

/** How long a resource stays readable after it was made. */
export const BYTES_TTL_MS = 10 * 60_000;
/** The most resources a session keeps: a new one beyond removes the oldest. */
export const BYTES_PER_SESSION = 20;

interface Resource {
  id: string;
  file: string;
  name: string;
  type: string;
  download: boolean;
  expires: number;
}

/**
 * A resource opened for reading: its answer's facts and the open file (the caller closes it), or the bytes
 * themselves for one a reader made (a tile read from a file the host keeps: small, and in no file of its own).
 */
export type OpenedBytes =
  | { meta: BytesMeta; handle: FileHandle; data?: undefined; fd?: undefined }
  | { meta: BytesMeta; data: Uint8Array; handle?: undefined; fd?: undefined }
  /** A layer's kept file, opened synchronously: a map asks it for many small ranges (readRange). */
  | { meta: BytesMeta; fd: number; handle?: undefined; data?: undefined };

/** Ranges up to this size of a kept file are read at once (a PMTiles tile, a GeoTIFF's block); larger ones streamed. */
export const SMALL_RANGE = 1024 * 1024;

/**
 * Bytes `start` to `end` (included) of an open descriptor, read synchronously, as an MBTiles tile is read from SQLite:
 * a FileHandle's open, stat, stream and close made four trips through the thread pool and left more garbage per
 * tile (bench/layer-files.ts: a 64 KiB range of a 2 GB archive, p50 0.63 ms that way, 0.41 ms this way).
 */
export function readRange(fd: number, start: number, end: number): Buffer {
  const buf = Buffer.allocUnsafe(end - start + 1);
  let n = 0;
  while (n < buf.length) {
    const got = readSync(fd, buf, n, buf.length - n, start + n);
    if (got === 0) break;
    n += got;
  }
  return n === buf.length ? buf : buf.subarray(0, n);
}

/** Closes what `open` opened (a file's handle or descriptor), quietly. */
export async function closeBytes(o: OpenedBytes | null): Promise<void> {
  if (o?.fd !== undefined) {
    try {
      closeSync(o.fd);
    } catch {
      // closed already
    }
  }
  await o?.handle?.close().catch(() => undefined);
}

/** What a reader answers for a name: the bytes, their type (one of BYTES_TYPES) and a validator. */
export interface ReadBytes {
  data: Uint8Array;
  type: string;
  etag: string;
}
/**
 * Bytes made on demand by name (the tiles of an area kept offline, by z-x-y); null: none by that name. A promise for
 * bytes made on another thread (the map's parcel tiles, backend/parcel-tiles.ts).
 */
export type BytesReader = (name: string) => ReadBytes | null | Promise<ReadBytes | null>;

/**
 * A file the host keeps served whole, by range, under one name (a layer's PMTiles archive, GeoTIFF or overlay): its
 * path asked at each request (null: no longer kept), never the registry's to remove.
 */
export interface KeptFile {
  name: string;
  /** One of BYTES_TYPES. */
  type: string;
  path(): string | null;
}

/** The most readers a session keeps (a layer's each): a new one beyond removes the oldest. */
export const READERS_PER_SESSION = 64;

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
    const kept = session?.keptFile(path.id);
    if (kept) {
      const file = kept.name === path.name ? kept.path() : null;
      let fd: number;
      try {
        if (!file) return null;
        fd = openSync(file, 'r');
      } catch {
        return null; // removed meanwhile
      }
      const size = fstatSync(fd).size;
      return { fd, meta: { size, type: kept.type, fileName: kept.name, download: false, etag: `"${path.id}-${size.toString(36)}"` } };
    }
    const reader = session?.reader(path.id);
    if (reader) {
      const b = await reader(path.name);
      if (!b || !BYTES_TYPES.has(b.type)) return null;
      return { data: b.data, meta: { size: b.data.length, type: b.type, fileName: path.name, download: false, etag: b.etag } };
    }
    const r = session?.get(path.id);
    if (!session || !r || r.name !== path.name) return null;
    const handle = await open(r.file, 'r').catch(() => null);
    if (!handle) return null;
    // Still served once open (its session may have ended meanwhile); and the size the file has, should it differ.
    if (session.get(path.id) !== r) {
      await handle.close();
      return null;
    }
    const size = (await handle.stat()).size;
    return { handle, meta: { size, type: r.type, fileName: r.name, download: r.download, etag: `"${r.id}-${size.toString(36)}"` } };
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
  /** Readers and kept files by id, and each one's id by its owner's name for it (the same owner keeps its id). */
  private readonly readers = new Map<string, BytesReader>();
  private readonly kept = new Map<string, KeptFile>();
  private readonly readerIds = new Map<string, string>();
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
    this.resources.set(id, { id, file: r.file, name: r.name, type: r.type, download: r.download ?? true, expires: this.registry.now() + this.registry.ttlMs });
    while (this.resources.size > this.registry.perSession) this.drop(this.resources.keys().next().value!);
    return { path: bytesPath(this.key, id, r.name), size };
  }

  /**
   * Serves `read` under one id for as long as the session lasts (no expiry: a map's layer reads its tiles as long as
   * the page shows it): the path template answered has `{name}` for the name the page asks. The same `owner` (a
   * file's id, say) gets the same id back, with its reader replaced. A session closed meanwhile refuses it.
   */
  addReader(owner: string, read: BytesReader): { id: string; template: string } {
    if (this.closed) throw new Error('the page that asked for it has gone');
    let id = this.readerIds.get(owner);
    if (id === undefined) {
      id = randomBytes(16).toString('hex');
      this.readerIds.set(owner, id);
      this.trimReaders();
    }
    this.readers.set(id, read);
    // bytesPath checks the key and id; the name is the page's to fill in (it checks the result: renderer/bytes-url.ts).
    const template = `${bytesPath(this.key, id, 'name').slice(0, -'name'.length)}{name}`;
    return { id, template };
  }

  /**
   * Serves a file the host keeps whole, by range, under `f.name`, for as long as the session lasts (as a reader: no
   * expiry, the same owner the same id); its path. A session closed meanwhile refuses it.
   */
  addKeptFile(owner: string, f: KeptFile): string {
    if (this.closed) throw new Error('the page that asked for it has gone');
    if (!BYTES_TYPES.has(f.type)) throw new Error(`bytes of type ${f.type} are not served`);
    let id = this.readerIds.get(owner);
    if (id === undefined) {
      id = randomBytes(16).toString('hex');
      this.readerIds.set(owner, id);
      this.trimReaders();
    }
    this.kept.set(id, f);
    return bytesPath(this.key, id, f.name);
  }

  /** At most READERS_PER_SESSION readers and kept files: the oldest go. */
  private trimReaders(): void {
    while (this.readerIds.size > READERS_PER_SESSION) {
      const [oldest, oldId] = this.readerIds.entries().next().value!;
      this.readerIds.delete(oldest);
      this.readers.delete(oldId);
      this.kept.delete(oldId);
    }
  }

  /** The reader of that id, if any. */
  reader(id: string): BytesReader | undefined {
    return this.closed ? undefined : this.readers.get(id);
  }

  /** The kept file of that id, if any. */
  keptFile(id: string): KeptFile | undefined {
    return this.closed ? undefined : this.kept.get(id);
  }

  /** A live resource (an expired one is removed on the way). */
  get(id: string): Resource | undefined {
    const r = this.resources.get(id);
    if (r && r.expires <= this.registry.now()) {
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
    if (r) remove(r.file);
  }

  /** The session ended: its resources are removed, its key leads nowhere. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.readers.clear();
    this.kept.clear();
    this.readerIds.clear();
    for (const id of [...this.resources.keys()]) this.drop(id);
    this.onClose();
  }
}
