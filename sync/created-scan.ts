// The 201 of a bulk create read without JSON.parse. The push needs three things of each created parcel — its id, its
// key and its client reference — but the answer holds every parcel whole: 20,000 parcels are about 20 MB of JSON,
// and parsing them into objects (every coordinate a number in an array) took the push's thread about a third of a
// second. This scanner walks the answer's bytes once (core/json/scan.ts, strict: never decoded whole), checks that
// all of it is JSON, and keeps only those three fields and where each feature starts and ends (so that a feature can
// still be parsed whole when the booking needs it: a parcel edited while its create was out).
//
// It is an accelerator, never a second opinion: for any answer it does not recognise as the plain shape (an escape in
// a key or in a kept string, an id that is not a plain integer, anything but an array of objects), it gives up and the
// caller parses the text with JSON.parse as before. When it does answer, the text is valid JSON (the whole grammar
// is checked, RFC 8259 as JSON.parse reads it) and each field is what JSON.parse would give (the last of duplicate
// keys, as JSON.parse keeps); bytes that are not UTF-8 read as U+FFFD, as the decoding before JSON.parse reads them.
import { REF_KEY } from '../core/parcels/client-ref.ts';
import { BAD, BYTE, ascii, bytesAre, memberName, number, seen, skipSpace, string, value } from '../core/json/scan.ts';

const { CLOSE_BRACE, CLOSE_BRACKET, COMMA, MINUS, OPEN_BRACE, OPEN_BRACKET, QUOTE, ZERO } = BYTE;

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

// The members the scan keeps, keys with their quotes: `id` and `properties` of a feature, `key` and `metadata` of its
// properties, the client reference in its metadata.
const FEATURE = 0, PROPS = 1, META = 2;
const ID = ascii('"id"'), PROPERTIES = ascii('"properties"'), KEY = ascii('"key"'), METADATA = ascii('"metadata"'), REF = ascii(`"${REF_KEY}"`);

/**
 * Reads the object at b[i] member by member, each member's value by the reader of its `level` (readFeature,
 * readProperties, readMetadata), which keeps what it wants and checks and skips the rest. Returns just past the `}`,
 * or BAD (not JSON, or not plain).
 */
function walkObject(b: Uint8Array, i: number, level: number): number {
  const end = b.length;
  if (b[i] !== OPEN_BRACE) return BAD;
  i = skipSpace(b, i + 1, end);
  if (b[i] === CLOSE_BRACE) return i + 1;
  for (;;) {
    const at = memberName(b, i, end);
    // A name with an escape may spell a kept name: only JSON.parse can say.
    if (at < 0 || seen.escaped) return BAD;
    const ks = seen.keyStart, ke = seen.keyEnd;
    i = level === FEATURE ? readFeature(ks, ke, at) : level === PROPS ? readProperties(ks, ke, at) : readMetadata(ks, ke, at);
    if (i < 0) return BAD;
    i = skipSpace(b, i, end);
    const d = b[i];
    if (d === CLOSE_BRACE) return i + 1;
    if (d !== COMMA) return BAD;
    i = skipSpace(b, i + 1, end);
  }
}

/** A created parcel as the scan read it: only what the push checks (Created), and its place in the answer. */
class Scanned implements ScannedFeature {
  id?: number;
  properties?: { key?: string; metadata?: Record<string, string> };
  end = 0;
  constructor(private readonly src: Buffer, private readonly start: number) {}
  text(): string {
    return this.src.toString('utf8', this.start, this.end);
  }
}

// The readers of the three objects the scan looks into: the value at `at` of the member whose plain key is
// b[ks, ke), quotes included; just past it, or BAD when it is not JSON or not plain.
let current: Scanned;
let props: NonNullable<Scanned['properties']>;
const EMPTY = Buffer.alloc(0);
let src: Buffer = EMPTY;

/** A plain string (no escape) at b[at]: where it ends, or BAD. */
function plainString(at: number): number {
  if (src[at] !== QUOTE) return BAD;
  const end = string(src, at, src.length);
  return end >= 0 && !seen.escaped ? end : BAD;
}

const readMetadata = (ks: number, ke: number, at: number): number => {
  if (!bytesAre(src, ks, ke, REF)) return value(src, at, src.length);
  const end = plainString(at);
  if (end >= 0) props.metadata![REF_KEY] = src.toString('utf8', at + 1, end - 1);
  return end;
};
const readProperties = (ks: number, ke: number, at: number): number => {
  if (bytesAre(src, ks, ke, KEY)) {
    const end = plainString(at);
    if (end >= 0) props.key = src.toString('utf8', at + 1, end - 1);
    return end;
  }
  if (!bytesAre(src, ks, ke, METADATA)) return value(src, at, src.length);
  // The last of duplicate members counts, whole, as with JSON.parse.
  props.metadata = {};
  return walkObject(src, at, META);
};
const readFeature = (ks: number, ke: number, at: number): number => {
  if (bytesAre(src, ks, ke, ID)) {
    const end = number(src, at, src.length);
    if (end < 0 || seen.dot >= 0 || seen.exponent >= 0) return BAD;
    current.id = integer(src, at, end);
    return end;
  }
  if (!bytesAre(src, ks, ke, PROPERTIES)) return value(src, at, src.length);
  props = {};
  current.properties = props;
  return walkObject(src, at, PROPS);
};

/** The JSON integer b[start, end) as JSON.parse reads it. */
function integer(b: Uint8Array, start: number, end: number): number {
  const negative = b[start] === MINUS;
  // Up to 15 digits, exactly in a double as they are added up; longer ones are rounded as Number rounds them.
  if (end - start > 15) return Number(src.toString('latin1', start, end));
  let n = 0;
  for (let k = negative ? start + 1 : start; k < end; k++) n = n * 10 + (b[k]! - ZERO);
  return negative ? -n : n;
}

const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The answer's created parcels, or undefined when it is not a plain array of feature objects: the caller then parses
 * it with JSON.parse (which also says when it is not JSON at all). A string is read as its UTF-8.
 */
export function scanCreated(answer: Uint8Array | string): ScannedCreated | undefined {
  // A string with half a surrogate pair has no UTF-8: JSON.parse reads it.
  if (typeof answer === 'string' && LONE_SURROGATE.test(answer)) return undefined;
  const b = typeof answer === 'string' ? Buffer.from(answer, 'utf8') : Buffer.isBuffer(answer) ? answer : Buffer.from(answer.buffer, answer.byteOffset, answer.byteLength);
  src = b;
  try {
    const end = b.length;
    let i = skipSpace(b, 0, end);
    if (b[i] !== OPEN_BRACKET) return undefined;
    const out: ScannedFeature[] = [];
    i = skipSpace(b, i + 1, end);
    if (b[i] === CLOSE_BRACKET) i++;
    else {
      for (;;) {
        current = new Scanned(b, i);
        const after = walkObject(b, i, FEATURE);
        if (after < 0) return undefined;
        current.end = after;
        out.push(current);
        i = skipSpace(b, after, end);
        const d = b[i];
        if (d === CLOSE_BRACKET) {
          i++;
          break;
        }
        if (d !== COMMA) return undefined;
        i = skipSpace(b, i + 1, end);
      }
    }
    return skipSpace(b, i, end) === end ? new ScannedCreated(out) : undefined;
  } finally {
    src = EMPTY;
  }
}
