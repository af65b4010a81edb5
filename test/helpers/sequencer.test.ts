import { describe, expect, it } from 'vitest';
import { durationKey, longestFirst, rankOf } from './sequencer.ts';

describe('the order test files run in', () => {
  it('puts the chaos test first, end-to-end tests next, the rest after, for files not measured yet', () => {
    expect(rankOf('/repo/test/e2e/chaos.test.ts')).toBe(0);
    expect(rankOf('/repo/test/e2e/app-layers.test.ts')).toBe(1);
    expect(rankOf('C:\\repo\\test\\e2e\\map-scale.test.ts')).toBe(1);
    expect(rankOf('/repo/core/geo/area.test.ts')).toBe(2);
    expect(rankOf('/repo/test/helpers/sequencer.test.ts')).toBe(2);
  });

  it('runs the longest measured files first, keeping the given order among equals', () => {
    const s: Record<string, number> = { a: 1, b: 30, c: 1, d: 200, e: 30 };
    expect(longestFirst(['a', 'b', 'c', 'd', 'e'], (f) => s[f]!)).toEqual(['d', 'b', 'e', 'a', 'c']);
  });

  it('keys a file by its project and its path from the root', () => {
    expect(durationKey('postgres', '/repo', '/repo/service/app.test.ts')).toBe('postgres service/app.test.ts');
  });
});
