// The 201 of a bulk create read without JSON.parse. The push needs three things of each created parcel — its id, its
// key and its client reference — but the answer holds every parcel whole: 20,000 parcels are about 20 MB of JSON,
// and parsing them into objects (every coordinate a number in an array) took the push's thread about a third of a
// second. This scanner walks the text once, checks that all of it is JSON, and keeps only those three fields and
// where each feature starts and ends (so that a feature can still be parsed whole when the booking needs it: a
// parcel edited while its create was out).
//
// It is an accelerator, never a second opinion: for any answer it does not recognise as the plain shape (an escape in
// a key or in a kept string, an id that is not a plain integer, anything but an array of objects), it gives up and the
// caller parses the text with JSON.parse as before. When it does answer, the text is valid JSON (the whole grammar
// is checked, RFC 8259 as JSON.parse reads it) and each field is what JSON.parse would give (the last of duplicate
// keys, as JSON.parse keeps).
import { REF_KEY } from '../core/parcels/client-ref.ts';

/** A created parcel as the push reads it: the shape sync/parcels.ts's Created checks, and where it lies in the text. */
export interface ScannedFeature {
  id?: number;
  properties?: { key?: string; metadata?: Record<string, string> };
  /** The feature's JSON text, to parse whole when needed. */
  text(): string;
}

/** What scanCreated makes of a 201 it recognises: one entry per element of the answer's array, in order. */
export class ScannedCreated {
  constructor(readonly features: ScannedFeature[]) {}
}

// Character codes.
const QUOTE = 34, BACKSLASH = 92, COMMA = 44, COLON = 58, LBRACE = 123, RBRACE = 125, LBRACKET = 91, RBRACKET = 93;
const MINUS = 45, PLUS = 43, DOT = 46, ZERO = 48, NINE = 57, LOWER_E = 101, UPPER_E = 69;

const isWs = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;
const isDigit = (c: number) => c >= ZERO && c <= NINE;
const isHex = (c: number) => isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);

function skipWs(s: string, i: number): number {
  while (i < s.length && isWs(s.charCodeAt(i))) i++;
  return i;
}

/** After the string starting at s[i] (a quote), or -1 when it is not a JSON string. `plain` is set when it has no escape. */
function skipString(s: string, i: number, out: { plain: boolean }): number {
  out.plain = true;
  for (i++; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    if (c < 0x20) return -1;
    if (c === BACKSLASH) {
      out.plain = false;
      const e = s.charCodeAt(++i);
      if (e === 117) { // \uXXXX
        if (!(isHex(s.charCodeAt(i + 1)) && isHex(s.charCodeAt(i + 2)) && isHex(s.charCodeAt(i + 3)) && isHex(s.charCodeAt(i + 4)))) return -1;
        i += 4;
      } else if (!(e === QUOTE || e === BACKSLASH || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116)) return -1;
    }
  }
  return -1;
}

/** After the number starting at s[i], or -1 when there is no JSON number there. `integer` is set for digits only. */
function skipNumber(s: string, i: number, out: { integer: boolean }): number {
  out.integer = true;
  if (s.charCodeAt(i) === MINUS) i++;
  const first = s.charCodeAt(i);
  if (first === ZERO) i++;
  else if (first > ZERO && first <= NINE) while (isDigit(s.charCodeAt(++i)));
  else return -1;
  if (s.charCodeAt(i) === DOT) {
    out.integer = false;
    if (!isDigit(s.charCodeAt(++i))) return -1;
    while (isDigit(s.charCodeAt(++i)));
  }
  const e = s.charCodeAt(i);
  if (e === LOWER_E || e === UPPER_E) {
    out.integer = false;
    const sign = s.charCodeAt(++i);
    if (sign === PLUS || sign === MINUS) i++;
    if (!isDigit(s.charCodeAt(i))) return -1;
    while (isDigit(s.charCodeAt(++i)));
  }
  return i;
}

const flags = { plain: true, integer: true };

