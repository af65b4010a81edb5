// HTTP/1.1 over a bare socket: the request line goes out byte for byte. inject() and fetch() normalize paths
// (they resolve '/./', collapse '//', turn an absolute-form target into a path), so a test of how the service
// reads the request line itself has to write it by hand.
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `${method} ${target} HTTP/1.1` with the given headers (Host and Connection: close added) and an
 * optional body, and reads the whole response. `target` is written as is: encoded letters, '//', '/./',
 * an absolute URL.
 */
export function rawRequest(
  port: number, method: string, target: string, headers: Record<string, string> = {}, body?: string | Buffer,
): Promise<RawResponse> {
  const head = [`${method} ${target} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: close'];
  for (const [k, v] of Object.entries(headers)) head.push(`${k}: ${v}`);
  if (body !== undefined) head.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
      if (body !== undefined) socket.write(body);
    });
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to ${method} ${target}`)));
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const raw = Buffer.concat(chunks);
      const split = raw.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = raw.subarray(0, split < 0 ? raw.length : split).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
      const out: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(':');
        if (i > 0) out[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      const rest = split < 0 ? Buffer.alloc(0) : raw.subarray(split + 4);
      resolve({ status, headers: out, body: (out['transfer-encoding'] === 'chunked' ? unchunk(rest) : rest).toString('utf8') });
    });
  });
}

function unchunk(b: Buffer): Buffer {
  const parts: Buffer[] = [];
  let i = 0;
  for (;;) {
    const eol = b.indexOf('\r\n', i);
    if (eol < 0) break;
    const size = parseInt(b.subarray(i, eol).toString('latin1'), 16);
    if (!size) break;
    parts.push(b.subarray(eol + 2, eol + 2 + size));
    i = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
