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

  it('runs the short files after the long ones, one project after another, so that a worker keeps its process', () => {
    const s: Record<string, number> = { 'x/a': 2, 'y/b': 3, 'x/c': 12, 'y/d': 1, 'x/e': 5, 'y/f': 40 };
    expect(longestFirst(Object.keys(s), (f) => s[f]!, (f) => f.split('/')[0]!)).toEqual(['y/f', 'x/c', 'x/e', 'x/a', 'y/b', 'y/d']);
  });

  it('keys a file by its project and its path from the root', () => {
    expect(durationKey('postgres', '/repo', '/repo/service/app.test.ts')).toBe('postgres service/app.test.ts');
  });
});
