// One tile fetched from a real server on 127.0.0.1 as a tile server behaves on a bad day: asked to slow down (429 and
// 503 with Retry-After, honoured by every request of the download), failing for a moment (500s, a reset connection,
// no answer in time: retried with backoff), having no tile (404: empty), answering an error document with 200, a
// tile too large, a redirect away from the addresses the rules accept; and giving up after the tries allowed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { retryAfterMs, TileFetcher, TILE_POLICY, type TilePolicy } from './tile-fetcher.ts';
import { solidTile, startTileServer, type TileServer } from '../test/helpers/tile-server.ts';

let ts: TileServer;
let odd: Server;
let oddBase = '';
beforeAll(async () => {
  ts = await startTileServer();
  // What a tile server should never send, each at its path.
  odd = createServer((req, res) => {
    if (req.url === '/exception') res.writeHead(200, { 'content-type': 'application/vnd.ogc.se_xml' }).end('<ServiceExceptionReport><ServiceException>LayerNotDefined</ServiceException></ServiceExceptionReport>');
    else if (req.url === '/huge') res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.concat([solidTile([1, 2, 3]), Buffer.alloc(2000)]));
    else if (req.url === '/away') res.writeHead(302, { location: 'http://tiles.example.org/1/0/0.png' }).end();
    else if (req.url === '/here') res.writeHead(301, { location: '/tile' }).end();
    else if (req.url === '/tile') res.writeHead(200, { 'content-type': 'image/png' }).end(solidTile([9, 9, 9]));
    else if (req.url === '/forbidden') res.writeHead(403).end();
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => odd.listen(0, '127.0.0.1', r));
  oddBase = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const f of made) await f.close();
  await ts?.close();
  await new Promise((r) => odd?.close(r));
});

const FAST: TilePolicy = { ...TILE_POLICY, attempts: 4, baseMs: 40, capMs: 200, maxRetryAfterMs: 5_000, timeoutMs: 2_000 };
const made: TileFetcher[] = [];
const fetcher = (policy: Partial<TilePolicy> = {}) => {
  const f = new TileFetcher(new AbortController().signal, { ...FAST, ...policy });
  made.push(f);
  return f;
};
const orange = solidTile([255, 120, 0]);

