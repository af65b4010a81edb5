// Compressed answers: the client asks for brotli or gzip and decodes what comes, counting the bytes on the wire; an
// encoding it did not ask for, bytes that do not decode, or an answer that inflates past the answer cap are transport
// failures, never a body. A real HTTP server on 127.0.0.1, and the real service's own compression.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { syncWorld, parcelInputs, type SyncWorld } from '../test/helpers/sync.ts';
import { as } from '../test/helpers/engine.ts';
import { NetworkError, ServiceClient } from './http.ts';
import { SYNC_DECODE_MAX_BYTES } from './decode.ts';

let w: SyncWorld;
let server: Server;
let base = '';
const seen: IncomingMessage['headers'][] = [];
const json = JSON.stringify({ items: Array.from({ length: 2000 }, (_, i) => ({ i, name: `parcel ${i}` })) });
const large = JSON.stringify({ items: Array.from({ length: 6000 }, (_, i) => ({ i, token: randomBytes(72).toString('base64') })) });

beforeAll(async () => {
  w = await syncWorld({ LOG_LEVEL: 'fatal' });
  server = createServer((req, res) => {
    seen.push(req.headers);
    const send = (encoding: string | null, body: Buffer) => {
      res.writeHead(200, { 'content-type': 'application/json', ...(encoding ? { 'content-encoding': encoding } : {}) });
      res.end(body);
    };
    if (req.url === '/br') send('br', brotliCompressSync(json));
    else if (req.url === '/gzip') send('gzip', gzipSync(json));
    else if (req.url === '/plain') send(null, Buffer.from(json));
    else if (req.url === '/unasked') send('zstd', Buffer.from(json));
    else if (req.url === '/mangled') send('gzip', Buffer.concat([gzipSync(json).subarray(0, 40), Buffer.alloc(40, 7)]));
    // 64 MB of zeros in about 60 KB: over the client's cap of 1 MB once decoded.
    else if (req.url === '/bomb') send('gzip', gzipSync(Buffer.alloc(64 << 20)));
    // Past the size decoded on the thread (SYNC_DECODE_MAX_BYTES), so decoded on the thread pool: random text barely compresses.
    else if (req.url === '/large-br') send('br', brotliCompressSync(large));
    else if (req.url === '/large-gzip') send('gzip', gzipSync(large));
    else if (req.url === '/large-mangled') send('gzip', Buffer.concat([gzipSync(large).subarray(0, SYNC_DECODE_MAX_BYTES), Buffer.alloc(40, 7)]));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await w?.close();
});

const client = (url = base, maxAnswerBytes = 1 << 20) => new ServiceClient({ baseUrl: url, accountId: 'acc-x', maxAnswerBytes, credentials: { mode: 'api_key', apiKey: 'k' } });

describe('compressed answers', () => {
  it('asks for br and gzip, decodes both, and counts the compressed bytes as received', async () => {
    const c = client();
    try {
      for (const path of ['/br', '/gzip', '/plain']) {
        const res = await c.send('GET', path);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(JSON.parse(json));
        if (path === '/plain') expect(res.receivedBytes).toBe(Buffer.byteLength(json));
        else expect(res.receivedBytes!).toBeLessThan(Buffer.byteLength(json) / 4);
      }
      expect(seen.every((h) => h['accept-encoding'] === 'br, gzip')).toBe(true);
    } finally {
      await c.close();
    }
  });

  it('decodes bodies past the size decoded on the thread on the thread pool, and their failures are transport failures too', async () => {
    expect(gzipSync(large).length).toBeGreaterThan(SYNC_DECODE_MAX_BYTES);
    expect(brotliCompressSync(large).length).toBeGreaterThan(SYNC_DECODE_MAX_BYTES);
    const c = client(base, 8 << 20);
    try {
      for (const path of ['/large-br', '/large-gzip']) {
        const res = await c.send('GET', path);
        expect(res.body, path).toEqual(JSON.parse(large));
      }
      const mangled = await c.send('GET', '/large-mangled').then(() => null, (e: unknown) => e);
      expect((mangled as NetworkError).reason).toMatch(/could not be decoded/);
    } finally {
      await c.close();
    }
    // Decoded, it passes a cap of 512 KiB: cut.
    const small = client(base, 512 << 10);
    try {
      const err = await small.send('GET', '/large-br').then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as NetworkError).reason).toMatch(/too large/);
    } finally {
      await small.close();
    }
  });

  it('an encoding not asked for, mangled bytes, and an answer that inflates past the cap are transport failures', async () => {
    const c = client();
    try {
      for (const [path, reason] of [['/unasked', /could not be decoded/], ['/mangled', /could not be decoded/], ['/bomb', /too large/]] as const) {
        const err = await c.send('GET', path).then(() => null, (e: unknown) => e);
        expect(err, path).toBeInstanceOf(NetworkError);
        expect((err as NetworkError).reason, path).toMatch(reason);
        expect((err as NetworkError).sent).toBe(true);
      }
    } finally {
      await c.close();
    }
  });

  it("the service's farm listing comes compressed: far fewer bytes on the wire than its JSON", async () => {
    const acc = await w.account();
    const farm = await w.api('POST', '/api/farms/', { farm: { name: 'Zipped' }, parcels: parcelInputs(50, 'z') }, as(acc));
    const c = new ServiceClient({ baseUrl: w.svc.url, accountId: acc, credentials: { mode: 'api_key', apiKey: w.apiKey } });
    try {
      const res = await c.send('GET', `/api/farms/${farm.body.id}/parcels/`);
      expect(res.status).toBe(200);
      expect((res.body as { features: unknown[] }).features).toHaveLength(50);
      expect(res.headers['content-encoding']).toBe('br');
      expect(res.receivedBytes!).toBeLessThan(Buffer.byteLength(JSON.stringify(res.body)) / 3);
    } finally {
      await c.close();
    }
  });
});
