// The files of the app's import previews (core/api-imports.ts): a dropped file's bytes kept on disk, in FURROW_HOME,
// between its preview and its import — on disk rather than in memory because the import reads a file (on its own
// thread, twice for a large GeoJSON) and a preview may wait minutes for the user. Each one in a folder only the user
// can read, named by a random id; removed once imported or discarded, when the account's next preview comes, when
// the account is disconnected (or deactivated from here), after IMPORT_PREVIEW_TTL_MS, and when the backend closes.
// Folders an earlier run left (a crash) go once they are that old.
//
// A page may preview what it likes, as often as it likes, and can connect accounts of its own to have more of them:
// so at most PREVIEWS_READING previews are read at once (each reads a file of up to 20 MB on a thread of its own, a
// few hundred MB of memory at its peak), and the files kept for previews hold at most PREVIEWS_MAX_BYTES in all, the
// oldest ones not being imported removed first to make room.
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { ensurePrivateDir } from '../platform/node/private-files.ts';
import { IMPORT_PREVIEW_TTL_MS } from '../core/api-imports.ts';

export interface KeptPreview {
  id: string;
  account: string;
  /** The name the file is kept under: the dropped file's own, made safe (the import's undo label names it). */
  fileName: string;
  file: string;
  /** Epoch ms. */
  expires: number;
  /** An import of it is running: it is removed when that ends, not before. */
  importing: boolean;
}

/** Previews read at once; one more is refused (busy) until one of them ends. */
export const PREVIEWS_READING = 2;
/** The bytes of every file kept for previews, together. */
export const PREVIEWS_MAX_BYTES = 200 * 1024 * 1024;
/** The longest file name the file systems take (ext4, APFS: 255 bytes of UTF-8; NTFS: 255 UTF-16 units, never more). */
const MAX_NAME_BYTES = 255;

/** A dropped file's name as a file name: its last path segment, no control characters, no leading dots, at most 255 bytes. */
export function safeFileName(name: string): string {
  const last = name.split(/[\\/]/).pop() ?? '';
  const chars = [...last].filter((ch) => ch.charCodeAt(0) >= 0x20 && ch !== '\u007f').join('').trim().replace(/^\.+/, '');
  // Shortened to what the file system takes, by whole characters, keeping the end: the extension tells the format.
  let bytes = 0;
  let kept = '';
  for (const ch of [...chars].reverse()) {
    bytes += Buffer.byteLength(ch);
    if (bytes > MAX_NAME_BYTES) break;
    kept = ch + kept;
  }
  const clean = kept.trim().replace(/^\.+/, '');
  return clean || 'import';
}

/** Why a preview cannot be kept (core/api-imports.ts: busy, too_large), said to whoever dropped the file. */
export class PreviewRefused extends Error {
  constructor(readonly code: 'busy' | 'too_large', message: string) {
    super(message);
    this.name = 'PreviewRefused';
  }
}

export class ImportPreviews {
  /** In the order they were kept, oldest first. */
  private readonly kept = new Map<string, KeptPreview & { bytes: number; timer: ReturnType<typeof setTimeout> }>();
  private reading = 0;

  /**
   * `root`: the folder of the previews' folders (FURROW_HOME/imports). `limits`: previews read at once and the bytes
   * kept in all (tests make them small).
   */
  constructor(
    private readonly root: string,
    private readonly ttl = IMPORT_PREVIEW_TTL_MS,
    private readonly limits: { reading: number; bytes: number } = { reading: PREVIEWS_READING, bytes: PREVIEWS_MAX_BYTES },
  ) {}

  /**
   * A turn to read a preview, or PreviewRefused busy when PREVIEWS_READING are being read: refused rather than queued,
   * since a call waiting its turn would hold its file's bytes (27 MB of base64) in the host all that while, and a page
   * could queue any number of them. A person previews one file at a time; another tab or window can try again.
   * Returns the function that ends the turn (once).
   */
  beginReading(): () => void {
    if (this.reading >= this.limits.reading) {
      throw new PreviewRefused('busy', `${this.limits.reading === 1 ? 'Another file is' : `${this.limits.reading} files are`} being previewed already: try again once ${this.limits.reading === 1 ? 'it is' : 'one is'} done`);
    }
    this.reading++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.reading--;
    };
  }

  /**
   * Writes the bytes to a new private folder and keeps them; the account's previous preview is removed, and the
   * oldest others not being imported while the files kept would pass PREVIEWS_MAX_BYTES (PreviewRefused too_large
   * when even that leaves no room: the previews being imported hold it).
   */
  keep(account: string, fileName: string, bytes: Uint8Array): KeptPreview {
    ensurePrivateDir(this.root);
    this.sweep();
    for (const p of this.kept.values()) if (p.account === account && !p.importing) this.remove(p.id);
    for (const p of [...this.kept.values()]) {
      if (this.keptBytes() + bytes.length <= this.limits.bytes) break;
      if (!p.importing) this.remove(p.id);
    }
    if (this.keptBytes() + bytes.length > this.limits.bytes) {
      const mb = (n: number) => (n / (1024 * 1024)).toFixed(1);
      throw new PreviewRefused('too_large', `The files being imported from previews hold ${mb(this.keptBytes())} MB of the ${mb(this.limits.bytes)} MB kept for previews: try again once they are imported, or import this one with the CLI (npm run -s cli -- import FILE --farm NAME)`);
    }
    const id = randomUUID();
    const dir = join(this.root, id);
    mkdirSync(dir, { mode: 0o700 });
    const name = safeFileName(fileName);
    const file = join(dir, name);
    try {
      writeFileSync(file, bytes, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
    const timer = setTimeout(() => this.expire(id), this.ttl);
    timer.unref(); // a preview left open never keeps the host alive
    const p = { id, account, fileName: name, file, expires: Date.now() + this.ttl, importing: false, bytes: bytes.length, timer };
    this.kept.set(id, p);
    return p;
  }

  get(id: string): KeptPreview | undefined {
    return this.kept.get(id);
  }

  /** The account's previews removed (it was disconnected); one being imported goes when its import ends. */
  removeAccount(account: string): void {
    for (const p of [...this.kept.values()]) {
      if (p.account !== account) continue;
      if (p.importing) p.expires = 0;
      else this.remove(p.id);
    }
  }

  /** The bytes of the files kept, together. */
  keptBytes(): number {
    let n = 0;
    for (const p of this.kept.values()) n += p.bytes;
    return n;
  }

  /** Removes a preview's folder; nothing when it is gone already. */
  remove(id: string): void {
    const p = this.kept.get(id);
    if (!p) return;
    clearTimeout(p.timer);
    this.kept.delete(id);
    rmSync(join(this.root, id), { recursive: true, force: true });
  }

  /** Every preview removed (the backend closes). */
  close(): void {
    for (const id of [...this.kept.keys()]) this.remove(id);
  }

  private expire(id: string): void {
    const p = this.kept.get(id);
    if (!p) return;
    // One being imported is removed when its import ends (imports.ts).
    if (p.importing) p.expires = 0;
    else this.remove(id);
  }

  /** Folders no preview of this run holds and older than a preview lives: left by a run that ended abruptly. */
  private sweep(): void {
    for (const name of readdirSync(this.root)) {
      const path = join(this.root, name);
      try {
        if (!this.kept.has(name) && Date.now() - statSync(path).mtimeMs > this.ttl) rmSync(path, { recursive: true, force: true });
      } catch {
        // Gone meanwhile, or not ours to remove: left as it is.
      }
    }
  }
}
