// The bytes path's pure parts: the path's syntax, Range parsing (RFC 9110 §14), an answer's status and headers, and
// main's reading of the host's answer on a port (the platform's MessageChannel standing in for Electron's).
import { describe, expect, it } from 'vitest';
import type { Port } from './rpc.ts';
import { bytesHead, bytesPath, contentDisposition, parseBytesPath, parseRange, receiveBytes, type BytesMeta } from './bytes-protocol.ts';

const KEY = 'k'.repeat(43);
const ID = 'a'.repeat(32);

describe('bytes paths', () => {
  it('round-trip, the name percent-encoded', () => {
    const p = bytesPath(KEY, ID, 'Finca Norte/Sur.geojson'.replace('/', '')); // a name never holds a separator
    expect(p).toBe(`/bytes/${KEY}/${ID}/Finca%20NorteSur.geojson`);
    expect(parseBytesPath(p)).toEqual({ key: KEY, id: ID, name: 'Finca NorteSur.geojson' });
    expect(parseBytesPath(bytesPath(KEY, ID, 'Hof Sönnenfeld (1).csv'))?.name).toBe('Hof Sönnenfeld (1).csv');
    expect(() => bytesPath(KEY, ID, '../x')).toThrow();
    expect(() => bytesPath('short', ID, 'x')).toThrow();
  });

  it('refuse anything but exactly /bytes/<key>/<id>/<name>', () => {
    for (const p of [
      '/bytes/', `/bytes/${KEY}/${ID}`, `/bytes/${KEY}/${ID}/`, `/bytes/${KEY}/${ID}/a/b`, `/other/${KEY}/${ID}/a`, `bytes/${KEY}/${ID}/a`,
      `/bytes/${KEY.slice(1)}/${ID}/a`, `/bytes/${KEY}+/${ID}/a`, `/bytes/${KEY}/${ID.toUpperCase()}/a`, `/bytes/${KEY}/${ID}/%2e%2e`,
      `/bytes/${KEY}/${ID}/..`, `/bytes/${KEY}/${ID}/a%2fb`, `/bytes/${KEY}/${ID}/a%5cb`, `/bytes/${KEY}/${ID}/a%00`, `/bytes/${KEY}/${ID}/%E0%A4%A`,
      `/bytes/../${KEY}/${ID}/a`, `/bytes/${KEY}/${ID}/a?b`, `/bytes/${KEY}/${ID}/a#b`, `/bytes/${KEY}/${ID}/a b`, `/bytes/${KEY}/${ID}/ñ`,
    ]) expect(parseBytesPath(p), p).toBeNull();
  });
});

describe('parseRange', () => {
  const size = 1000;
  it('reads one range: a-b, a-, -n, clamped to the end', () => {
    expect(parseRange('bytes=0-99', size)).toEqual({ kind: 'part', start: 0, end: 99 });
    expect(parseRange('bytes=500-', size)).toEqual({ kind: 'part', start: 500, end: 999 });
    expect(parseRange('bytes=-100', size)).toEqual({ kind: 'part', start: 900, end: 999 });
    expect(parseRange('bytes=-5000', size)).toEqual({ kind: 'part', start: 0, end: 999 });
    expect(parseRange('bytes=990-5000', size)).toEqual({ kind: 'part', start: 990, end: 999 });
    expect(parseRange('Bytes = 1 - 1', size)).toEqual({ kind: 'part', start: 1, end: 1 });
    expect(parseRange('bytes=0-99999999999999999999', size)).toEqual({ kind: 'part', start: 0, end: 999 });
  });
  it('is unsatisfiable from the end on, for an empty suffix, and for an empty file', () => {
    for (const h of ['bytes=1000-', 'bytes=1000-1001', 'bytes=-0', 'bytes=99999999999999999999-']) expect(parseRange(h, size), h).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-5', 0)).toEqual({ kind: 'unsatisfiable' });
  });
  it('ignores (asks for the whole) what is absent, malformed, of another unit, backwards or several ranges', () => {
    for (const h of [undefined, null, '', 'bytes=', 'bytes=-', 'items=0-1', 'bytes=5-1', 'bytes=0-1,5-6', 'bytes=a-b', 'bytes 0-1', 'bytes=2000-1']) {
      expect(parseRange(h, size), String(h)).toEqual({ kind: 'full' });
    }
  });
});

