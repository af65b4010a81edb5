// The answer's body as the service meant it: the client asks for compressed answers (`Accept-Encoding: br, gzip`;
// the service compresses bodies of 1 KiB and more, service/compression.ts), a listing page of parcels shrinks about
// tenfold, and the bytes on the wire are what a pull on a slow link waits for.
import { brotliDecompress, gunzip, inflate, type InputType, type ZlibOptions, type BrotliOptions } from 'node:zlib';
import { NetworkError } from './transport.ts';

/** What the client asks for: brotli, then gzip (both in Node's zlib). */
export const ACCEPT_ENCODING = 'br, gzip';

type Inflate = (buf: InputType, opts: ZlibOptions & BrotliOptions, cb: (err: Error | null, out: Buffer) => void) => void;
const DECODERS: Record<string, Inflate> = { br: brotliDecompress, gzip: gunzip, 'x-gzip': gunzip, deflate: inflate };

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
    body = await new Promise<Buffer>((resolve, reject) => {
      decode(body, { maxOutputLength: cap }, (err, out) => {
        if (!err) resolve(out);
        else if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
          reject(new NetworkError(`${method} ${path}: the answer passed ${cap} bytes once decoded and was cut`, { sent: true, reason: 'the answer was too large' }));
        } else reject(new NetworkError(`${method} ${path}: the answer could not be decoded (${coding})`, { sent: true, reason: 'the answer could not be decoded', cause: err }));
      });
    });
  }
  return body;
}
