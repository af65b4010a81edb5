// The files of the app's import previews (core/api-imports.ts): a dropped file's bytes kept on disk, in FURROW_HOME,
// between its preview and its import — on disk rather than in memory because the import reads a file (on its own
// thread, twice for a large GeoJSON) and a preview may wait minutes for the user. Each one in a folder only the user
// can read, named by a random id; removed once imported or discarded, when the account's next preview comes, after
// IMPORT_PREVIEW_TTL_MS, and when the backend closes. Folders an earlier run left (a crash) go once they are that old.
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

/** A dropped file's name as a file name: its last path segment, no control characters, no leading dots. */
export function safeFileName(name: string): string {
  const last = name.split(/[\\/]/).pop() ?? '';
  // The end is kept when shortening: the extension tells the format.
  const clean = [...last].filter((ch) => ch.charCodeAt(0) >= 0x20 && ch !== '\u007f').join('').trim().replace(/^\.+/, '').slice(-200).trim();
  return clean || 'import';
}

export class ImportPreviews {
  private readonly kept = new Map<string, KeptPreview & { timer: ReturnType<typeof setTimeout> }>();

  /** `root`: the folder of the previews' folders (FURROW_HOME/imports). */
  constructor(private readonly root: string, private readonly ttl = IMPORT_PREVIEW_TTL_MS) {}

  /** Writes the bytes to a new private folder and keeps them; the account's previous preview is removed. */
  keep(account: string, fileName: string, bytes: Uint8Array): KeptPreview {
    ensurePrivateDir(this.root);
    this.sweep();
    for (const p of this.kept.values()) if (p.account === account && !p.importing) this.remove(p.id);
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
    const p = { id, account, fileName: name, file, expires: Date.now() + this.ttl, importing: false, timer };
    this.kept.set(id, p);
    return p;
  }

  get(id: string): KeptPreview | undefined {
    return this.kept.get(id);
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
