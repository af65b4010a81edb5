// The arithmetic every comparative benchmark reports (bench/lib): one median, pair ratios, and pairs that alternate
// which side goes first and release each pair's fixtures before the next pair starts.
import { describe, expect, it } from 'vitest';
import { median } from '../bench/lib/stats.ts';
import { interleaved, pairStats } from '../bench/lib/pairs.ts';

describe('median', () => {
  it('is the middle value of an odd count and the mean of the two middle values of an even one, in any order', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
    expect(median([])).toBeNaN();
  });
});

describe('pairStats', () => {
  it('reports the median, lowest and highest of the per-pair ratios, never one side\'s best against the other\'s', () => {
    // Side a's best (90) and side b's best (100) would give 0.9; the pairs say otherwise.
    const s = pairStats([110, 90, 120, 100], [100, 60, 100, 100]);
    expect(s.ratios).toEqual([1.1, 1.5, 1.2, 1]);
    expect(s).toMatchObject({ median: 1.15, min: 1, max: 1.5 });
  });

  it('refuses sides of different lengths', () => {
    expect(() => pairStats([1, 2], [1])).toThrow();
  });
});

describe('interleaved', () => {
  it('alternates which side goes first and releases each pair before preparing the next', async () => {
    const log: string[] = [];
    const r = await interleaved(3, async (i) => { log.push(`prepare ${i}`); return i; },
      async (f) => { log.push(`a ${f}`); return { value: 2 }; },
      async (f) => { log.push(`b ${f}`); return { value: 1 }; },
      undefined, (f) => { log.push(`release ${f}`); });
    expect(log).toEqual(['prepare 0', 'a 0', 'b 0', 'release 0', 'prepare 1', 'b 1', 'a 1', 'release 1', 'prepare 2', 'a 2', 'b 2', 'release 2']);
    expect(r.stats.median).toBe(2);
  });

  it('releases the fixtures of a pair whose side failed', async () => {
    const released: number[] = [];
    await expect(interleaved(2, async (i) => i, async () => { throw new Error('side a broke'); }, async () => ({ value: 1 }), undefined,
      (f) => { released.push(f); })).rejects.toThrow('side a broke');
    expect(released).toEqual([0]);
  });
});
