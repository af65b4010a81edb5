import { describe, expect, it } from 'vitest';
import { rankOf } from './sequencer.ts';

describe('the order test files run in', () => {
  it('puts the chaos test first, end-to-end tests next, the rest after', () => {
    expect(rankOf('/repo/test/e2e/chaos.test.ts')).toBe(0);
    expect(rankOf('/repo/test/e2e/app-layers.test.ts')).toBe(1);
    expect(rankOf('C:\\repo\\test\\e2e\\map-scale.test.ts')).toBe(1);
    expect(rankOf('/repo/core/geo/area.test.ts')).toBe(2);
    expect(rankOf('/repo/test/helpers/sequencer.test.ts')).toBe(2);
  });
});