describe('a tile fetched', () => {
  it('comes whole, or is empty where the server has none', async () => {
    expect(await fetcher().fetch(`${ts.base}/xyz/3/1/2.png`)).toEqual({ kind: 'tile', data: orange });
    ts.missing.add('/xyz/3/1/3.png');
    expect(await fetcher().fetch(`${ts.base}/xyz/3/1/3.png`)).toEqual({ kind: 'empty' });
  });

  it("waits out a 429's Retry-After, and makes every request of the download wait with it", async () => {
    ts.fault('/xyz/4/1/1.png', { kind: 'status', status: 429, retryAfter: '1', times: 1 });
    const f = fetcher();
    const t0 = Date.now();
    const told = f.fetch(`${ts.base}/xyz/4/1/1.png`);
    // Another tile asked just after the 429 came back waits too, though its own server never refused it.
    await new Promise((r) => setTimeout(r, 150));
    const other = f.fetch(`${ts.base}/xyz/4/2/2.png`).then((a) => ({ a, at: Date.now() - t0 }));
    expect(await told).toEqual({ kind: 'tile', data: orange });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(await other).toEqual({ a: { kind: 'tile', data: orange }, at: expect.toSatisfy((ms: number) => ms >= 950) });
    expect(ts.requests.get('/xyz/4/1/1.png')).toBe(2);
    expect(ts.requests.get('/xyz/4/2/2.png')).toBe(1);
  });

  it("reads a 503's Retry-After given as a date", async () => {
    expect(retryAfterMs('120')).toBe(120_000);
    expect(retryAfterMs(new Date(Date.now() + 5000).toUTCString(), Date.now())).toBeGreaterThan(3000);
    expect(retryAfterMs('soon')).toBeNull();
    expect(retryAfterMs(null)).toBeNull();
    ts.fault('/xyz/4/3/3.png', { kind: 'status', status: 503, retryAfter: new Date(Date.now() + 1500).toUTCString(), times: 1 });
    const t0 = Date.now();
    expect((await fetcher().fetch(`${ts.base}/xyz/4/3/3.png`)).kind).toBe('tile');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(400);
  });

  it('tries again after 500s and a reset connection, backing off, and gives up after its tries', async () => {
    ts.fault('/xyz/5/1/1.png', { kind: 'status', status: 500, times: 2 });
    ts.fault('/xyz/5/1/1.png', { kind: 'reset', times: 1 });
    const t0 = Date.now();
    expect(await fetcher().fetch(`${ts.base}/xyz/5/1/1.png`)).toEqual({ kind: 'tile', data: orange });
    expect(ts.requests.get('/xyz/5/1/1.png')).toBe(4);
    // Waits of 20–40, 40–80 and 80–160 ms between the four tries.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(140);

    ts.fault('/xyz/5/2/2.png', { kind: 'status', status: 502, times: 10 });
    expect(await fetcher().fetch(`${ts.base}/xyz/5/2/2.png`)).toEqual({ kind: 'failed', why: expect.stringMatching(/answered 502 \(4 tries\)$/), unreachable: false });
    expect(ts.requests.get('/xyz/5/2/2.png')).toBe(4);
  });

  it('tries again when a tile does not come in time, and takes a slow one that does', async () => {
    ts.fault('/xyz/6/1/1.png', { kind: 'slow', ms: 1500, times: 1 });
    expect(await fetcher({ timeoutMs: 500 }).fetch(`${ts.base}/xyz/6/1/1.png`)).toEqual({ kind: 'tile', data: orange });
    expect(ts.requests.get('/xyz/6/1/1.png')).toBe(2);
    ts.fault('/xyz/6/2/2.png', { kind: 'slow', ms: 700, times: 1 });
    expect(await fetcher({ timeoutMs: 2000 }).fetch(`${ts.base}/xyz/6/2/2.png`)).toEqual({ kind: 'tile', data: orange });
    expect(ts.requests.get('/xyz/6/2/2.png')).toBe(1);
  });

  it('refuses what is not a tile, at once: an error document, a tile too large, a redirect away, a 403', async () => {
    const f = fetcher({ maxBytes: orange.length + 1000 });
    expect(await f.fetch(`${oddBase}/exception`)).toEqual({ kind: 'failed', why: expect.stringMatching(/not an image \(application\/vnd\.ogc\.se_xml\)/) });
    expect(await f.fetch(`${oddBase}/huge`)).toEqual({ kind: 'failed', why: expect.stringMatching(/over \d+ bytes/) });
    expect(await f.fetch(`${oddBase}/away`)).toEqual({ kind: 'failed', why: expect.stringMatching(/tiles\.example\.org is not an address tiles are taken from/) });
    expect(await f.fetch(`${oddBase}/forbidden`)).toEqual({ kind: 'failed', why: expect.stringMatching(/answered 403$/) });
    expect(await f.fetch(`${oddBase}/here`)).toEqual({ kind: 'tile', data: solidTile([9, 9, 9]) });
  });

  it('stops at once when its download is paused', async () => {
    const c = new AbortController();
    ts.fault('/xyz/7/1/1.png', { kind: 'slow', ms: 3000, times: 1 });
    const f = new TileFetcher(c.signal, FAST);
    made.push(f);
    const t0 = Date.now();
    const p = f.fetch(`${ts.base}/xyz/7/1/1.png`);
    setTimeout(() => c.abort(new Error('paused')), 100);
    await expect(p).rejects.toThrow('paused');
    expect(Date.now() - t0).toBeLessThan(1500);
  });
});