// The bulk of an answer is coordinates: arrays of numbers, nested two to four deep. A sticky regular expression per
// depth reads a whole coordinates value in one native match (the grammar is unambiguous, so a failed match costs
// little), several times faster than stepping through it here; anything else goes the general way below.
const WS = '[ \\t\\n\\r]*';
const NUM = '-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?';
const list = (item: string) => `\\[${WS}(?:${item}(?:${WS},${WS}${item})*)?${WS}\\]`;
const NUMBER_ARRAYS: RegExp[] = [];
for (let d = 1, item = NUM; d <= 4; d++) {
  item = list(item);
  NUMBER_ARRAYS[d] = new RegExp(item, 'y');
}

/** After an array of numbers nested as deep as the brackets opening at s[i] say, or -1 when it is not one. */
function numberArray(s: string, i: number): number {
  let d = 0;
  for (let j = i; d < 5; j = skipWs(s, j + 1)) {
    if (s.charCodeAt(j) !== LBRACKET) break;
    d++;
  }
  const re = NUMBER_ARRAYS[d];
  if (!re) return -1;
  re.lastIndex = i;
  return re.test(s) ? re.lastIndex : -1;
}

/**
 * After the JSON value starting at s[i] (no whitespace before it), or -1 when there is none. Nested arrays and
 * objects are walked with a stack of their own, so a hostile depth cannot overflow the call stack.
 */
function skipValue(s: string, i: number): number {
  const stack: number[] = [];
  let n: number;
  for (;;) {
    // A value at i.
    const c = s.charCodeAt(i);
    if (c === QUOTE) i = skipString(s, i, flags);
    else if (c === MINUS || isDigit(c)) i = skipNumber(s, i, flags);
    else if (c === 116) i = s.startsWith('true', i) ? i + 4 : -1;
    else if (c === 102) i = s.startsWith('false', i) ? i + 5 : -1;
    else if (c === 110) i = s.startsWith('null', i) ? i + 4 : -1;
    else if (c === LBRACKET && (n = numberArray(s, i)) >= 0) i = n;
    else if (c === LBRACKET || c === LBRACE) {
      const close = c === LBRACKET ? RBRACKET : RBRACE;
      i = skipWs(s, i + 1);
      if (s.charCodeAt(i) === close) i++;
      else {
        stack.push(close);
        if (close === RBRACE) {
          i = memberName(s, i);
          if (i < 0) return -1;
        }
        continue;
      }
    } else return -1;
    if (i < 0) return -1;
    // After a value: the containers it closes, then the next value of the innermost one still open.
    for (;;) {
      if (!stack.length) return i;
      i = skipWs(s, i);
      const d = s.charCodeAt(i);
      const close = stack[stack.length - 1]!;
      if (d === close) {
        stack.pop();
        i++;
        continue;
      }
      if (d !== COMMA) return -1;
      i = skipWs(s, i + 1);
      if (close === RBRACE) {
        i = memberName(s, i);
        if (i < 0) return -1;
      }
      break;
    }
  }
}

/** After `"name" :` and the whitespace up to the member's value, or -1. */
function memberName(s: string, i: number): number {
  if (s.charCodeAt(i) !== QUOTE) return -1;
  i = skipString(s, i, flags);
  if (i < 0) return -1;
  i = skipWs(s, i);
  if (s.charCodeAt(i) !== COLON) return -1;
  return skipWs(s, i + 1);
}

/**
 * Where the member of the object at s[i] begins: after its name, the colon and the whitespace up to its value; -1
 * at the object's end (`}`), -2 when the text is not plain. `name` is set to the member's name when it is one the scan
 * keeps (WANTED), else to ''. Called at the `{` or at a `,`.
 */
function nextMember(s: string, i: number, first: boolean): number {
  i = skipWs(s, i + 1);
  const c = s.charCodeAt(i);
  if (c === RBRACE && first) return -1;
  if (c !== QUOTE) return -2;
  const end = skipString(s, i, flags);
  // A name with an escape may spell a kept name: only JSON.parse can say.
  if (end < 0 || !flags.plain) return -2;
  member.name = '';
  for (const w of WANTED) if (end - i === w.length + 2 && s.startsWith(w, i + 1)) member.name = w;
  i = skipWs(s, end);
  if (s.charCodeAt(i) !== COLON) return -2;
  return skipWs(s, i + 1);
}
const WANTED = ['id', 'properties', 'key', 'metadata', REF_KEY];
const member = { name: '' };

