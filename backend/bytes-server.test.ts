// Bytes across the boundary in browser mode, against a real mirror host process over real HTTP on 127.0.0.1: a page
// (a WebSocket session holding the launch's token) exports a farm with exportDownload, and the host's loopback server
// serves the file at the path answered — whole, by range (206, 416), as HEAD, with the resource's headers and the
// page policy's — to that session's key only: another session's key, an unknown or expired one, a closed session's,
// another Host or a path that tries to leave the registry get nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Api, ApiEvents } from '../core/api.ts';
import { RpcCode, type Client } from '../core/rpc.ts';
import { parseBytesPath } from '../core/bytes-protocol.ts';
import { BYTES_CSP } from '../core/page-policy.ts';
import { Mirror } from '../db/mirror.ts';
import { pointParcel } from '../test/helpers/service.ts';
import type { Host } from './launch.ts';
import { startBrowserHost, type BrowserHost } from '../test/helpers/browser-host.ts';

const ACC = 'acc-00000000-0000-4000-8000-0000000000b1';
const OTHER = 'acc-00000000-0000-4000-8000-0000000000b2';
/** How long the host keeps a resource here: long enough for a test's requests, short enough to see one expire. */
const TTL_MS = 4000;
const PARCELS = 3000;

let b: BrowserHost;
let dir: string;
let home: string;
let host: Host;
let port: number;
let farm: string;
let otherFarm: string;
let get: BrowserHost['get'];
let tab: BrowserHost['tab'];

beforeAll(async () => {
  b = await startBrowserHost('furrow-bytes-', {
    ttlMs: TTL_MS,
    prepare: (h) => {
      // The mirror the host opens: an account with a farm big enough to take several chunks (and another account's farm).
      const m = Mirror.open(join(h, 'mirror.db'));
      for (const id of [ACC, OTHER]) m.syncDb.prepare("INSERT INTO accounts (id, service_url, mode, label, created) VALUES (?, 'http://127.0.0.1:1', 'api_key', 'Grower', '2026-01-01')").run(id);
      farm = m.write.createFarm(ACC, 'Finca: Norte/Sur').local_id;
      m.write.createParcels(farm, Array.from({ length: PARCELS }, (_, i) => pointParcel(`Olivo ${i}`, 1 + (i % 7), -4 + (i % 100) * 0.001, 37 + Math.floor(i / 100) * 0.001)));
      otherFarm = m.write.createFarm(OTHER, 'Not mine').local_id;
      m.close();
    },
  });
  ({ dir, home, host, port, get, tab } = b);
}, 120_000);
afterAll(async () => {
  await b?.close();
});

/** The host's private folder of exports. */
const exportsDir = () => join(home, 'exports');
const kept = () => (existsSync(exportsDir()) ? readdirSync(exportsDir()) : []);