describe('bytesHead', () => {
  const meta: BytesMeta = { size: 1000, type: 'application/geo+json', fileName: 'Finca Ñ.geojson', download: true, etag: '"x-rs"' };
  it('answers the whole (200), a part (206 with Content-Range) or 416, with ranges accepted and the download named', () => {
    const full = bytesHead(meta, { method: 'GET' });
    expect(full).toEqual({
      status: 200, body: { start: 0, end: 999 },
      headers: {
        'content-type': 'application/geo+json', 'accept-ranges': 'bytes', etag: '"x-rs"', 'content-length': '1000',
        'content-disposition': `attachment; filename="Finca _.geojson"; filename*=UTF-8''Finca%20%C3%91.geojson`,
      },
    });
    const part = bytesHead(meta, { method: 'GET', range: 'bytes=10-19' });
    expect([part.status, part.headers['content-range'], part.headers['content-length'], part.body]).toEqual([206, 'bytes 10-19/1000', '10', { start: 10, end: 19 }]);
    const none = bytesHead(meta, { method: 'GET', range: 'bytes=1000-' });
    expect([none.status, none.headers['content-range'], none.headers['content-length'], none.body]).toEqual([416, 'bytes */1000', '0', null]);
  });
  it('sends no body to HEAD, nor for an empty file; refuses other methods; 404 for no resource', () => {
    expect(bytesHead(meta, { method: 'HEAD' })).toMatchObject({ status: 200, body: null, headers: { 'content-length': '1000' } });
    expect(bytesHead(meta, { method: 'HEAD', range: 'bytes=-10' })).toMatchObject({ status: 206, body: null, headers: { 'content-range': 'bytes 990-999/1000' } });
    expect(bytesHead({ ...meta, size: 0 }, { method: 'GET' })).toMatchObject({ status: 200, body: null, headers: { 'content-length': '0' } });
    expect(bytesHead(meta, { method: 'POST' })).toMatchObject({ status: 405, body: null, headers: { allow: 'GET, HEAD' } });
    expect(bytesHead(null, { method: 'GET', range: 'bytes=0-1' })).toEqual({ status: 404, headers: { 'content-length': '0' }, body: null });
  });
  it('sends the whole when If-Range names another version', () => {
    expect(bytesHead(meta, { method: 'GET', range: 'bytes=10-19', ifRange: '"x-rs"' }).status).toBe(206);
    expect(bytesHead(meta, { method: 'GET', range: 'bytes=10-19', ifRange: '"other"' }).status).toBe(200);
    expect(bytesHead(meta, { method: 'GET', range: 'bytes=10-19', ifRange: 'Wed, 21 Oct 2015 07:28:00 GMT' }).status).toBe(200);
  });
  it('names a download with an ASCII fallback and the UTF-8 name (RFC 6266)', () => {
    expect(contentDisposition('a "b" \\ 100%.csv')).toBe(`attachment; filename="a _b_ _ 100_.csv"; filename*=UTF-8''a%20%22b%22%20%5C%20100%25.csv`);
    expect(contentDisposition("it's (x)*.csv")).toBe(`attachment; filename="it's (x)*.csv"; filename*=UTF-8''it%27s%20%28x%29%2A.csv`);
  });
});

describe("receiveBytes (main's side of Electron's answer)", () => {
  /** The two ends of a channel: `main` as receiveBytes reads it, `host` as a test answers on it. */
  function channel() {
    const { port1, port2 } = new MessageChannel();
    const asPort = (p: MessagePort): Port => ({
      postMessage: (m) => p.postMessage(m),
      onMessage(l) {
        const on = (e: MessageEvent) => l(e.data);
        p.addEventListener('message', on);
        p.start();
        return () => p.removeEventListener('message', on);
      },
    });
    let closed = 0;
    return { main: asPort(port1), host: asPort(port2), close: () => { closed++; port1.close(); }, closed: () => closed, raw: port2 };
  }

  it('takes the head, then one chunk per read, and closes at the end', async () => {
    const c = channel();
    const asked: unknown[] = [];
    let n = 0;
    c.host.onMessage((m) => {
      asked.push(m);
      if ((m as { t: string }).t !== 'more') return;
      c.host.postMessage(n < 3 ? { t: 'chunk', data: new Uint8Array([n, n, n]) } : { t: 'end' });
      n++;
    });
    c.host.postMessage({ t: 'head', status: 206, headers: { 'content-range': 'bytes 0-8/9', 'Content-Type': 'application/geo+json', 'set-cookie': 'x=1' }, body: true });
    const r = await receiveBytes(c.main, { close: c.close });
    expect(r.status).toBe(206);
    // Headers main does not know are dropped.
    expect(r.headers).toEqual({ 'content-range': 'bytes 0-8/9', 'content-type': 'application/geo+json' });
    await new Promise((r) => setTimeout(r, 20));
    expect(asked.length).toBeLessThanOrEqual(1); // at most one chunk asked ahead of the reader
    const body = new Uint8Array(await new Response(r.body).arrayBuffer());
    expect([...body]).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2]);
    expect(asked.filter((m) => (m as { t: string }).t === 'more')).toHaveLength(4);
    expect(c.closed()).toBe(1);
  });

  it('has no body for a head that says so, and refuses a malformed head (502) or none in time (504)', async () => {
    let c = channel();
    c.host.postMessage({ t: 'head', status: 404, headers: { 'content-length': '0' }, body: false });
    expect(await receiveBytes(c.main, { close: c.close })).toEqual({ status: 404, headers: { 'content-length': '0' }, body: null });
    expect(c.closed()).toBe(1);
    for (const bad of [{ t: 'head', status: 302, headers: {}, body: false }, { t: 'chunk' }, { t: 'head', status: 200, headers: { etag: 1 }, body: true }, 'x']) {
      c = channel();
      c.host.postMessage(bad);
      const r = await receiveBytes(c.main, { close: c.close });
      expect(r.status, JSON.stringify(bad)).toBe(502);
      expect(c.closed()).toBe(1);
    }
    c = channel();
    const r = await receiveBytes(c.main, { close: c.close, timeoutMs: 50 });
    expect(r.status).toBe(504);
    expect(await new Response(r.body).text()).toMatch(/did not answer/);
  });

  it('errors the body when the host breaks off, and tells the host when the body is dropped', async () => {
    let c = channel();
    c.host.onMessage((m) => { if ((m as { t: string }).t === 'more') c.host.postMessage({ t: 'error', message: 'the file ended before its size' }); });
    c.host.postMessage({ t: 'head', status: 200, headers: {}, body: true });
    const r = await receiveBytes(c.main, { close: c.close });
    await expect(new Response(r.body).arrayBuffer()).rejects.toThrow();
    expect(c.closed()).toBe(1);

    c = channel();
    const cancelled = new Promise((resolve) => c.host.onMessage((m) => { if ((m as { t: string }).t === 'cancel') resolve(true); }));
    c.host.postMessage({ t: 'head', status: 200, headers: {}, body: true });
    const dropped = await receiveBytes(c.main, { close: () => c.closed() });
    await dropped.body!.cancel();
    expect(await cancelled).toBe(true);
  });
});
