// A listed parcel's geometry as the text the service sent, for the mirror's geometry column. A first pull writes
// 50,000 geometries (36 MB of JSON): serializing again what JSON.parse had just read from the page (JSON.stringify,
// every coordinate a double turned back into digits) took ~0.32 s of the CLI's CPU, a fifth of what the pull adds to
// a bare download. The service writes each geometry as JSON.stringify wrote it, so the page holds the very text.
//
// An accelerator, never a second opinion: a text is kept only where the page spells the geometry in the plain form
// `"geometry":{"type":"Polygon","coordinates":[[[…]]]}` (no string inside the coordinates, so no other member, and
// no object), and its first and last numbers are those JSON.parse read for that feature; anything else (another service's
// spacing or member order, a feature whose text does not match) leaves the rest of the page to JSON.stringify.
import type { ParcelFeature } from '../core/schemas/parcels.ts';

/** A listing page's answer read by readListingPage: its value as JSON.parse gives it, and the text it was read from. */
export class ListingPage {
  constructor(readonly value: unknown, readonly text: string) {}
}

/**
 * The sync/http.ts AnswerReader of a listing page: the text kept beside the value. Undefined (the client parses
 * as usual, and says what is wrong) for bytes that are not JSON.
 */
export function readListingPage(bytes: Buffer): ListingPage | undefined {
  const text = bytes.toString('utf8');
  try {
    return new ListingPage(JSON.parse(text), text);
  } catch {
    return undefined;
  }
}

/** Each kept geometry's text, by the geometry object JSON.parse made of it (gone with the feature). */
const texts = new WeakMap<object, string>();

/** The service's text of this listed geometry, when the page's text was kept for it (rememberGeometryTexts). */
export function listedGeometryText(geometry: object): string | undefined {
  return texts.get(geometry);
}

const HEAD = '"geometry":{"type":"Polygon","coordinates":[[[';
/** From the `{` of the geometry to the first number. */
const TO_COORDS = '{"type":"Polygon","coordinates":'.length;
const OPEN_BRACE = 123, COMMA = 44, CLOSE_BRACKET = 93;

/**
 * Finds each feature's geometry in the page's text, in order, and keeps the text of those spelled as the service
 * spells them. `features` are the page's features as JSON.parse read `text` (and checked against the schema).
 */
export function rememberGeometryTexts(text: string, features: readonly ParcelFeature[]): void {
  // One member named geometry per feature, and no other anywhere in the page: JSON.parse keeps the last of two members
  // of one name, and this scan would keep the first one's text. Without any \u escape, the only spelling of that
  // name is the plain one counted here (a name or value in a string spells its quotes \", which do not count).
  if (text.includes('\\u') || occurrences(text, '"geometry"') !== features.length) return;
  let from = 0;
  for (const f of features) {
    const g = f.geometry as { type: string; coordinates: number[][][] };
    if (Object.keys(g).length !== 2) return;
    const at = text.indexOf(HEAD, from);
    if (at < 0) return;
    // A member name: after `{` or `,` a quote opens a string (a closing one there would not be JSON).
    const before = text.charCodeAt(at - 1);
    if (before !== OPEN_BRACE && before !== COMMA) return;
    const open = at + '"geometry":'.length;
    const close = text.indexOf('}', open);
    const coords = open + TO_COORDS;
    // Nothing but numbers, commas and brackets up to the `}`: no string (so no other member) and no object, and
    // the coordinates array ends right before it. Its text then is one JSON value, since the whole page is.
    if (close < 0 || text.charCodeAt(close - 1) !== CLOSE_BRACKET) return;
    const quote = text.indexOf('"', coords);
    const brace = text.indexOf('{', coords);
    if ((quote >= 0 && quote < close) || (brace >= 0 && brace < close)) return;
    // The same coordinates as the feature JSON.parse made: the first number and the last.
    const firstEnd = text.indexOf(',', coords + 3);
    const lastStart = text.lastIndexOf(',', close - 4) + 1;
    if (text.charCodeAt(close - 2) !== CLOSE_BRACKET || text.charCodeAt(close - 3) !== CLOSE_BRACKET) return;
    const ring = g.coordinates[g.coordinates.length - 1]!;
    const last = ring[ring.length - 1]!;
    if (firstEnd < 0 || firstEnd > close || Number(text.slice(coords + 3, firstEnd)) !== g.coordinates[0]![0]![0]
      || Number(text.slice(lastStart, close - 3)) !== last[last.length - 1]) return;
    texts.set(g, text.slice(open, close + 1));
    from = close + 1;
  }
}

function occurrences(text: string, word: string): number {
  let n = 0;
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + word.length)) n++;
  return n;
}
