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

// Levels measured on the bench's parcels (1.85 MB of JSON, best of 5 on the shared 2-core machine): brotli 1 took it to
// 3.53x at 197 MB/s, brotli 4 3.52x at 50 MB/s, gzip 1 3.27x at 136 MB/s, gzip 4 3.63x at 93 MB/s, gzip 6 (zlib's
// default) 3.83x at 34 MB/s. A million-parcel listing is 1.2 GB: at gzip 6 that is half a minute of a core per pull.
// Brotli 1 when the client takes it (the fastest, and smaller than gzip 1), else gzip 4.
const BROTLI = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 1, [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT } };
const GZIP = { level: 4 };
const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

export type Encoding = 'br' | 'gzip';

/** The coding to answer with: brotli, else gzip, when the header accepts it (q > 0); undefined for identity. */
export function negotiate(header: string | string[] | undefined): Encoding | undefined {
  if (!header) return undefined;
  const accepted = new Map<string, number>();
  for (const part of String(header).split(',')) {
    // RFC 9110 12.5.3: a coding, then parameters after ";" with optional whitespace around it ("gzip ; q=1").
    const [rawName, ...params] = part.toLowerCase().split(';');
    const name = rawName!.trim();
    if (!name) continue;
    const q = params.map((p) => /^\s*q\s*=\s*(\S*)\s*$/.exec(p)).find(Boolean);
    if (!q) {
      accepted.set(name, 1);
      continue;
    }
    // A weight is 0 to 1 with at most three decimals; one that is not ("-1", "abc", "2") makes its member invalid,
    // which is then not taken as acceptance.
    if (/^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(q[1]!)) accepted.set(name, Number(q[1]));
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
      const z = encoding === 'br' ? zlib.createBrotliCompress(BROTLI) : zlib.createGzip(GZIP);
      pipeline(payload, z, () => {}); // an error destroys z with it: the reply fails, as the stream alone would
      reply.removeHeader('content-length');
      void reply.header('content-encoding', encoding);
      return z;
    }
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload;
    if (Buffer.byteLength(payload) < MIN_BYTES) return payload;
    const body = encoding === 'br' ? await brotli(payload, BROTLI) : await gzip(payload, GZIP);
    reply.removeHeader('content-length');
    void reply.header('content-encoding', encoding);
    return body;
  });
}
