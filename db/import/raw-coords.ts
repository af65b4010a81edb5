// A polygon's coordinates as the file wrote them, when that is exactly what JSON.stringify would write: then
// the stored geometry reuses the file's text instead of printing some 50 numbers again (number printing was a
// tenth of what a worker spent per parcel). Anything else — whitespace, an exponent, a trailing zero, more
// digits than a double holds — returns null and the geometry is serialized as usual.
//
// Why the check is enough: the text parsed (as part of its feature) into these very arrays, so with no
// whitespace the structure prints back identically, and a number literal prints back identically when it is
// in JavaScript's own form. A decimal of at most 15 significant digits is the only decimal of at most that
// many digits naming its double (doubles hold 15.95 digits), so the shortest form JavaScript prints has those
// same digits; between 1e-6 and 1e21 it prints them without an exponent, as the literal has them.

const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN = 0x5b;
const CLOSE = 0x5d;

/** Most significant digits a literal may have (DBL_DIG). */
const MAX_DIGITS = 15;
/** Zeros after "0." before the first digit, at most: 0.000001 prints as such, 0.0000001 as 1e-7. */
const MAX_LEADING_ZEROS = 5;

const isDigit = (c: number) => c >= ZERO && c <= NINE;

/** b[start, end): JSON array text of numbers. Returns it as a string when JSON.stringify would write it so. */
export function canonicalCoordinates(b: Uint8Array, start: number, end: number): string | null {
  if (b[start] !== OPEN) return null;
  let i = start;
  while (i < end) {
    const c = b[i]!;
    if (c === OPEN || c === CLOSE || c === COMMA) {
      i++;
      continue;
    }
    i = number(b, i, end);
    if (i < 0) return null;
    // A number ends at a comma or a bracket, never at a space or anything else.
    if (i < end && b[i] !== COMMA && b[i] !== CLOSE) return null;
  }
  return Buffer.from(b.buffer, b.byteOffset + start, end - start).toString('latin1');
}

/** Just past a canonical number literal at i, or -1. */
function number(b: Uint8Array, i: number, end: number): number {
  const negative = b[i] === MINUS;
  if (negative) i++;
  const intStart = i;
  while (i < end && isDigit(b[i]!)) i++;
  const intDigits = i - intStart;
  if (intDigits === 0 || (intDigits > 1 && b[intStart] === ZERO)) return -1;
  const zeroInt = intDigits === 1 && b[intStart] === ZERO;
  let fracDigits = 0;
  let leadingZeros = 0;
  if (i < end && b[i] === DOT) {
    i++;
    const fracStart = i;
    while (i < end && isDigit(b[i]!)) i++;
    fracDigits = i - fracStart;
    if (fracDigits === 0 || b[i - 1] === ZERO) return -1;
    while (b[fracStart + leadingZeros] === ZERO) leadingZeros++;
  }
  if (zeroInt) {
    // "0" is how 0 and -0 print; "-0" is not.
    if (fracDigits === 0) return negative ? -1 : i;
    if (leadingZeros > MAX_LEADING_ZEROS || fracDigits - leadingZeros > MAX_DIGITS) return -1;
    return i;
  }
  return intDigits + fracDigits > MAX_DIGITS ? -1 : i;
}
