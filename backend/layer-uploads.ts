// A layer file's bytes sent by the page in chunks (core/api-layer-files.ts addLayerFileBegin/Chunk/End: browser
// mode's page has no path to give), written into FURROW_HOME/layers/<id>.upload.part at each chunk's place — chunks
// may come in any order, a few in flight at once — and handed whole to the registry (backend/layer-files.ts) at the
// end, which tells the format and keeps the file. Nothing of an upload outlives it: cancelled, idle for
// UPLOAD_IDLE_MS, or its page gone (its owner's uploads dropped), its .part file is removed. An upload is its owner's:
// another page session cannot add to it, end it or cancel it (it is unknown there: upload_gone).
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { LAYER_CHUNK_BYTES } from '../core/layers/layer-files.ts';

/** An upload with no chunk for this long is dropped (a tab frozen or gone without closing its socket). */
export const UPLOAD_IDLE_MS = 10 * 60_000;
/** Uploads one owner may have under way at once. */
export const UPLOADS_PER_OWNER = 4;

/** Why an upload's call is refused: its code (core/api-codes.ts) and the words. */
export class UploadRefused extends Error {
  constructor(readonly code: 'upload_gone' | 'invalid_arguments' | 'busy', message: string) {
    super(message);
    this.name = 'UploadRefused';
  }
}

interface Upload {
  id: string;
  owner: object;
  name: string;
  size: number;
  file: string;
  fh: FileHandle;
  received: Set<number>;
  /** Writes under way: the end waits for them, a cancel too before it removes the file. */
  writing: Set<Promise<unknown>>;
  touched: number;
}

export class LayerUploads {
  private readonly uploads = new Map<string, Upload>();
  private readonly sweeper: ReturnType<typeof setInterval>;

  /** `makeDir`: makes the folder before the first upload's file. */
  constructor(private readonly dir: string, private readonly idleMs = UPLOAD_IDLE_MS, private readonly now: () => number = Date.now, private readonly makeDir: () => void = () => {}) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, idleMs)).unref();
  }

  /** A new upload of `size` bytes for `owner` (a page session, or the command line's channel); its id. */
  async begin(owner: object, name: string, size: number): Promise<string> {
    if ([...this.uploads.values()].filter((u) => u.owner === owner).length >= UPLOADS_PER_OWNER) {
      throw new UploadRefused('busy', `${UPLOADS_PER_OWNER} files are being sent already: wait for one of them to end`);
    }
    const id = randomBytes(16).toString('hex');
    this.makeDir();
    const file = join(this.dir, `${id}.upload.part`);
    const fh = await open(file, 'wx', 0o600);
    this.uploads.set(id, { id, owner, name, size, file, fh, received: new Set(), writing: new Set(), touched: this.now() });
    return id;
  }

  private of(owner: object, id: string): Upload {
    const u = this.uploads.get(id);
    if (!u || u.owner !== owner) throw new UploadRefused('upload_gone', 'That file is no longer being received (ended, cancelled, or idle too long): open it again');
    return u;
  }

  /** Writes a chunk (base64 `data`) at `offset`: a multiple of the chunk size, all of it but for the last chunk. */
  async chunk(owner: object, id: string, offset: number, data: string): Promise<void> {
    const u = this.of(owner, id);
    const bytes = Buffer.from(data, 'base64');
    const index = offset / LAYER_CHUNK_BYTES;
    const want = Math.min(LAYER_CHUNK_BYTES, u.size - offset);
    if (!Number.isInteger(index) || offset >= u.size) throw new UploadRefused('invalid_arguments', `A chunk starts at a multiple of ${LAYER_CHUNK_BYTES} bytes below the file's size (${u.size}), not at ${offset}`);
    if (bytes.length !== want) throw new UploadRefused('invalid_arguments', `The chunk at ${offset} holds ${bytes.length} bytes where ${want} were expected`);
    u.touched = this.now();
    const write = u.fh.write(bytes, 0, bytes.length, offset);
    u.writing.add(write);
    try {
      await write;
      u.received.add(index);
    } finally {
      u.writing.delete(write);
    }
  }

  /**
   * Ends an upload whose every chunk came: its file closed and handed to `keep` (which owns it from then on), the
   * upload gone either way. Refused, the upload kept, while a chunk is missing.
   */
  async end<T>(owner: object, id: string, keep: (file: string, name: string) => Promise<T>): Promise<T> {
    const u = this.of(owner, id);
    await Promise.allSettled([...u.writing]);
    const chunks = Math.ceil(u.size / LAYER_CHUNK_BYTES);
    if (u.received.size !== chunks) {
      throw new UploadRefused('invalid_arguments', `${chunks - u.received.size} of the file's ${chunks} chunks have not come: send them before the end`);
    }
    this.uploads.delete(id);
    await u.fh.close();
    try {
      return await keep(u.file, u.name);
    } finally {
      rmSync(u.file, { force: true });
    }
  }

  /** Drops an upload and its file; nothing when it is gone. */
  async cancel(owner: object, id: string): Promise<void> {
    const u = this.uploads.get(id);
    if (u && u.owner === owner) await this.drop(u);
  }

  /** Every upload of `owner` dropped (its page session ended). */
  async dropOwner(owner: object): Promise<void> {
    await Promise.all([...this.uploads.values()].filter((u) => u.owner === owner).map((u) => this.drop(u)));
  }

  private async drop(u: Upload): Promise<void> {
    if (this.uploads.get(u.id) !== u) return;
    this.uploads.delete(u.id);
    await Promise.allSettled([...u.writing]);
    await u.fh.close().catch(() => undefined);
    rmSync(u.file, { force: true });
  }

  /** Drops the uploads idle for too long. */
  sweep(): void {
    for (const u of [...this.uploads.values()]) if (this.now() - u.touched >= this.idleMs) void this.drop(u);
  }

  /** Uploads under way (tests). */
  get size(): number {
    return this.uploads.size;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.uploads.values()].map((u) => this.drop(u)));
  }
}
