import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../test/helpers/process.ts';

// In a process of its own: the flags are the process's, and the tests share theirs.
const SCRIPT = `
import v8 from 'node:v8';
import { syncFlags } from './cli/v8-flags.ts';
if (process.argv[1] === 'set') syncFlags();
const size = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 1048576;
const sizes = [size()];
const keep = [];
// Objects that survive a few scavenges, as a push's groups do.
for (let i = 0; i < 3e6 && sizes.length < 4; i++) {
  keep.push({ i, s: 'x'.repeat(20) + i });
  if (keep.length > 200000) keep.length = 0;
  const s = size();
  if (s !== sizes.at(-1)) sizes.push(s);
}
console.log(JSON.stringify(sizes));`;

const growth = (set: boolean): number[] => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT, set ? 'set' : 'unset'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as number[];
};

describe('syncFlags', () => {
  it('grows the young generation to V8\'s largest at its first growth under load, instead of doubling it step by step', () => {
    const steps = (sizes: number[]) => sizes.slice(1).map((s, i) => s / sizes[i]!);
    // V8 reports both semi-spaces: 32 MB is 16 MB each, its largest. Where it starts depends on the start-up.
    const withFlags = growth(true);
    expect(withFlags.at(-1), JSON.stringify(withFlags)).toBe(32);
    expect(Math.max(...steps(withFlags)), JSON.stringify(withFlags)).toBeGreaterThanOrEqual(8);
    const without = growth(false);
    expect(steps(without), JSON.stringify(without)).toEqual(steps(without).map(() => 2));
  });
});
