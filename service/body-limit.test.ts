// A request refused before its body was read (413 on its Content-Length) must reach a client that is still
// uploading: the service reads and discards the rest of the upload for a while (service/errors.ts) instead of
// closing a socket with bytes in flight, which the kernel turns into a reset the client sees instead of the 413.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import { asAccount, newAccount, newOrg, startService, type Account, type Org, type TestService } from '../test/helpers/service.ts';

let svc: TestService;
let port: number;
let org: Org;
let acc: Account;

beforeAll(async () => {
  svc = await startService({ bodyLimitBytes: 64 * 1024, parcelBodyLimitBytes: 64 * 1024 });
  await svc.app.listen({ host: '127.0.0.1', port: 0 });
  port = (svc.app.server.address() as { port: number }).port;
  org = await newOrg(svc);
  acc = await newAccount(svc, org);
});
afterAll(async () => {
  await svc.close();
});

interface Conn { socket: Socket; text: () => string; closed: Promise<string> }

/** A raw connection that sends the request line, the headers and the first bytes of a body of `length` bytes. */
async function startUpload(path: string, length: number): Promise<Conn> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  let received = '';
  socket.on('data', (d: Buffer) => { received += d.toString('latin1'); });
  const closed = new Promise<string>((resolve) => {
    socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    socket.once('close', () => resolve('close'));
  });
  const headers = Object.entries({ ...asAccount(org, acc), 'content-type': 'application/json', 'content-length': String(length), host: '127.0.0.1' })
    .map(([k, v]) => `${k}: ${v}`).join('\r\n');
  socket.write(`POST ${path} HTTP/1.1\r\n${headers}\r\n\r\n{"farm":{"name":"`);
  return { socket, text: () => received, closed };
}

const write = (socket: Socket, chunk: Buffer) => new Promise<void>((resolve, reject) => socket.write(chunk, (e) => (e ? reject(e) : resolve())));
const answered = (c: Conn) => expect.poll(c.text, { timeout: 5_000 }).toMatch(/\r\n\r\n\{.*\}$/s);

describe('a body over the limit', () => {
  it('is answered 413 at once, and the client can finish its upload and use the connection again', async () => {
    const total = 4 * 1024 * 1024;
    const c = await startUpload('/api/farms/', total);
    await answered(c);
    expect(c.text()).toMatch(/^HTTP\/1\.1 413 /);
    expect(c.text()).toContain('"code":"payload_too_large"');
    // Before, the service closed the socket here, with the upload's bytes still arriving: a reset.
    const chunk = Buffer.alloc(64 * 1024, 'x'.charCodeAt(0));
    let sent = 17;
    while (sent + chunk.length <= total) {
      await write(c.socket, chunk);
      sent += chunk.length;
    }
    await write(c.socket, Buffer.alloc(total - sent, 'x'.charCodeAt(0)));
    // The connection is still good for the next request.
    const before = c.text().length;
    c.socket.write(`GET /api/farms/ HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${org.api_key}\r\nservice-account: ${acc.id}\r\n\r\n`);
    await expect.poll(() => c.text().slice(before), { timeout: 5_000 }).toMatch(/^HTTP\/1\.1 200 .*\r\n\r\n\[.*\]$/s);
    c.socket.destroy();
  });

  it('is read and discarded only so far: an upload going on past 64 MiB more is cut off', async () => {
    const c = await startUpload('/api/crops/', 1024 * 1024 * 1024);
    await answered(c);
    expect(c.text()).toMatch(/^HTTP\/1\.1 413 /);
    const chunk = Buffer.alloc(1024 * 1024, 'x'.charCodeAt(0));
    let written = 0;
    let cut = false;
    c.closed.then(() => { cut = true; }, () => { cut = true; });
    while (!cut && written < 200 * 1024 * 1024) {
      await write(c.socket, chunk).catch(() => { cut = true; });
      written += chunk.length;
    }
    await c.closed;
    expect(written).toBeGreaterThanOrEqual(64 * 1024 * 1024);
    expect(written).toBeLessThan(200 * 1024 * 1024);
  });
});
