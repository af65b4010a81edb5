// The shared scanner against JSON.parse, its oracle: what the strict functions accept is exactly what JSON.parse
// accepts (of the bytes' UTF-8, as a decoder gives it), the loose ones find where every valid value ends, and no
// function decides anything with bytes at or past `end` (a file read through a window holds stale bytes there).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BAD, MORE, member, memberName, number, seen, skipSpace, skipString, skipValue, string, text, value } from './scan.ts';

const RUNS = process.env.CI_LONG ? 5000 : 1000;
const encode = (s: string) => new TextEncoder().encode(s);
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

/** JSON.parse's verdict on the bytes' text. */
function parses(b: Uint8Array): boolean {
  try {
    JSON.parse(decode(b));
    return true;
  } catch {
    return false;
  }
}

/**
 * value()'s verdict on a whole text: one value, whitespace around it. A space is put after it: a number that ends the
 * bytes is MORE (digits could follow), and JSON.parse's verdict is the same with a space.
 */
function wholeValue(text: Uint8Array): boolean {
  const b = Uint8Array.from([...text, 0x20]);
  const i = value(b, skipSpace(b, 0, b.length), b.length);
  return i >= 0 && skipSpace(b, i, b.length) === b.length;
}

// JSON texts: any value, printed with any JSON whitespace between tokens (or JSON.stringify's indentation).
const ws = fc.constantFrom('', ' ', '\n', '\t', '\r\n ');
// Numbers in every form JSON has (and JavaScript writes), strings with escapes, quotes and non-ASCII, coordinates.
const numberText = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.integer().map(String),
  fc.double({ min: -180, max: 180, noNaN: true }).chain((x) => fc.integer({ min: 0, max: 12 }).map((d) => x.toFixed(d))),
  fc.tuple(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom('e', 'E+', 'e+')).map(([x, e]) => x.toExponential().replace('e+', e)),
  fc.constantFrom('0', '-0', '0.5', '-0.0001', '1E5', '1e-7', '12e+3', '123456789012345678901234567890'),
);
const stringValue = fc.string({ unit: fc.constantFrom('a', 'é', '🌾', '"', '\\', '/', '\n', '\u0001', '\u2028', '{', ']', ',', ':', ' ', 'u') });
const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false),
    numberText.map((t) => ({ raw: t })),
    stringValue,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(fc.tuple(fc.double({ min: -180, max: 180, noNaN: true }), fc.double({ min: -90, max: 90, noNaN: true })), { maxLength: 4 }).map((ring) => [ring]),
    fc.dictionary(stringValue, tie('value'), { maxKeys: 4 }),
  ),
})).value;
/** A value as text: JSON.stringify, except the raw number literals kept as written. */
function textOf(v: unknown, space: string): string {
  if (v !== null && typeof v === 'object' && 'raw' in v && Object.keys(v).length === 1) return (v as { raw: string }).raw;
  if (Array.isArray(v)) return `[${space}${v.map((x) => textOf(x, space)).join(`${space},${space}`)}${space}]`;
  if (v !== null && typeof v === 'object') {
    return `{${space}${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}${space}:${space}${textOf(x, space)}`).join(`${space},${space}`)}${space}}`;
  }
  return JSON.stringify(v);
}
const jsonText = fc.tuple(jsonValue, ws, ws).map(([v, space, around]) => `${around}${textOf(v, space)}${around}`);
// Broken ones: a byte deleted, doubled, or a byte put in (any byte, so also bytes that are not UTF-8).
const mutatedBytes = fc.tuple(jsonText, fc.nat(), fc.oneof(fc.constantFrom('delete', 'double'), fc.integer({ min: 0, max: 255 }), fc.constantFrom(...'"\\,:[]{}-+.eE0 tfn\u0000'.split('').map((c) => c.charCodeAt(0))))).map(([t, at, how]) => {
  const b = encode(t);
  const k = at % (b.length + 1);
  if (how === 'delete') return Uint8Array.from([...b.subarray(0, k), ...b.subarray(k + 1)]);
  if (how === 'double') return Uint8Array.from([...b.subarray(0, k), ...b.subarray(k, k + 1), ...b.subarray(k)]);
  return Uint8Array.from([...b.subarray(0, k), how, ...b.subarray(k)]);
});

describe('value (strict)', () => {
  it('accepts exactly what JSON.parse accepts', () => {
    fc.assert(fc.property(jsonText, (t) => {
      expect(JSON.parse(t), t).toBeDefined();
      expect(wholeValue(encode(t)), t).toBe(true);
    }), { numRuns: RUNS });
    fc.assert(fc.property(mutatedBytes, (b) => {
      expect(wholeValue(b), decode(b)).toBe(parses(b));
    }), { numRuns: RUNS * 5 });
  });

  it('accepts and refuses as JSON.parse does, case by case', () => {
    for (const t of ['0', '-0', '1.5e-3', '1E+2', '"a\\u00e9\\n"', '[]', '{}', '[1,[2,[3]],{"a":[4.5,-6]}]', ' [ 1 , 2 ] ', 'true', 'null', '[1,"a",2]', '[[1,2],[3,4]]', '{"a":{"b":{}}}']) {
      expect(wholeValue(encode(t)), t).toBe(true);
    }
    for (const t of ['', '01', '-', '1.', '.5', '1e', '+1', '[1,]', '[,1]', '[1 2]', '{"a":1,}', '{"a" 1}', '{a:1}', 'tru', 'nul', '"\\x"', '"\\u12G4"', '"a\u0001"', '"\u0000"', '[1]]', '[}', '{]', '\uFEFF1', 'NaN', "'a'", '[1,2', '{"a":[1,2]', '"abc']) {
      expect(wholeValue(encode(t)), JSON.stringify(t)).toBe(false);
    }
  });

  it('walks deep nesting without recursion', () => {
    const deep = 100_000;
    expect(wholeValue(encode(`${'['.repeat(deep)}${']'.repeat(deep)}`))).toBe(true);
    expect(wholeValue(encode(`${'{"a":['.repeat(deep)}1${']}'.repeat(deep)}`))).toBe(true);
    expect(wholeValue(encode(`${'['.repeat(deep)}${']'.repeat(deep - 1)}`))).toBe(false);
  });
});

describe('number (strict)', () => {
  it('reads a number literal exactly as JSON.parse does, and says where its dot and exponent are', () => {
    const candidate = fc.oneof(numberText, fc.string({ unit: fc.constantFrom('0', '1', '9', '-', '+', '.', 'e', 'E'), maxLength: 8 }));
    fc.assert(fc.property(candidate, fc.constantFrom(',', ']', '}', ' '), (t, after) => {
      const b = encode(`${t}${after}`);
      const end = number(b, 0, b.length);
      let isNumber: boolean;
      try {
        isNumber = typeof JSON.parse(t) === 'number';
      } catch {
        isNumber = false;
      }
      // A number is read to its end; anything else is BAD, or a shorter number followed by what JSON.parse refuses.
      if (isNumber) {
        expect(end, t).toBe(t.length);
        expect(seen.dot, t).toBe(t.indexOf('.'));
        expect(seen.exponent, t).toBe(t.search(/[eE]/));
      } else {
        expect(end === BAD || (end >= 0 && end < t.length), t).toBe(true);
      }
    }), { numRuns: RUNS * 3 });
  });

  it('says MORE for a number that reaches the end of the bytes, whatever lies past them', () => {
    for (const t of ['1', '-', '0', '12', '1.', '1.5', '1e', '1e+', '1e5']) {
      const b = encode(`${t}99.5e7]`);
      expect(number(b, 0, t.length), t).toBe(MORE);
      expect(number(encode(t), 0, t.length), t).toBe(MORE);
    }
  });
});

describe('string (strict) and skipString (loose)', () => {
  it('end where JSON.parse ends a string, and say whether it held an escape', () => {
    fc.assert(fc.property(stringValue, (s) => {
      const quoted = JSON.stringify(s);
      const b = encode(`${quoted},"x"`);
      const n = encode(quoted).length;
      expect(string(b, 0, b.length)).toBe(n);
      expect(seen.escaped).toBe(quoted.includes('\\'));
      expect(skipString(b, 0, b.length)).toBe(n);
      expect(seen.escaped).toBe(quoted.includes('\\'));
      expect(JSON.parse(text(b, 0, n))).toBe(s);
    }), { numRuns: RUNS });
  });

  it('say MORE for a string cut short, even by a window holding a quote past its end', () => {
    const b = encode('"abc\\"def"');
    for (let end = 1; end < b.length; end++) {
      expect(string(b, 0, end), `end ${end}`).toBe(MORE);
      expect(skipString(b, 0, end), `end ${end}`).toBe(MORE);
    }
  });
});

describe('skipValue and member (loose)', () => {
  it('find where every value ends, and where each member\'s value starts', () => {
    fc.assert(fc.property(jsonValue, ws, fc.constantFrom(',', ']', '}', ' '), (v, space, after) => {
      const t = textOf(v, space);
      const b = encode(`${t}${after}`);
      const n = encode(t).length;
      expect(skipValue(b, 0, b.length), t).toBe(n);
      // As a member's value: the key read loosely (its escapes followed), the value found after the colon.
      const key = JSON.stringify(t.slice(0, 5));
      const m = encode(`${key}${space}:${space}${t}${after}`);
      const at = member(m, 0, m.length);
      expect(text(m, seen.keyStart, seen.keyEnd)).toBe(key);
      expect(text(m, at, skipValue(m, at, m.length)), t).toBe(t);
      expect(memberName(m, 0, m.length)).toBe(at);
    }), { numRuns: RUNS });
  });

  it('say MORE, never an end, for a value the bytes cut short', () => {
    fc.assert(fc.property(jsonValue, ws, fc.nat(), (v, space, at) => {
      const t = textOf(v, space);
      const b = encode(`${t},`);
      const n = b.length - 1;
      const end = at % n; // a proper prefix (a value is never empty)
      // Past `end` the bytes are still there, as stale bytes would be in a window: they must decide nothing.
      expect(skipValue(b, 0, end), t.slice(0, end)).toBe(MORE);
      expect(value(b, 0, end), t.slice(0, end)).toBe(MORE);
    }), { numRuns: RUNS });
  });

  it('stop a primitive at a delimiter, and find none at a delimiter', () => {
    expect(skipValue(encode('true,'), 0, 5)).toBe(4);
    expect(skipValue(encode('-1.5e3]'), 0, 7)).toBe(6);
    expect(skipValue(encode(',1'), 0, 2)).toBe(BAD);
    expect(skipValue(encode(']'), 0, 1)).toBe(BAD);
    expect(skipValue(encode('12'), 0, 2)).toBe(MORE);
    // Loose: brackets are counted, not matched, and the pieces' JSON.parse checks the rest.
    expect(skipValue(encode('[1,}x'), 0, 5)).toBe(4);
  });
});

describe('member and memberName', () => {
  it('read `"key" : ` up to the value, refusing what is not a member', () => {
    const b = encode('"a\\"b" :\t[1]');
    expect(member(b, 0, b.length)).toBe(9);
    expect(text(b, seen.keyStart, seen.keyEnd)).toBe('"a\\"b"');
    expect(seen.escaped).toBe(true);
    expect(memberName(b, 0, b.length)).toBe(9);
    for (const t of ['a:1', '"a" 1', '"a",1']) expect(member(encode(t), 0, t.length), t).toBe(BAD);
    // Nothing after the colon yet: the value may be past the end.
    for (const t of ['"a"', '"a" ', '"a":', '"a": ']) expect(member(encode(t), 0, t.length), t).toBe(MORE);
    expect(memberName(encode('"\\x":1'), 0, 6)).toBe(BAD);
  });
});

describe('text', () => {
  it('decodes a range as a decoder of the whole would, a byte-order mark kept', () => {
    const b = encode('\uFEFF{"a":"Viña 🌾"}');
    expect(text(b, 0, b.length)).toBe('\uFEFF{"a":"Viña 🌾"}');
    expect(text(b, 3, b.length)).toBe('{"a":"Viña 🌾"}');
  });
});