describe('bytes in browser mode', () => {
  it("serves a page's export whole, by range and as HEAD, equal to the command line's export, with its headers and the policy's", async () => {
    const page = await tab();
    const progress: number[] = [];
    const r = await page.api.exportDownload({ account: ACC, farm, format: 'geojson' }, { onProgress: (p) => progress.push(p.done) });
    expect([r.parcels, r.fileName]).toEqual([PARCELS, 'Finca NorteSur.geojson']);
    expect(progress.at(-1)).toBe(PARCELS);
    expect(parseBytesPath(r.path)).toMatchObject({ name: 'Finca NorteSur.geojson' });
    // The same file as the command line's export of that farm (the parent's channel is the user's own process).
    const reference = join(dir, 'reference.geojson');
    await host.api.exportFile({ path: reference, farm });
    const want = readFileSync(reference);
    expect(r.bytes).toBe(want.length);
    expect(want.length).toBeGreaterThan(600 * 1024); // several chunks

    // The host's copy is the user's alone, in a folder of its own.
    expect(kept()).toHaveLength(1);
    expect(statSync(exportsDir()).mode & 0o777).toBe(0o700);
    expect(statSync(join(exportsDir(), kept()[0]!)).mode & 0o777).toBe(0o600);

    const whole = await get(r.path);
    expect(whole.status).toBe(200);
    expect(whole.body.equals(want)).toBe(true);
    expect(whole.headers).toMatchObject({
      'content-type': 'application/geo+json', 'content-length': String(want.length), 'accept-ranges': 'bytes',
      'content-disposition': `attachment; filename="Finca NorteSur.geojson"; filename*=UTF-8''Finca%20NorteSur.geojson`,
      'content-security-policy': BYTES_CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer',
      'cross-origin-resource-policy': 'same-origin', 'cross-origin-opener-policy': 'same-origin', 'x-frame-options': 'DENY', 'cache-control': 'no-store',
    });
    expect(whole.headers.etag).toMatch(/^"[0-9a-f]{32}-[0-9a-z]+"$/);
    for (const h of ['access-control-allow-origin', 'set-cookie']) expect(whole.headers[h], h).toBeUndefined();

    const first = await get(r.path, { headers: { range: 'bytes=0-99' } });
    expect([first.status, first.headers['content-range'], first.headers['content-length']]).toEqual([206, `bytes 0-99/${want.length}`, '100']);
    expect(first.body.equals(want.subarray(0, 100))).toBe(true);
    const tail = await get(r.path, { headers: { range: 'bytes=-10' } });
    expect([tail.status, tail.headers['content-range']]).toEqual([206, `bytes ${want.length - 10}-${want.length - 1}/${want.length}`]);
    expect(tail.body.equals(want.subarray(want.length - 10))).toBe(true);
    const rest = await get(r.path, { headers: { range: `bytes=${300_000}-` } });
    expect(rest.status).toBe(206);
    expect(rest.body.equals(want.subarray(300_000))).toBe(true);
    const across = await get(r.path, { headers: { range: 'bytes=262000-262300' } }); // across a chunk's edge
    expect(across.body.equals(want.subarray(262000, 262301))).toBe(true);
    const none = await get(r.path, { headers: { range: `bytes=${want.length}-` } });
    expect([none.status, none.headers['content-range'], none.body.length]).toEqual([416, `bytes */${want.length}`, 0]);
    // A part of another version: the whole.
    expect((await get(r.path, { headers: { range: 'bytes=0-9', 'if-range': '"other"' } })).status).toBe(200);
    expect((await get(r.path, { headers: { range: 'bytes=0-9', 'if-range': String(whole.headers.etag) } })).status).toBe(206);

    const head = await get(r.path, { method: 'HEAD' });
    expect([head.status, head.headers['content-length'], head.body.length]).toEqual([200, String(want.length), 0]);
    expect((await get(r.path, { method: 'POST' })).status).toBe(405);

    // A CSV of one chosen parcel, named after it.
    const csv = await page.api.exportDownload({ account: ACC, parcels: [await firstParcel(page)], format: 'csv' });
    const got = await get(csv.path);
    expect([got.status, got.headers['content-type'], csv.fileName, csv.parcels]).toEqual([200, 'text/csv; charset=utf-8', 'Olivo 0.csv', 1]);
    expect(got.body.toString('utf8').split('\r\n').filter(Boolean)).toHaveLength(2);
    await page.close();
  }, 60_000);

  it("refuses another session's key, an unknown key, another name, another Host and paths that leave the registry", async () => {
    const [a, b] = [await tab(), await tab()];
    const ra = await a.api.exportDownload({ account: ACC, farm, format: 'csv' });
    const rb = await b.api.exportDownload({ account: ACC, farm, format: 'csv' });
    const [pa, pb] = [parseBytesPath(ra.path)!, parseBytesPath(rb.path)!];
    expect(pa.key).not.toBe(pb.key);
    expect((await get(ra.path)).status).toBe(200);
    expect((await get(rb.path)).status).toBe(200);
    // B's resource under A's key (and the other way): nothing.
    expect((await get(`/bytes/${pa.key}/${pb.id}/${encodeURIComponent(pb.name)}`)).status).toBe(404);
    expect((await get(`/bytes/${pb.key}/${pa.id}/${encodeURIComponent(pa.name)}`)).status).toBe(404);
    // An unknown key or id, another name for the same resource.
    expect((await get(`/bytes/${randomBytes(32).toString('base64url')}/${pa.id}/${encodeURIComponent(pa.name)}`)).status).toBe(404);
    expect((await get(`/bytes/${pa.key}/${randomBytes(16).toString('hex')}/${encodeURIComponent(pa.name)}`)).status).toBe(404);
    expect((await get(`/bytes/${pa.key}/${pa.id}/other.csv`)).status).toBe(404);
    // The page policy's headers on a refusal too, and nothing of the resource.
    const refused = await get(`/bytes/${pa.key}/${pa.id}/other.csv`);
    expect(refused.headers['content-security-policy']).toBe(BYTES_CSP);
    expect(refused.headers['content-disposition']).toBeUndefined();
    // Another Host (a DNS name rebound to 127.0.0.1): refused before anything is looked up.
    expect((await get(ra.path, { host: `evil.example:${port}` })).status).toBe(421);
    // Paths that try to leave the registry for the mirror or the host's files.
    for (const p of [
      `/bytes/${pa.key}/${pa.id}/..%2f..%2fmirror.db`, `/bytes/${pa.key}/%2e%2e/%2e%2e/mirror.db`, `/bytes/${pa.key}/${pa.id}/%2e%2e`,
      `/bytes/${pa.key}/${pa.id}/${encodeURIComponent(pa.name)}/..%2f..%2f..%2fmirror.db`, `/bytes/${pa.key}/${pa.id}%2f..%2f..%2fmirror.db/x`,
      `/bytes/..%2fmirror.db`, `/bytes/${pa.key}/../../mirror.db`,
    ]) {
      const res = await get(p);
      expect(res.status, p).not.toBe(200);
      expect(res.body.toString('utf8'), p).not.toMatch(/SQLite/);
    }
    // Not the command line's: the parent's channel has no page session, and no bytes.
    await expect(host.api.exportDownload({ account: ACC, farm, format: 'csv' })).rejects.toMatchObject({ code: RpcCode.forbidden });
    // Another account's farm, through this one: not found.
    await expect(a.api.exportDownload({ account: ACC, farm: otherFarm, format: 'csv' })).rejects.toMatchObject({ code: 'not_found' });
    await a.close();
    await b.close();
  }, 60_000);

  it("forgets a closed session's files and an expired one's", async () => {
    const page = await tab();
    const r = await page.api.exportDownload({ account: ACC, farm, format: 'csv' });
    expect((await get(r.path)).status).toBe(200);
    const before = kept().length;
    await page.close();
    // The tab gone, its key leads nowhere and its file is removed.
    await expect.poll(async () => (await get(r.path)).status, { timeout: 10_000 }).toBe(404);
    expect(kept().length).toBeLessThan(before);

    const later = await tab();
    const e = await later.api.exportDownload({ account: ACC, farm, format: 'geojson' });
    expect((await get(e.path, { headers: { range: 'bytes=0-0' } })).status).toBe(206);
    await new Promise((r) => setTimeout(r, TTL_MS + 200));
    expect((await get(e.path)).status).toBe(404);
    expect(kept()).toEqual([]);
    await later.close();
  }, 60_000);
});

/** The farm's first parcel, as the page finds it. */
async function firstParcel(page: { api: Client<Api, ApiEvents>['api'] }): Promise<string> {
  const hits = await page.api.search({ account: ACC, text: 'Olivo 0', limit: 5 });
  return hits.find((f) => f.properties.name === 'Olivo 0')!.id;
}
