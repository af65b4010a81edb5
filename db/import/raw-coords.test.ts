// Reusing the file's text for a geometry must never store anything JSON.stringify would not have written.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonicalCoordinates } from './raw-coords.ts';

const bytes = (s: string) => new TextEncoder().encode(s);
const check = (text: string) => canonicalCoordinates(bytes(text), 0, text.length);

// A number as files write them: JavaScript's form, fixed decimals, exponents, padded, signed zeros…
const literal = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.double({ min: -180, max: 180, noNaN: true }).chain((x) => fc.integer({ min: 0, max: 20 }).map((d) => x.toFixed(d))),
  fc.double({ min: -180, max: 180, noNaN: true }).chain((x) => fc.integer({ min: 1, max: 21 }).map((d) => x.toPrecision(d))),
  fc.double({ min: -1e-3, max: 1e-3, noNaN: true }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => x.toExponential()),
  fc.constantFrom('0', '-0', '0.0', '1.50', '-0.000001', '0.0000001', '123456789012345', '1234567890123456', '0.123456789012345', '0.1234567890123456', '1e5', '100'),
);
const coordinates = fc.array(fc.array(fc.array(literal, { minLength: 2, maxLength: 3 }), { maxLength: 4 }), { minLength: 1, maxLength: 2 });
const write = (v: unknown, sep: string): string => (Array.isArray(v) ? `[${v.map((x) => write(x, sep)).join(`,${sep}`)}]` : String(v));

describe('canonicalCoordinates', () => {
  it('returns the text only when it is exactly what JSON.stringify writes for what it parses to', () => {
    fc.assert(fc.property(coordinates, fc.constantFrom('', ' ', '\n'), (coords, sep) => {
      const text = write(coords, sep);
      let canonical: string;
      try {
        canonical = JSON.stringify(JSON.parse(text));
      } catch {
        return; // toFixed and friends write some things JSON does not read; the parse refuses those first
      }
      const got = check(text);
      if (got !== null) expect(got).toBe(canonical);
      // What JavaScript itself wrote for a parcel-sized number comes back as it is.
      if (text === canonical && !/e/i.test(text) && /^[[\],\d.-]*$/.test(text) && text.split(/[[\],]/).every((n) => n.replace(/[-.]/g, '').replace(/^0+/, '').length <= 15)) {
        expect(got).toBe(text);
      }
    }), { numRuns: 3000 });
  });

  it('takes coordinates as GIS tools write them, and refuses what would print differently', () => {
    expect(check('[[[-3.1234567,37.1],[0,0.5],[-0.000001,100],[12.25,-7]]]')).toBe('[[[-3.1234567,37.1],[0,0.5],[-0.000001,100],[12.25,-7]]]');
    for (const text of ['[[[1.50,2]]]', '[[[-0,2]]]', '[[[1e5,2]]]', '[[[1, 2]]]', '[[[0.0000001,2]]]', '[[[0.1234567890123456,2]]]', '[[[1234567890123456,2]]]', '[[["1",2]]]', '[[[null,2]]]', '{}', '[[[01,2]]]']) {
      expect(check(text), text).toBeNull();
    }
  });
});
