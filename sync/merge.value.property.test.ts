// Property tests of the JSON-value building blocks of sync/merge.ts: mergeValue's three-way table and jsonEqual's
// structural equality.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonEqual, mergeValue } from './merge.ts';
import { canon, opts, reorder, same } from './merge.test-helpers.ts';

describe('mergeValue', () => {
  const v = fc.jsonValue({ maxDepth: 2 });
  it('follows the three-way table: same on both sides, one side changed, or a conflict keeping mine', () => {
    fc.assert(fc.property(fc.oneof(
      v.chain((b) => fc.tuple(fc.constant(b), fc.oneof(fc.constant(b), v), fc.oneof(fc.constant(b), v))),
      fc.tuple(v, v, v),
    ), ([b, m, t]) => {
      const r = mergeValue(b, m, t);
      const want = same(m, t) ? { value: m, conflict: false } : same(b, m) ? { value: t, conflict: false } : same(b, t) ? { value: m, conflict: false } : { value: m, conflict: true };
      expect(r.conflict).toBe(want.conflict);
      expect(canon(r.value)).toBe(canon(want.value));
      // Symmetric in its conflict verdict.
      expect(mergeValue(b, t, m).conflict).toBe(r.conflict);
    }), opts());
  });
});

describe('jsonEqual', () => {
  const v = fc.jsonValue({ maxDepth: 3 });
  it('key order does not matter', () => {
    fc.assert(fc.property(v, (x) => {
      expect(jsonEqual(x, reorder(x))).toBe(true);
      expect(jsonEqual(reorder(x), x)).toBe(true);
    }), opts());
  });

  it('is structural equality of JSON values: reflexive, symmetric, and the same verdict as canonical JSON', () => {
    const pair = fc.oneof(
      fc.tuple(v, v),
      v.map((x) => [x, JSON.parse(JSON.stringify(x)) as unknown] as const),
      // Near misses: the same object with one key's value changed, or one key more.
      fc.tuple(fc.dictionary(fc.string({ maxLength: 4 }), v, { maxKeys: 4 }), fc.string({ maxLength: 4 }), v)
        .map(([o, k, x]) => [o, { ...o, [k]: x }] as const),
    );
    fc.assert(fc.property(pair, ([a, b]) => {
      expect(jsonEqual(a, a)).toBe(true);
      expect(jsonEqual(a, b)).toBe(jsonEqual(b, a));
      expect(jsonEqual(a, b)).toBe(canon(a) === canon(b));
    }), opts());
  });

  it('tells arrays from objects, null from an empty object, and a number from its string', () => {
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual({ 0: 'a' }, ['a'])).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual(1, '1')).toBe(false);
    expect(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
  });
});
