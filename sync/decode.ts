// The answer's body as the service meant it: the client asks for compressed answers (`Accept-Encoding: br, gzip`;
// the service compresses bodies of 1 KiB and more, service/compression.ts), a listing page of parcels shrinks about
// tenfold, and the bytes on the wire are what a pull on a slow link waits for.
import { brotliDecompress, brotliDecompressSync, gunzip, gunzipSync, inflate, inflateSync, type InputType, type ZlibOptions, type BrotliOptions } from 'node:zlib';
import { ANSWER_TOO_LARGE, NetworkError } from './transport.ts';

/** What the client asks for: brotli, then gzip (both in Node's zlib). */
export const ACCEPT_ENCODING = 'br, gzip';

type Inflate = (buf: InputType, opts: ZlibOptions & BrotliOptions, cb: (err: Error | null, out: Buffer) => void) => void;
type InflateSync = (buf: InputType, opts: ZlibOptions & BrotliOptions) => Buffer;
const DECODERS: Record<string, { async: Inflate; sync: InflateSync }> = {
  br: { async: brotliDecompress, sync: brotliDecompressSync },
  gzip: { async: gunzip, sync: gunzipSync },
  'x-gzip': { async: gunzip, sync: gunzipSync },
  deflate: { async: inflate, sync: inflateSync },
};

/**
 * Bodies up to this size (compressed) are decoded on the thread: a 201 of 50 parcels is 6–14 KB, decoded in a fraction
 * of a millisecond, while the thread pool's decoding handed it over and back once per 16 KiB of output, each time with
 * the work of a stream around it: twice the CPU, and on a busy machine a wait for the thread to be scheduled each time
 * (the push's decoding took ~0.24 s of the CLI's thread for 400 answers, the bare loop's synchronous one ~0.1 s).
 * Larger bodies (listing pages) still decode off the thread, so that reading one never holds it for long.
 */
export const SYNC_DECODE_MAX_BYTES = 128 * 1024;

/**
 * Output per turn of the thread pool's decoding (zlib's default: 16 KiB). Each turn comes back to this thread and
 * goes out again; a listing page of 500 parcels (160 KB of brotli, 1.2 MB decoded) took ~75 of them: 100 such pages
 * cost 200-300 ms of CPU decoded with the default, 150 ms with 1 MiB (as decoded on the thread).
 */
const ASYNC_CHUNK_BYTES = 1 << 20;

/**
 * The decoded body of an answer whose Content-Encoding is `encoding`; at most `cap` bytes once decoded (a small
 * answer that inflates past the client's answer cap is cut, as a large one is). An encoding it did not ask for, or
 * bytes that do not decode, are a transport failure (something in between mangled the answer), never a body.
 */
export async function decodeBody(method: string, path: string, raw: Buffer, encoding: string | string[] | undefined, cap: number): Promise<Buffer> {
  const codings = (Array.isArray(encoding) ? encoding.join(',') : encoding ?? '').split(',').map((c) => c.trim().toLowerCase()).filter((c) => c && c !== 'identity');
  if (!codings.length || raw.length === 0) return raw;
  let body = raw;
  // Codings apply in the order listed: undone last to first.
  for (const coding of codings.reverse()) {
    const decode = DECODERS[coding];
    if (!decode) throw new NetworkError(`${method} ${path}: the answer came in an encoding not asked for (${coding.slice(0, 40)})`, { sent: true, reason: 'the answer could not be decoded' });
    const failure = (err: Error): NetworkError => ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError
      ? new NetworkError(`${method} ${path}: the answer passed ${cap} bytes once decoded and was cut`, { sent: true, reason: ANSWER_TOO_LARGE })
      : new NetworkError(`${method} ${path}: the answer could not be decoded (${coding})`, { sent: true, reason: 'the answer could not be decoded', cause: err }));
    if (body.length <= SYNC_DECODE_MAX_BYTES) {
      try {
        body = decode.sync(body, { maxOutputLength: cap });
      } catch (err) {
        throw failure(err as Error);
      }
      continue;
    }
    const input = body;
    body = await new Promise<Buffer>((resolve, reject) => {
      decode.async(input, { maxOutputLength: cap, chunkSize: ASYNC_CHUNK_BYTES }, (err, out) => (err ? reject(failure(err)) : resolve(out)));
    });
  }
  return body;
}
