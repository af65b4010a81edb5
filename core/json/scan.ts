// The byte-level JSON scanner the hand-written readers share: they read JSON text faster than JSON.parse where the
// caller needs only part of it. service/json-split.ts splits a large request body into its parcels,
// db/import/split-scanner.ts (with geojson-split.ts) splits a GeoJSON file into features through a moving window,
// sync/created-scan.ts reads a bulk create's 201 for three fields per feature; each keeps only its own purpose on top
// of what is here. db/import/raw-coords.ts (is a coordinates text what JSON.stringify writes?) shares the byte values
// and keeps its own loop: see there why.
//
// Every function reads the UTF-8 bytes b[i, end) and returns an index: just past what it read, or
//   BAD  (-1) the bytes there are not what it reads;
//   MORE (-2) it reached `end` before what it reads ended. Bytes past `end` could complete it (a file read through a
//             window: read more and scan again from the same place); for a whole text, it is not JSON either.
// Nothing at or past `end` decides anything, so a window may hold stale bytes there.
//
// Two strengths:
// - loose (skipString, skipValue, member): finds where a value ends, following strings (their escapes) and
//   brackets, checking nothing else: for splitting text whose pieces JSON.parse reads afterwards;
// - strict (string, number, value): checks the grammar as JSON.parse reads it (RFC 8259), for a reader that answers
//   without JSON.parse. Bytes of 0x80 and up are taken as they are inside strings (a decoder makes U+FFFD of those
//   that are not UTF-8, as the decoder before JSON.parse would) and refused anywhere else.
//
// What a scan sees besides its end (a string's escapes, a number's parts, a member's key) is left in `seen`.

// Byte values. Module constants of this file, as in the modules that destructure BYTE: V8 folds those into the code
// that reads them, but loads an exported binding from its cell at every read (a third more time per byte in the
// coordinates loop of skipValue).
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** Byte values, to destructure into module constants: `const { QUOTE, COMMA } = BYTE;`. */
export const BYTE = { QUOTE, BACKSLASH, COMMA, COLON, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET, MINUS, PLUS, DOT, ZERO, NINE } as const;

export const BAD = -1;
export const MORE = -2;

// Byte classes; 0 for any other byte, as most bytes of GeoJSON are (coordinates: digits, commas, dots, minus signs).
const STRING = 1;
const OPEN = 2;
const CLOSE = 3;
const SPACE = 4;
const SEPARATOR = 5; // a comma
const CLASS = new Uint8Array(256);
CLASS[QUOTE] = STRING;
CLASS[OPEN_BRACE] = OPEN;
CLASS[OPEN_BRACKET] = OPEN;
CLASS[CLOSE_BRACE] = CLOSE;
CLASS[CLOSE_BRACKET] = CLOSE;
for (const c of [0x20, 0x09, 0x0a, 0x0d]) CLASS[c] = SPACE;
CLASS[COMMA] = SEPARATOR;

/** JSON's whitespace: space, tab, line feed, carriage return. */
export const isSpace = (c: number): boolean => CLASS[c] === SPACE;

/** What the last scan saw besides where it ended: `seen` to the modules that read it (`saw` here, as for BYTE). */
const saw = {
  /** skipString, string, member: the string (the key) held an escape. */
  escaped: false,
  /** number: where its fraction's dot and its exponent's `e` are, -1 for none (an integer has neither). */
  dot: -1,
  exponent: -1,
  /** member: its key's bytes, quotes included. */
  keyStart: 0,
  keyEnd: 0,
};
export const seen: Readonly<typeof saw> = saw;

/** The first byte from i on that is not whitespace (`end` when there is none). */
export function skipSpace(b: Uint8Array, i: number, end: number): number {
  while (i < end && CLASS[b[i]!] === SPACE) i++;
  return i;
}

/** Whether b[start, end) are the bytes of `what`. */
export function bytesAre(b: Uint8Array, start: number, end: number, what: Uint8Array): boolean {
  if (end - start !== what.length) return false;
  for (let k = 0; k < what.length; k++) if (b[start + k] !== what[k]) return false;
  return true;
}

