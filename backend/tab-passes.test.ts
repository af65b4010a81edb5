// The reconnect passes' store on a real file: taken once, lapsing, bounded, surviving a restart as digests only.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_PASSES, TabPasses } from './tab-passes.ts';
import { PASS_PATTERN } from '../core/tab-pass.ts';

let dir: string;
let file: string;
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'furrow-passes-')); file = join(dir, 'tab-passes.json'); });
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('TabPasses', () => {
  it('lets a pass in once, after a restart too, and keeps only its digest', () => {
    const a = new TabPasses(file);
    const pass = a.issue();
    expect(pass).toMatch(PASS_PATTERN);
    expect(readFileSync(file, 'utf8')).not.toContain(pass);
    const b = new TabPasses(file); // the next start reads what the last one wrote
    expect(b.redeem(pass)).toBe(true);
    expect(b.redeem(pass)).toBe(false);
    expect(new TabPasses(file).redeem(pass)).toBe(false);
    expect(b.redeem('x'.repeat(43))).toBe(false);
  });

  it('forgets a pass once it lapses', () => {
    let now = 1_000_000;
    const a = new TabPasses(file, () => now, 60_000);
    const pass = a.issue();
    now += 60_001;
    expect(new TabPasses(file, () => now, 60_000).redeem(pass)).toBe(false);
  });

  it(`keeps the ${MAX_PASSES} newest, the oldest dropped first`, () => {
    const a = new TabPasses(file);
    const passes = Array.from({ length: MAX_PASSES + 1 }, () => a.issue());
    const b = new TabPasses(file);
    expect(b.redeem(passes[0]!)).toBe(false);
    expect(b.redeem(passes[1]!)).toBe(true);
    expect(b.redeem(passes.at(-1)!)).toBe(true);
  });

  it('starts empty on a damaged file rather than failing', () => {
    writeFileSync(file, '{not json');
    const a = new TabPasses(file);
    expect(a.redeem(a.issue())).toBe(true);
    writeFileSync(file, JSON.stringify([{ digest: 'zz', lapses: 'soon' }]));
    expect(new TabPasses(file).redeem('zz')).toBe(false);
  });
});
