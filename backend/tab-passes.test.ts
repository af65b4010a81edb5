// The reconnect passes' store on real files: taken once, lapsing (a chain at its first pass's lapse), bounded,
// surviving a restart as digests only, proving the host to a tab, and never throwing when it cannot write.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_PASSES, passDigest, TabPasses } from './tab-passes.ts';
import { KEY_PATTERN, PASS_PATTERN } from '../core/tab-pass.ts';

let dir: string;
let file: string;
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'furrow-passes-')); file = join(dir, 'tab-passes.json'); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const DAY = 86_400_000;

describe('TabPasses', () => {
  it('lets a pass in once, after a restart too, and keeps only its digest, 0600', () => {
    const a = new TabPasses(file);
    const { pass, proofKey } = a.issue();
    expect(pass).toMatch(PASS_PATTERN);
    expect(proofKey).toMatch(KEY_PATTERN);
    expect(readFileSync(file, 'utf8')).not.toContain(pass);
    if (process.platform !== 'win32') for (const f of [file, join(dir, 'tab-passes.key')]) expect(statSync(f).mode & 0o777).toBe(0o600);
    const b = new TabPasses(file); // the next start reads what the last one wrote
    expect(b.redeem(pass)).toEqual(expect.any(Number));
    expect(b.redeem(pass)).toBeNull();
    expect(new TabPasses(file).redeem(pass)).toBeNull();
    expect(b.redeem('x'.repeat(43))).toBeNull();
  });

  it('refuses a lapsed pass, in the host that issued it too; a chain of passes ends at its first lapse', () => {
    let now = 1_000_000;
    const a = new TabPasses(file, () => now, 7 * DAY);
    const first = a.issue();
    now += 6 * DAY;
    const lapse = a.redeem(first.pass)!;
    expect(lapse).toBe(1_000_000 + 7 * DAY);
    // Handed in exchange: good until the first one's lapse, not 7 days from now.
    const second = a.issue(lapse);
    now += DAY + 1;
    expect(a.redeem(second.pass)).toBeNull();
    expect(new TabPasses(file, () => now, 7 * DAY).redeem(second.pass)).toBeNull();
  });

  it(`keeps the ${MAX_PASSES} newest, the oldest dropped first`, () => {
    const a = new TabPasses(file);
    const passes = Array.from({ length: MAX_PASSES + 1 }, () => a.issue().pass);
    const b = new TabPasses(file);
    expect(b.redeem(passes[0]!)).toBeNull();
    expect(b.redeem(passes[1]!)).not.toBeNull();
    expect(b.redeem(passes.at(-1)!)).not.toBeNull();
  });

  it("proves the host that issued a pass: its proof key's HMAC of a nonce, after a restart too, and nothing for others", () => {
    const a = new TabPasses(file);
    const { pass, proofKey } = a.issue();
    const nonce = 'ab'.repeat(16);
    const expected = createHmac('sha256', Buffer.from(proofKey, 'base64url')).update(nonce).digest('hex');
    expect(a.proof(passDigest(pass), nonce)).toBe(expected);
    expect(new TabPasses(file).proof(passDigest(pass), nonce)).toBe(expected);
    // Another home's host (another secret) cannot make it; an unknown digest, a bad nonce get nothing.
    const other = join(dir, 'other');
    mkdirSync(other);
    const elsewhere = new TabPasses(join(other, 'tab-passes.json'));
    writeFileSync(join(other, 'tab-passes.json'), readFileSync(file));
    expect(new TabPasses(join(other, 'tab-passes.json')).proof(passDigest(pass), nonce)).not.toBe(expected);
    expect(elsewhere.proof('0'.repeat(64), nonce)).toBeNull();
    expect(a.proof(passDigest(pass), 'not hex')).toBeNull();
    // Spent: no more proof for it.
    a.redeem(pass);
    expect(a.proof(passDigest(pass), nonce)).toBeNull();
  });

  it('never throws when it cannot write (the pass still spent, said once), and starts empty on a damaged file', () => {
    const said: string[] = [];
    const a = new TabPasses(file, Date.now, undefined, (l) => said.push(l));
    const { pass } = a.issue();
    mkdirSync(`${file}.${process.pid}.tmp`); // the write's temporary file cannot be made: EISDIR-like failures
    rmSync(file);
    mkdirSync(file); // nor the file renamed onto
    expect(a.redeem(pass)).not.toBeNull();
    expect(a.redeem(pass)).toBeNull();
    expect(() => a.issue()).not.toThrow();
    expect(said).toHaveLength(1);
    rmSync(file, { recursive: true });
    writeFileSync(file, '{not json');
    const b = new TabPasses(file);
    expect(b.redeem(b.issue().pass)).not.toBeNull();
    writeFileSync(file, JSON.stringify([{ digest: 'zz', lapses: 'soon' }]));
    expect(new TabPasses(file).redeem('zz')).toBeNull();
  });

  it('two hosts on one home never bring a spent pass back', () => {
    const a = new TabPasses(file);
    const b = new TabPasses(file);
    const { pass } = a.issue();
    const c = new TabPasses(file);
    expect(c.redeem(pass)).not.toBeNull();
    b.issue(); // b rewrites the file from what it holds and what the file says: never the pass c took
    a.issue();
    expect(new TabPasses(file).redeem(pass)).toBeNull();
  });
});
