// U+0000 (NUL) in a request's text: PostgreSQL's text and jsonb cannot hold it, SQLite can. So that both stores
// answer alike, and as the hosted original's framework does ("Null characters are not allowed."), no request may
// carry one in its body or query string: 400 validation_failed with the detail code `nul_character`, nothing written. JSON can
// only carry a NUL as the escape \u0000 (a raw control character is not JSON), a query string only as %00.
import type { FastifyInstance } from 'fastify';
import { ErrorCode } from '../core/errors.ts';
import { ApiError } from './errors.ts';

export const NUL_CODE = 'nul_character';
const NUL_MESSAGE = 'Text may not contain the NUL character (U+0000)';

export const nulRefused = (path: 'body' | 'url') =>
  new ApiError(ErrorCode.validationFailed, `${NUL_MESSAGE}: the request's ${path === 'url' ? 'address' : 'body'} holds one`, [
    { path, code: NUL_CODE, message: `${NUL_MESSAGE}; remove it (written \\u0000 in JSON, %00 in a query string)` },
  ]);

const U0000 = Buffer.from('u0000');
const BACKSLASH = 0x5c;

/**
 * Whether JSON text holds the escape \u0000: 'u0000' after an odd run of backslashes (after an even one, the
 * backslashes escape each other and the text is the six characters themselves). A memchr-speed search: a 20 MB
 * batch costs a few milliseconds, and most bodies hold no 'u0000' at all.
 */
export function hasNulEscape(bytes: Uint8Array): boolean {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = buf.indexOf(U0000); i !== -1; i = buf.indexOf(U0000, i + 1)) {
    let j = i - 1;
    while (j >= 0 && buf[j] === BACKSLASH) j--;
    if ((i - 1 - j) % 2 === 1) return true;
  }
  return false;
}

/**
 * Refuses a query string with %00, before anything else reads it. A path's %00 is left to the route: an integer
 * id is refused as one (invalid_id), and a text id (an account's) with a NUL names nothing on either store.
 */
export function registerNulGuard(app: FastifyInstance): void {
  app.addHook('onRequest', async (req) => {
    const q = req.url.indexOf('?');
    if (q !== -1 && req.url.includes('%00', q)) throw nulRefused('url');
  });
}