/** After the member's value at s[i]: -1 at the object's end, -2 when not plain, else the `,` before the next member. */
function afterMember(s: string, i: number): number {
  if (i < 0) return -2;
  i = skipWs(s, i);
  const d = s.charCodeAt(i);
  return d === RBRACE ? -1 - i : d === COMMA ? i : -2;
}

/** A plain string (no escape) at s[i]: its value into `into[key]`; returns where it ends, or -1. */
function plainString(s: string, i: number): number {
  if (s.charCodeAt(i) !== QUOTE) return -1;
  const end = skipString(s, i, flags);
  return end >= 0 && flags.plain ? end : -1;
}

/**
 * Reads the object at s[i] member by member: `read(name, at)` reads a kept member's value and returns where it ends
 * (or -1 when it is not plain); other members are skipped. Returns after the `}`, or -1.
 */
function walkObject(s: string, i: number, read: (name: string, at: number) => number): number {
  if (s.charCodeAt(i) !== LBRACE) return -1;
  let at = nextMember(s, i, true);
  if (at === -1) return skipWs(s, i + 1) + 1;
  for (;;) {
    if (at < 0) return -1;
    const name = member.name;
    const end = afterMember(s, name ? read(name, at) : skipValue(s, at));
    if (end === -2) return -1;
    if (end < 0) return -end; // -1 - i: the `}` at i
    at = nextMember(s, end, false);
  }
}

/** A created parcel as the scan read it: only what the push checks (Created), and its place in the answer. */
class Scanned implements ScannedFeature {
  id?: number;
  properties?: { key?: string; metadata?: Record<string, string> };
  constructor(private readonly src: string, private readonly start: number, private readonly end: number) {}
  text(): string {
    return this.src.slice(this.start, this.end);
  }
}

// The readers of the three objects the scan looks into, made once (no closure per feature).
let current: Scanned;
let props: NonNullable<Scanned['properties']>;
let src = '';
const readMetadata = (name: string, at: number): number => {
  if (name !== REF_KEY) return skipValue(src, at);
  const end = plainString(src, at);
  if (end >= 0) props.metadata![REF_KEY] = src.slice(at + 1, end - 1);
  return end;
};
const readProperties = (name: string, at: number): number => {
  if (name === 'key') {
    const end = plainString(src, at);
    if (end >= 0) props.key = src.slice(at + 1, end - 1);
    return end;
  }
  if (name !== 'metadata') return skipValue(src, at);
  // The last of duplicate members counts, whole, as with JSON.parse.
  props.metadata = {};
  return walkObject(src, at, readMetadata);
};
const readFeature = (name: string, at: number): number => {
  if (name === 'id') {
    const end = skipNumber(src, at, flags);
    if (end < 0 || !flags.integer) return -1;
    current.id = Number(src.slice(at, end));
    return end;
  }
  if (name !== 'properties') return skipValue(src, at);
  props = {};
  current.properties = props;
  return walkObject(src, at, readProperties);
};

/**
 * The answer's created parcels, or undefined when the text is not a plain array of feature objects: the caller then
 * parses it with JSON.parse (which also says when it is not JSON at all).
 */
export function scanCreated(text: string): ScannedCreated | undefined {
  src = text;
  try {
    let i = skipWs(text, 0);
    if (text.charCodeAt(i) !== LBRACKET) return undefined;
    const out: ScannedFeature[] = [];
    i = skipWs(text, i + 1);
    if (text.charCodeAt(i) === RBRACKET) i++;
    else {
      for (;;) {
        current = new Scanned(text, i, 0);
        const end = walkObject(text, i, readFeature);
        if (end < 0) return undefined;
        (current as unknown as { end: number }).end = end;
        out.push(current);
        i = skipWs(text, end);
        const d = text.charCodeAt(i);
        if (d === RBRACKET) { i++; break; }
        if (d !== COMMA) return undefined;
        i = skipWs(text, i + 1);
      }
    }
    return skipWs(text, i) === text.length ? new ScannedCreated(out) : undefined;
  } finally {
    src = '';
  }
}
