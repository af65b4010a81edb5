// The reconnect passes the browser server hands its tabs (core/tab-pass.ts), kept across restarts in FURROW_HOME:
// only each pass's SHA-256 digest and when it lapses, in a 0600 file, so reading the file lets no one in. A pass is
// taken once (a copied one is worth one connection, and the tab that had it is then refused and told so), and the
// file holds at most MAX_PASSES, the oldest dropped first.
import { randomBytes, createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { PASS_TTL_MS } from '../core/tab-pass.ts';

/** Tabs remembered at once: more than anyone keeps open on one app. */
export const MAX_PASSES = 64;

interface Entry { digest: string; lapses: number }

const digestOf = (pass: string) => createHash('sha256').update(pass).digest('hex');

export class TabPasses {
  private entries: Entry[];

  constructor(private readonly file: string, private readonly now: () => number = Date.now, private readonly ttlMs = PASS_TTL_MS) {
    this.entries = this.read();
  }

  /** A new pass for a tab just let in. */
  issue(): string {
    const pass = randomBytes(32).toString('base64url');
    this.entries.push({ digest: digestOf(pass), lapses: this.now() + this.ttlMs });
    this.save();
    return pass;
  }

  /** Whether the pass is one of ours and still good; either way it is good no more. */
  redeem(pass: string): boolean {
    const digest = digestOf(pass);
    const before = this.entries.length;
    this.entries = this.entries.filter((e) => e.digest !== digest);
    if (this.entries.length === before) return false;
    this.save();
    return true;
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
    return this.live(raw.filter((e): e is Entry => typeof e?.digest === 'string' && /^[0-9a-f]{64}$/.test(e.digest) && Number.isFinite(e?.lapses)));
  }

  private save(): void {
    this.entries = this.live(this.entries);
    // Whole or not at all: a crash mid-write leaves the previous file, never half of one.
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(this.entries), { mode: 0o600 });
    renameSync(temp, this.file);
  }
}