/** ASCII text as bytes, to compare with bytesAre. */
export const ascii = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));

// ---- Loose ----

/** Just past the string whose quote is at b[i], following its escapes and checking nothing else; or MORE. */
export function skipString(b: Uint8Array, i: number, end: number): number {
  let escaped = false;
  for (i++; i < end; i++) {
    const c = b[i];
    if (c === QUOTE) {
      saw.escaped = escaped;
      return i + 1;
    }
    if (c === BACKSLASH) {
      escaped = true;
      i++;
    }
  }
  return MORE;
}

/**
 * Just past the value at b[i], found loosely: a string or a bracket is followed to its end (any closing bracket
 * closes any opening one), anything else runs to the next comma, closing bracket or whitespace. BAD when nothing is
 * there, MORE when it runs to `end`.
 */
export function skipValue(b: Uint8Array, i: number, end: number): number {
  if (i >= end) return MORE;
  const k = CLASS[b[i]!];
  if (k === STRING) return skipString(b, i, end);
  if (k === OPEN) {
    let depth = 0;
    while (i < end) {
      const c = b[i]!;
      // Digits, commas, dots and minus signs first: coordinates are most of a file.
      if (c >= COMMA && c <= NINE) {
        i++;
        continue;
      }
      const d = CLASS[c];
      if (d === STRING) {
        i = skipString(b, i, end);
        if (i < 0) return MORE;
      } else if (d === OPEN) {
        depth++;
        i++;
      } else if (d === CLOSE) {
        i++;
        if (--depth === 0) return i;
      } else {
        i++;
      }
    }
    return MORE;
  }
  const start = i;
  for (; i < end; i++) {
    const d = CLASS[b[i]!]!;
    if (d >= CLOSE && d <= SEPARATOR) return i > start ? i : BAD;
  }
  return MORE;
}

/**
 * The member of an object whose key's quote is at b[i] (loose): past `"key"`, the colon and the whitespace, the index
 * of its value's first byte. Its key's bytes go to seen.keyStart/keyEnd, whether it held an escape to seen.escaped.
 */
export function member(b: Uint8Array, i: number, end: number): number {
  if (i >= end) return MORE;
  if (b[i] !== QUOTE) return BAD;
  const keyEnd = skipString(b, i, end);
  if (keyEnd < 0) return keyEnd;
  saw.keyStart = i;
  saw.keyEnd = keyEnd;
  return colon(b, keyEnd, end);
}

/** After a key: past the whitespace, the colon and the whitespace to the value (there must be a byte there); BAD or MORE. */
function colon(b: Uint8Array, i: number, end: number): number {
  i = skipSpace(b, i, end);
  if (i >= end) return MORE;
  if (b[i] !== COLON) return BAD;
  i = skipSpace(b, i + 1, end);
  return i < end ? i : MORE;
}

// ---- Strict ----

// Inside a string: what is not an ordinary character (the quote, the backslash, control characters).
const IN_STRING = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) IN_STRING[c] = 1;
IN_STRING[QUOTE] = 1;
IN_STRING[BACKSLASH] = 1;
// What may follow a backslash besides `u`.
const ESCAPE = new Uint8Array(256);
for (const c of '"\\/bfnrt') ESCAPE[c.charCodeAt(0)] = 1;
const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

/** Just past the JSON string whose quote is at b[i], its escapes and characters checked; BAD or MORE. Sets seen.escaped. */
export function string(b: Uint8Array, i: number, end: number): number {
  let escaped = false;
  for (i++; i < end; i++) {
    const c = b[i]!;
    if (IN_STRING[c] === 0) continue;
    if (c === QUOTE) {
      saw.escaped = escaped;
      return i + 1;
    }
    if (c !== BACKSLASH) return BAD; // a control character
    escaped = true;
    if (++i >= end) return MORE;
    const e = b[i]!;
    if (e === 0x75) { // \uXXXX
      if (i + 4 >= end) return MORE;
      if (!(HEX[b[i + 1]!] && HEX[b[i + 2]!] && HEX[b[i + 3]!] && HEX[b[i + 4]!])) return BAD;
      i += 4;
    } else if (ESCAPE[e] === 0) {
      return BAD;
    }
  }
  return MORE;
}

