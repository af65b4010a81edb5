// Compressed answers for the API: gzip or brotli when the request's Accept-Encoding asks for one, identity otherwise.
// A pull downloads every farm's parcels as JSON, which compresses about tenfold; @fastify/compress is not among the
// dependencies, and what is needed is small: an onSend hook, node:zlib.
//
// - Whole bodies (strings, Buffers) of at least MIN_BYTES are compressed on libuv's thread pool (zlib's async
//   calls), not on the thread that answers every request; smaller ones are not worth a header.
// - Streamed bodies (a farm's parcel listing, a large bulk create's 201) are piped through a zlib stream: still
//   streamed, chunk by chunk, with the socket's backpressure reaching the listing through the pipe (so its stall
//   timeout and its snapshot's lifetime are unchanged). An error in the source destroys the zlib stream, so the
//   client sees a broken body, never a complete-looking one.
// - Registered on the API's routes only: the embedded map, the admin panel and the landing page answer as before.
import { Readable, pipeline } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';

export const MIN_BYTES = 1024;

// Brotli at quality 4: faster than gzip's default level and smaller on JSON (brotli's default, 11, is far too slow
// for answers made per request).
const BROTLI = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT } };
const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

export type Encoding = 'br' | 'gzip';

/** The coding to answer with: brotli, else gzip, when the header accepts it (q > 0); undefined for identity. */
export function negotiate(header: string | string[] | undefined): Encoding | undefined {
  if (!header) return undefined;
  const accepted = new Map<string, number>();
  for (const part of String(header).split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p)).find(Boolean);
    accepted.set(name, q ? Number(q[1]) : 1);
  }
  const ok = (name: string) => (accepted.get(name) ?? accepted.get('*') ?? 0) > 0;
  if (ok('br')) return 'br';
  if (ok('gzip') || (accepted.get('x-gzip') ?? 0) > 0) return 'gzip';
  return undefined;
}

export function registerCompression(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply, payload) => {
    // Every answer of these routes depends on the header, compressed or not: a cache must key on it.
    void reply.header('vary', 'Accept-Encoding');
    if (req.method === 'HEAD' || reply.statusCode === 204 || reply.statusCode === 304 || reply.hasHeader('content-encoding')) return payload;
    const encoding = negotiate(req.headers['accept-encoding']);
    if (!encoding) return payload;
    if (payload instanceof Readable) {
      const z = encoding === 'br' ? zlib.createBrotliCompress(BROTLI) : zlib.createGzip();
      pipeline(payload, z, () => {}); // an error destroys z with it: the reply fails, as the stream alone would
      reply.removeHeader('content-length');
      void reply.header('content-encoding', encoding);
      return z;
    }
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    if (Buffer.byteLength(payload) < MIN_BYTES) return payload;
    const body = encoding === 'br' ? await brotli(payload, BROTLI) : await gzip(payload);
    reply.removeHeader('content-length');
    void reply.header('content-encoding', encoding);
    return body;
  });
}
