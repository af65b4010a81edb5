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
//
// The loop is its own rather than core/json/scan.ts's number() and a check of its parts: the text is known to be JSON
// (it parsed), and JavaScript's form is read here in the same pass as the digits. Written over number(), the same
// check took 1.5–1.6 times as long over mirror-import's 100,000 polygons (interleaved pairs in one process).

import { BYTE } from '../../core/json/scan.ts';

const { COMMA, MINUS, DOT, ZERO, NINE, OPEN_BRACKET: OPEN, CLOSE_BRACKET: CLOSE } = BYTE;

/** Most significant digits a literal may have (DBL_DIG). */
const MAX_DIGITS = 15;
/** Zeros after "0." before the first digit, at most: 0.000001 prints as such, 0.0000001 as 1e-7. */
const MAX_LEADING_ZEROS = 5;

/** b[start, end): JSON array text of numbers. Returns it as a string when JSON.stringify would write it so. */
export function canonicalCoordinates(b: Uint8Array, start: number, end: number): string | null {
  return isCanonicalCoordinates(b, start, end) ? Buffer.from(b.buffer, b.byteOffset + start, end - start).toString('latin1') : null;
}

/** Whether b[start, end) is what JSON.stringify would write for the arrays of numbers it parses to (then all ASCII). */
export function isCanonicalCoordinates(b: Uint8Array, start: number, end: number): boolean {
  // Bracketed at both ends, so the digit loops below stop at a bracket at the latest: no bounds checks there.
  if (end - start < 2 || b[start] !== OPEN || b[end - 1] !== CLOSE) return false;
  let i = start;
  while (i < end) {
    let c = b[i]!;
    if (c === OPEN || c === CLOSE || c === COMMA) {
      i++;
      continue;
    }
    const negative = c === MINUS;
    if (negative) c = b[++i]!;
    const intStart = i;
    while (c >= ZERO && c <= NINE) c = b[++i]!;
    const intDigits = i - intStart;
    if (intDigits === 0 || (intDigits > 1 && b[intStart] === ZERO)) return false;
    let digits = intDigits;
    const zeroInt = intDigits === 1 && b[intStart] === ZERO;
    if (c === DOT) {
      c = b[++i]!;
      const fracStart = i;
      while (c === ZERO) c = b[++i]!;
      const leadingZeros = i - fracStart;
      while (c >= ZERO && c <= NINE) c = b[++i]!;
      const fracDigits = i - fracStart;
      if (fracDigits === 0 || b[i - 1] === ZERO) return false;
      // Below 1, the zeros after the point are not significant, but more than 5 print as an exponent.
      if (zeroInt && leadingZeros > MAX_LEADING_ZEROS) return false;
      digits = zeroInt ? fracDigits - leadingZeros : intDigits + fracDigits;
    } else if (zeroInt && negative) {
      return false; // -0 prints as 0
    }
    if (digits > MAX_DIGITS) return false;
    // A number ends at a comma or a bracket, never at a space, an exponent or anything else.
    if (c !== COMMA && c !== CLOSE) return false;
  }
  return true;
}