// The digit loops of number() and value() do not test `end` at every byte: each byte read is tested for a digit
// anyway, and the array's own bounds stop them (a read past them is undefined). A loop that ran to `end` or past it
// (into a window's stale bytes) decides nothing with what it read there: the number is then MORE. Testing `end` at
// every digit measured slower (the typed array's own bounds check is then a second one).

/**
 * Just past the JSON number at b[i]; BAD when there is none, MORE when it reaches `end` (more digits could follow).
 * Sets seen.dot and seen.exponent.
 */
export function number(b: Uint8Array, i: number, end: number): number {
  if (i >= end) return MORE;
  let c = b[i]!;
  if (c === MINUS) {
    if (++i >= end) return MORE;
    c = b[i]!;
  }
  if (c === ZERO) c = b[++i]!;
  else if (c > ZERO && c <= NINE) {
    do c = b[++i]!;
    while (c >= ZERO && c <= NINE);
  } else return BAD;
  if (i >= end) return MORE;
  let dot = -1;
  let exponent = -1;
  if (c === DOT) {
    dot = i;
    c = b[++i]!;
    if (!(c >= ZERO && c <= NINE)) return i >= end ? MORE : BAD;
    do c = b[++i]!;
    while (c >= ZERO && c <= NINE);
    if (i >= end) return MORE;
  }
  if (c === 0x65 || c === 0x45) { // e, E
    exponent = i;
    i = exponentAt(b, i, end);
    if (i < 0) return i;
  }
  saw.dot = dot;
  saw.exponent = exponent;
  return i;
}

/** Past the exponent whose `e` is at b[i]; BAD or MORE. */
function exponentAt(b: Uint8Array, i: number, end: number): number {
  let c = b[++i]!;
  if (c === PLUS || c === MINUS) c = b[++i]!;
  if (!(c >= ZERO && c <= NINE)) return i >= end ? MORE : BAD;
  do c = b[++i]!;
  while (c >= ZERO && c <= NINE);
  return i >= end ? MORE : i;
}

const TRUE = ascii('true');
const FALSE = ascii('false');
const NULL = ascii('null');

function literal(b: Uint8Array, i: number, end: number, what: Uint8Array): number {
  if (i + what.length > end) return MORE;
  return bytesAre(b, i, i + what.length, what) ? i + what.length : BAD;
}

/** member(), strict: the key is a JSON string (its escapes checked). */
export function memberName(b: Uint8Array, i: number, end: number): number {
  if (i >= end) return MORE;
  if (b[i] !== QUOTE) return BAD;
  const keyEnd = string(b, i, end);
  if (keyEnd < 0) return keyEnd;
  saw.keyStart = i;
  saw.keyEnd = keyEnd;
  return colon(b, keyEnd, end);
}

// The containers open in value(): a stack of its own, so that a hostile depth cannot overflow the call stack.
const IN_ARRAY = 0;
const IN_OBJECT = 1;
let stack: Uint8Array = new Uint8Array(64);

/**
 * Just past the JSON value at b[i] (no whitespace before it), checked whole; BAD or MORE. Arrays of numbers (most of
 * GeoJSON) are read by a loop of their own.
 */
