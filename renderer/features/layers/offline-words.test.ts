import { describe, expect, it } from 'vitest';
import { areaWords, estimateWords, keepableWithout, pausedWords, progressWords, sizeWords } from './offline-words.ts';

describe('offline-area words', () => {
  it('say sizes in the unit a person reads', () => {
    expect(sizeWords(0)).toBe('0 bytes');
    expect(sizeWords(999)).toBe('999 bytes');
    expect(sizeWords(8_200)).toBe('8.2 KB');
    expect(sizeWords(820_000)).toBe('820 KB');
    expect(sizeWords(12_430_000)).toBe('12 MB');
    expect(sizeWords(1_234_000_000)).toBe('1.2 GB');
  });

  it('say the count and the estimate, or why there is none, or the refusal', () => {
    const e = { tiles: 1234, bytesEstimate: 15_600_000, sampled: 6, cap: 100_000, problem: null, sampleProblem: null };
    expect(estimateWords(e)).toBe('1,234 tiles, about 16 MB (estimated from 6 sample tiles).');
    expect(estimateWords({ ...e, bytesEstimate: null, sampled: 0, sampleProblem: 'No tile could be read to estimate the size: t.example.org answered 403.' }))
      .toBe('1,234 tiles. No tile could be read to estimate the size: t.example.org answered 403.');
    expect(estimateWords({ ...e, problem: 'The area at zooms 10–19 is …' })).toBe('The area at zooms 10–19 is …');
    expect(estimateWords({ ...e, bytesEstimate: 0, sampled: 5 })).toBe('1,234 tiles; the 5 sample tiles were all empty at the server: does it cover this area?');
    expect(estimateWords({ ...e, bytesEstimate: 0, sampled: 1 })).toBe('1,234 tiles; the sample tile was empty at the server: does it cover this area?');
  });

  it('say progress and where a download stopped', () => {
    expect(progressWords({ done: 1200, total: 4500, bytes: 14_200_000, failed: 0 })).toBe('1,200 of 4,500 tiles (26 %), 14 MB');
    expect(progressWords({ done: 1, total: 1, bytes: 900, failed: 2 })).toBe('1 of 1 tile (100 %), 900 bytes; 2 failed after retries');
    expect(pausedWords({ done: 200, total: 419 })).toBe('Paused at 200 of 419 tiles.');
    expect(pausedWords({ done: 300, total: 419 }, 1)).toBe('Paused at 300 of 419 tiles. 1 tile failed after retries: Resume tries it again.');
    // Only tiles that keep failing are left: the area may be kept without them.
    expect(pausedWords({ done: 418, total: 419 }, 1)).toBe('418 tiles of 419 downloaded; 1 tile failed after retries. Resume tries it again, or keep the area without it.');
    expect(pausedWords({ done: 417, total: 419 }, 2)).toBe('417 tiles of 419 downloaded; 2 tiles failed after retries. Resume tries them again, or keep the area without them.');
    expect(keepableWithout({ done: 418, total: 419, failed: 1 })).toBe(true);
    expect(keepableWithout({ done: 300, total: 419, failed: 1 })).toBe(false);
    expect(keepableWithout({ done: 419, total: 419, failed: 0 })).toBe(false);
  });

  it("say a layer's area kept", () => {
    expect(areaWords({ file: 'a'.repeat(32), bbox: [0, 0, 1, 1], minZoom: 13, maxZoom: 17, tiles: 2345, updated: '2026-05-04T10:00:00.000Z' }))
      .toBe('Area kept offline, updated 4 May 2026.');
    expect(areaWords({ file: 'a'.repeat(32), bbox: [0, 0, 1, 1], minZoom: 13, maxZoom: 17, tiles: 2345, updated: '2026-05-04T10:00:00.000Z', missing: 3 }))
      .toBe('Area kept offline without 3 tiles the server did not give, updated 4 May 2026. Update tries them again.');
    // Tiles the server answered empty (no imagery there) counted apart.
    expect(areaWords({ file: 'a'.repeat(32), bbox: [0, 0, 1, 1], minZoom: 13, maxZoom: 17, tiles: 9812, updated: '2026-05-04T10:00:00.000Z', empty: 188 }))
      .toBe('Area kept offline: 9,812 tiles kept, 188 empty (the server has no imagery there), updated 4 May 2026.');
    expect(areaWords({ file: 'a'.repeat(32), bbox: [0, 0, 1, 1], minZoom: 13, maxZoom: 17, tiles: 1, updated: '2026-05-04T10:00:00.000Z', missing: 1, empty: 1 }))
      .toBe('Area kept offline without 1 tile the server did not give; 1 tile kept, 1 empty (the server has no imagery there), updated 4 May 2026. Update tries it again.');
  });
});
