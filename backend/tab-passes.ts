// The reconnect passes the browser server hands its tabs (core/tab-pass.ts), kept across restarts in FURROW_HOME:
// only each pass's SHA-256 digest and when it lapses, in a 0600 file, so reading the file lets no one in. A pass is
// taken once (a copied one is worth one connection, and the tab that had it is then refused and told so); the pass
// handed in exchange keeps the first one's lapse, so a chain of passes ends PASS_TTL_MS after the tab came in with the
// printed address, stolen or not. The file holds at most MAX_PASSES, the oldest dropped first. Beside it, the host's
// secret (tab-passes.key, 0600) from which each pass's proof key is made: the server's proof, to a tab, that it is the
// app and not whatever took the port while the app was stopped.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { DIGEST_PATTERN, NONCE_PATTERN, PASS_TTL_MS } from '../core/tab-pass.ts';

/** Tabs remembered at once: more than anyone keeps open on one app. */
export const MAX_PASSES = 64;

interface Entry { digest: string; lapses: number }

export const passDigest = (pass: string): string => createHash('sha256').update(pass).digest('hex');

/** A file written whole or not at all, 0600 from its first byte (a temporary file left wider by a crash is removed first). */
function writePrivate(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  rmSync(temp, { force: true });
  writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
  renameSync(temp, file);
}

export class TabPasses {
  private entries: Entry[];
  /** Digests taken here: never written back, even when another host's file still lists them. */
  private readonly spent = new Set<string>();
  /** Digests the file held at the last read or write: one gone from it since was taken by another host on this home. */
  private written = new Set<string>();
  private readonly secret: Buffer;
  private warned = false;

  constructor(private readonly file: string, private readonly now: () => number = Date.now, private readonly ttlMs = PASS_TTL_MS,
    private readonly warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`)) {
    this.entries = this.read();
    this.written = new Set(this.entries.map((e) => e.digest));
    this.secret = this.loadSecret(`${file.replace(/\.json$/, '')}.key`);
  }

  /** A new pass for a tab just let in (by the launch token: a fresh lapse; by a pass: `lapses`, that pass's), and its proof key. */
  issue(lapses = this.now() + this.ttlMs): { pass: string; proofKey: string } {
    const pass = randomBytes(32).toString('base64url');
    const digest = passDigest(pass);
    this.entries.push({ digest, lapses });
    this.save();
    return { pass, proofKey: this.proofKey(digest).toString('base64url') };
  }

  /** The pass's lapse when it is one of ours and still good, else null; either way it is good no more. Never throws. */
  redeem(pass: string): number | null {
    const digest = passDigest(pass);
    const found = this.live(this.entries).find((e) => e.digest === digest) ?? null;
    this.spent.add(digest);
    this.entries = this.entries.filter((e) => e.digest !== digest);
    this.save();
    return found?.lapses ?? null;
  }

  /** The server's answer to a tab's challenge: the proof key's HMAC of `nonce`, for a digest still good; else null. */
  proof(digest: string, nonce: string): string | null {
    if (!DIGEST_PATTERN.test(digest) || !NONCE_PATTERN.test(nonce)) return null;
    if (!this.live(this.entries).some((e) => e.digest === digest)) return null;
    return createHmac('sha256', this.proofKey(digest)).update(nonce).digest('hex');
  }

  private proofKey(digest: string): Buffer {
    return createHmac('sha256', this.secret).update(digest).digest();
  }

  private live(entries: Entry[]): Entry[] {
    const t = this.now();
    return entries.filter((e) => e.lapses > t).slice(-MAX_PASSES);
  }

  private read(): Entry[] {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch {
      return []; // none yet, or unreadable: every open tab is asked for the printed address, nothing worse
    }
    if (!Array.isArray(raw)) return [];
    return this.live(raw.filter((e): e is Entry => typeof e?.digest === 'string' && DIGEST_PATTERN.test(e.digest) && Number.isFinite(e?.lapses)));
  }

  private loadSecret(path: string): Buffer {
    try {
      const b = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64url');
      if (b.length === 32) return b;
    } catch { /* none yet */ }
    const fresh = randomBytes(32);
    try {
      writePrivate(path, fresh.toString('base64url'));
    } catch (err) {
      this.say(err); // kept for this run only: a tab open now can prove this host until it stops
    }
    return fresh;
  }

  /**
   * Written merged with what the file holds (another host on the same home may have issued since), less what was
   * taken here. A failure (the disk full, the home read-only) is said once and never thrown: the tabs work now, and
   * after a restart are asked for the printed address.
   */
  private save(): void {
    const disk = this.read();
    const onDisk = new Set(disk.map((e) => e.digest));
    const mine = new Set(this.entries.map((e) => e.digest));
    // Ours, unless the file had it and no longer has: then another host took it.
    const kept = this.entries.filter((e) => onDisk.has(e.digest) || !this.written.has(e.digest));
    const merged = [...disk.filter((e) => !mine.has(e.digest)), ...kept].filter((e) => !this.spent.has(e.digest));
    this.entries = this.live(merged.sort((a, b) => a.lapses - b.lapses));
    try {
      writePrivate(this.file, JSON.stringify(this.entries));
      this.written = new Set(this.entries.map((e) => e.digest));
    } catch (err) {
      this.say(err);
    }
  }

  private say(err: unknown): void {
    if (this.warned) return;
    this.warned = true;
    this.warn(`Browser tabs cannot be remembered across restarts (${(err as NodeJS.ErrnoException).code ?? 'write failed'}): a tab left open will need the printed address.`);
  }
}