export function value(b: Uint8Array, i: number, end: number): number {
  let depth = 0;
  for (;;) {
    // A value at i.
    if (i >= end) return MORE;
    let c = b[i]!;
    if (c === QUOTE) i = string(b, i, end);
    else if (c === MINUS || (c >= ZERO && c <= NINE)) i = number(b, i, end);
    else if (c === OPEN_BRACKET) {
      i = skipSpace(b, i + 1, end);
      if (i >= end) return MORE;
      c = b[i]!;
      if (c === CLOSE_BRACKET) i++;
      else {
        if (c === MINUS || (c >= ZERO && c <= NINE)) {
          // Numbers, as long as they last: to the array's end, or to an element that is not a number.
          let closed = false;
          for (;;) {
            // A number, its grammar as in number() but inline: this loop reads most of a GeoJSON text.
            if (c === MINUS) {
              if (++i >= end) return MORE;
              c = b[i]!;
            }
            if (c === ZERO) c = b[++i]!;
            else if (c > ZERO && c <= NINE) {
              do c = b[++i]!;
              while (c >= ZERO && c <= NINE);
            } else return BAD;
            if (i >= end) return MORE;
            if (c === DOT) {
              c = b[++i]!;
              if (!(c >= ZERO && c <= NINE)) return i >= end ? MORE : BAD;
              do c = b[++i]!;
              while (c >= ZERO && c <= NINE);
              if (i >= end) return MORE;
            }
            if (c === 0x65 || c === 0x45) {
              i = exponentAt(b, i, end);
              if (i < 0) return i;
              c = b[i]!;
            }
            // Then a comma and the next number, or the array's end.
            if (c !== COMMA && c !== CLOSE_BRACKET) {
              i = skipSpace(b, i, end);
              if (i >= end) return MORE;
              c = b[i]!;
            }
            if (c === CLOSE_BRACKET) {
              closed = true;
              break;
            }
            if (c !== COMMA) return BAD;
            i = skipSpace(b, i + 1, end);
            if (i >= end) return MORE;
            c = b[i]!;
            if (c !== MINUS && !(c >= ZERO && c <= NINE)) break;
          }
          if (closed) i++;
          else {
            // An element that is not a number: the array goes on as any other, from it.
            if (depth === stack.length) stack = grow(stack);
            stack[depth++] = IN_ARRAY;
            continue;
          }
        } else {
          if (depth === stack.length) stack = grow(stack);
          stack[depth++] = IN_ARRAY;
          continue;
        }
      }
    } else if (c === OPEN_BRACE) {
      i = skipSpace(b, i + 1, end);
      if (i >= end) return MORE;
      if (b[i] === CLOSE_BRACE) i++;
      else {
        if (depth === stack.length) stack = grow(stack);
        stack[depth++] = IN_OBJECT;
        i = memberName(b, i, end);
        if (i < 0) return i;
        continue;
      }
    } else if (c === 0x74) i = literal(b, i, end, TRUE);
    else if (c === 0x66) i = literal(b, i, end, FALSE);
    else if (c === 0x6e) i = literal(b, i, end, NULL);
    else return BAD;
    if (i < 0) return i;
    // After a value: the containers it closes, then the next value of the innermost one still open.
    for (;;) {
      if (depth === 0) return i;
      i = skipSpace(b, i, end);
      if (i >= end) return MORE;
      c = b[i]!;
      const inObject = stack[depth - 1] === IN_OBJECT;
      if (c === COMMA) {
        i = skipSpace(b, i + 1, end);
        if (inObject) {
          i = memberName(b, i, end);
          if (i < 0) return i;
        }
        break;
      }
      if (c !== (inObject ? CLOSE_BRACE : CLOSE_BRACKET)) return BAD;
      depth--;
      i++;
    }
  }
}

function grow(a: Uint8Array): Uint8Array {
  const b = new Uint8Array(a.length * 2);
  b.set(a);
  return b;
}

// ---- Text ----

/** Keeps a byte-order mark as U+FEFF: where JSON.parse of a whole text would fail on one, so must a piece's. */
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** The text of b[start, end) as a decoder of the whole would give it (bytes that are not UTF-8 become U+FFFD). */
export function text(b: Uint8Array, start: number, end: number): string {
  return decoder.decode(b.subarray(start, end));
}
