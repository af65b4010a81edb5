// Property tests of the pure three-way merge of crops (mergeCrop in sync/merge.ts): crop rows with nulls edited field
// by field on both sides of a pull or a PATCH.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CropState } from '../db/types.ts';
import { mergeCrop } from './merge.ts';
import { canon, opts, same } from './merge.test-helpers.ts';

const dateArb = fc.oneof(fc.constantFrom('2024-11-01', '2025-06-30'), fc.date({ min: new Date('2000-01-01'), max: new Date('2040-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)));
const cropArb: fc.Arbitrary<CropState> = fc.record({
  name: fc.option(fc.oneof(fc.constantFrom('Wheat', 'Barley'), fc.string({ maxLength: 10 }))),
  campaign: fc.option(fc.constantFrom('2024', '2025', '2024/25')),
  area: fc.option(fc.oneof(fc.constantFrom(1.5, 10), fc.double({ min: 0, max: 1000, noNaN: true }))),
  variety: fc.option(fc.string({ maxLength: 8 })),
  harvested_qty: fc.option(fc.double({ min: 0, max: 1e6, noNaN: true })),
  sowing: fc.option(dateArb),
  closure: fc.option(dateArb),
  is_active: fc.boolean(),
  family_id: fc.option(fc.integer({ min: 1, max: 5 })),
});
const CROP_FIELDS = ['name', 'campaign', 'area', 'variety', 'harvested_qty', 'sowing', 'closure', 'is_active', 'family_id'] as const;

function editedCropArb(base: CropState): fc.Arbitrary<CropState> {
  return fc.tuple(cropArb, fc.array(fc.boolean(), { minLength: CROP_FIELDS.length, maxLength: CROP_FIELDS.length })).map(([other, change]) => {
    const out: CropState = { ...base };
    CROP_FIELDS.forEach((f, i) => { if (change[i]) (out as unknown as Record<string, unknown>)[f] = other[f]; });
    return out;
  });
}
const cropTripleArb: fc.Arbitrary<[CropState, CropState, CropState]> = fc.oneof(
  { weight: 5, arbitrary: cropArb.chain((b) => fc.tuple(fc.constant(b), editedCropArb(b), editedCropArb(b))) },
  { weight: 1, arbitrary: fc.tuple(cropArb, cropArb, cropArb) },
);

describe('mergeCrop', () => {
  it('identity, one-sided edits and identical edits: no conflicts, and the expected state', () => {
    fc.assert(fc.property(cropTripleArb, ([b, m]) => {
      // Compared as JSON (what goes on the wire): 0 and -0 are one value there, as they are to jsonEqual.
      for (const [mine, theirs, want] of [[b, b, b], [m, b, m], [b, m, m], [m, { ...m }, m]] as const) {
        const r = mergeCrop(b, mine, theirs);
        expect(r.conflicts).toEqual([]);
        expect(canon(r.merged)).toBe(canon(want));
      }
    }), opts());
  });

  it('conflicts are exactly the fields changed differently on both sides; the rest takes whichever side changed', () => {
    fc.assert(fc.property(cropTripleArb, ([b, m, t]) => {
      const { merged, conflicts } = mergeCrop(b, m, t);
      const expected = CROP_FIELDS.filter((f) => !same(b[f], m[f]) && !same(b[f], t[f]) && !same(m[f], t[f]));
      expect([...conflicts].sort()).toEqual([...expected].sort());
      for (const f of CROP_FIELDS) {
        const want = expected.includes(f) ? m[f] : same(b[f], m[f]) ? t[f] : m[f];
        expect(canon(merged[f]), f).toBe(canon(want));
      }
      expect(Object.keys(merged).sort()).toEqual([...CROP_FIELDS].sort());
    }), opts(500));
  });

  it('symmetry and idempotence', () => {
    fc.assert(fc.property(cropTripleArb, ([b, m, t]) => {
      const a = mergeCrop(b, m, t);
      const z = mergeCrop(b, t, m);
      expect([...z.conflicts].sort()).toEqual([...a.conflicts].sort());
      if (a.conflicts.length === 0) expect(canon(z.merged)).toBe(canon(a.merged));
      const again = mergeCrop(b, a.merged, a.merged);
      expect(again.conflicts).toEqual([]);
      expect(canon(again.merged)).toBe(canon(a.merged));
    }), opts());
  });
});
