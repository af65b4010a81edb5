import { describe, expect, it } from 'vitest';
import { someCause } from './error-cause.ts';

const full = (e: { code?: unknown }) => e.code === 'SQLITE_FULL';

describe('someCause', () => {
  it('finds the code on the error or a few causes down', () => {
    expect(someCause({ code: 'SQLITE_FULL' }, full)).toBe(true);
    expect(someCause(new Error('store', { cause: new Error('request', { cause: { code: 'SQLITE_FULL' } }) }), full)).toBe(true);
    expect(someCause(new Error('other', { cause: { code: 'EPIPE' } }), full)).toBe(false);
  });

  it('stops at a bounded depth, so a cycle ends, and ignores what is no object', () => {
    const a: { cause?: unknown } = {};
    a.cause = a;
    expect(someCause(a, full)).toBe(false);
    expect(someCause(undefined, full)).toBe(false);
    expect(someCause('SQLITE_FULL', full)).toBe(false);
    let deep: unknown = { code: 'SQLITE_FULL' };
    for (let i = 0; i < 4; i++) deep = { cause: deep };
    expect(someCause(deep, full)).toBe(false);
  });
});
