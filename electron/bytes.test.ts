// Main's side of the bytes path (electron/bytes.ts bytesResponse, the code main's app:// handler runs) without
// Electron: Node MessageChannels stand in for MessageChannelMain, with MessagePortMain's shape (an event with `data`,
// 'close'). First against the host's side in this process (backend/bytes-port.ts over a registry), then as in
// development: a real host process, the window's page and each bytes request carried by the development bridge's
// relay (backend/host-bridge.ts bridgeHost), the page exporting with exportDownload and main fetching it by range.
import { MessageChannel, type MessagePort as NodeMessagePort } from 'node:worker_threads';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, API_EVENTS, API_VERSION } from '../core/api.ts';
import { createClient } from '../core/rpc.ts';
import { BYTES_PORT, HOST_SECRETS, RENDERER_PORT } from '../core/host-protocol.ts';
import { BYTES_CSP } from '../core/page-policy.ts';
import { Mirror } from '../db/mirror.ts';
import { pointParcel } from '../test/helpers/service.ts';
import { messagePortPort } from '../renderer/electron-port.ts';
import { ByteResources } from '../backend/bytes.ts';
import { serveBytesPort } from '../backend/bytes-port.ts';
import { bridgeHost } from '../backend/host-bridge.ts';
import { launchHost, type Host } from '../backend/launch.ts';
import { childPort, messagePortMain, type MessagePortMainLike } from '../backend/node-ports.ts';
import { bytesResponse, type MainPort } from './bytes.ts';
import { asMain as mainPort } from '../test/helpers/message-port-main.ts';

const asMain = (port: NodeMessagePort) => mainPort(port) as MainPort & MessagePortMainLike;


const request = (url: string, headers: Record<string, string> = {}, method = 'GET') => ({ method, url, headers: new Headers(headers) });

describe("main's bytes response against the host's side", () => {
  const dir = mkdtempSync(join(tmpdir(), 'furrow-main-bytes-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('streams the whole, a range, HEAD and the refusals with the host\'s status and headers and the policy\'s', async () => {
    const registry = new ByteResources(join(dir, 'exports'));
    try {
      const session = registry.session();
      const file = session.file('csv');
      const data = Buffer.alloc(600_000);
      for (let i = 0; i < data.length; i++) data[i] = (i * 7) % 251;
      writeFileSync(file, data, { mode: 0o600 });
      const { path } = session.add({ file, name: 'Granja Ñ.csv', type: 'text/csv; charset=utf-8' });
      const ends: string[] = [];
      const ask = () => {
        const { port1, port2 } = new MessageChannel();
        const host = asMain(port1);
        const end = serveBytesPort(messagePortMain(host, () => { ends.push('closed'); end(); }), registry);
        return asMain(port2);
      };
      const url = `app://furrow${path}`;
      const whole = await bytesResponse(request(url), ask);
      expect(whole.status).toBe(200);
      expect(Buffer.from(await whole.arrayBuffer()).equals(data)).toBe(true);
      expect(Object.fromEntries(whole.headers)).toMatchObject({
        'content-type': 'text/csv; charset=utf-8', 'content-length': String(data.length), 'accept-ranges': 'bytes',
        'content-disposition': `attachment; filename="Granja _.csv"; filename*=UTF-8''Granja%20%C3%91.csv`,
        'content-security-policy': BYTES_CSP, 'x-content-type-options': 'nosniff', 'cache-control': 'no-store',
      });
      const part = await bytesResponse(request(url, { range: 'bytes=262100-262200' }), ask);
      expect([part.status, part.headers.get('content-range')]).toEqual([206, `bytes 262100-262200/${data.length}`]);
      expect(Buffer.from(await part.arrayBuffer()).equals(data.subarray(262100, 262201))).toBe(true);
      expect((await bytesResponse(request(url, { range: `bytes=${data.length}-` }), ask)).status).toBe(416);
      const head = await bytesResponse(request(url, {}, 'HEAD'), ask);
      expect([head.status, head.body, head.headers.get('content-length')]).toEqual([200, null, String(data.length)]);
      expect((await bytesResponse(request(`app://furrow${path.replace(/\/[^/]+$/, '/other.csv')}`), ask)).status).toBe(404);
      expect((await bytesResponse(request(url, {}, 'POST'), ask)).status).toBe(405);
      // Main closes its end after every answer; the host's side ends with it (and closes the file).
      await expect.poll(() => ends.length).toBe(6);
      // A reader that stops early: the host is told, its file closed.
      const dropped = await bytesResponse(request(url), ask);
      const reader = dropped.body!.getReader();
      await reader.read();
      await reader.cancel();
      await expect.poll(() => ends.length).toBe(7);
      session.close();
      expect((await bytesResponse(request(url), ask)).status).toBe(404);
    } finally {
      registry.close();
    }
  });

  it("answers a layer's kept file whole and by range, for as long as the host keeps it and the session lasts", async () => {
    const registry = new ByteResources(join(dir, 'layer-exports'));
    try {
      const session = registry.session();
      const file = join(dir, 'kept.pmtiles');
      const data = Buffer.alloc(600_000);
      for (let i = 0; i < data.length; i++) data[i] = (i * 13) % 241;
      writeFileSync(file, data);
      let kept: string | null = file;
      const path = session.addKeptFile('file:x', { name: 'layer.pmtiles', type: 'application/vnd.pmtiles', path: () => kept });
      const ask = () => {
        const { port1, port2 } = new MessageChannel();
        const end = serveBytesPort(messagePortMain(asMain(port1), () => end()), registry);
        return asMain(port2);
      };
      const url = `app://furrow${path}`;
      const whole = await bytesResponse(request(url), ask);
      expect([whole.status, whole.headers.get('content-type'), whole.headers.get('content-disposition')]).toEqual([200, 'application/vnd.pmtiles', null]);
      expect(Buffer.from(await whole.arrayBuffer()).equals(data)).toBe(true);
      const part = await bytesResponse(request(url, { range: 'bytes=262000-262143' }), ask);
      expect([part.status, part.headers.get('content-range')]).toEqual([206, `bytes 262000-262143/${data.length}`]);
      expect(Buffer.from(await part.arrayBuffer()).equals(data.subarray(262000, 262144))).toBe(true);
      expect((await bytesResponse(request(url.replace('layer.pmtiles', 'other.pmtiles')), ask)).status).toBe(404);
      // No longer kept by the host: none; the file itself is never the registry's.
      kept = null;
      expect((await bytesResponse(request(url), ask)).status).toBe(404);
      kept = file;
      session.close();
      expect((await bytesResponse(request(url), ask)).status).toBe(404);
      expect(existsSync(file)).toBe(true);
    } finally {
      registry.close();
    }
  });
});

describe("main's bytes response for bytes a reader makes (an area's tiles kept offline)", () => {
  it('answers the whole, a range and HEAD from the reader, and 404 for a name it does not know', async () => {
    const registry = new ByteResources(join(mkdtempSync(join(tmpdir(), 'furrow-main-reader-')), 'exports'));
    try {
      const session = registry.session();
      const tile = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 13) % 256));
      const { template } = session.addReader('offline:a', (name) => (name === '16-35200-21490' ? { data: tile, type: 'image/png', etag: '"a-16-35200-21490"' } : null));
      const ask = () => {
        const { port1, port2 } = new MessageChannel();
        const end = serveBytesPort(messagePortMain(asMain(port1), () => end()), registry);
        return asMain(port2);
      };
      const url = `app://furrow${template.replace('{name}', '16-35200-21490')}`;
      const whole = await bytesResponse(request(url), ask);
      expect([whole.status, whole.headers.get('content-type'), whole.headers.get('etag'), whole.headers.get('content-disposition')]).toEqual([200, 'image/png', '"a-16-35200-21490"', null]);
      // More than one chunk (256 KiB) crosses, in order.
      expect(Buffer.from(await whole.arrayBuffer()).equals(tile)).toBe(true);
      const part = await bytesResponse(request(url, { range: 'bytes=262140-262150' }), ask);
      expect([part.status, part.headers.get('content-range')]).toEqual([206, `bytes 262140-262150/${tile.length}`]);
      expect(Buffer.from(await part.arrayBuffer()).equals(tile.subarray(262140, 262151))).toBe(true);
      expect((await bytesResponse(request(url, {}, 'HEAD'), ask)).headers.get('content-length')).toBe(String(tile.length));
      expect((await bytesResponse(request(`app://furrow${template.replace('{name}', '16-0-0')}`), ask)).status).toBe(404);
      session.close();
      expect((await bytesResponse(request(url), ask)).status).toBe(404);
    } finally {
      registry.close();
    }
  });
});

describe('through the development bridge to a real host', () => {
  let dir: string;
  let host: Host;
  let farm: string;
  const ACC = 'acc-00000000-0000-4000-8000-0000000000c1';
  /** Main's side of the bridge: the stand-in parentPort the bridge listens to. */
  const mainListeners = new Set<(e: { data: unknown; ports?: MessagePortMainLike[] }) => void>();
  const fromMain = (data: unknown, ports?: MessagePortMainLike[]) => { for (const l of mainListeners) l({ data, ports }); };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'furrow-main-bytes-host-'));
    const m = Mirror.open(join(dir, 'mirror.db'));
    m.syncDb.prepare("INSERT INTO accounts (id, service_url, mode, label, created) VALUES (?, 'http://127.0.0.1:1', 'api_key', 'Grower', '2026-01-01')").run(ACC);
    farm = m.write.createFarm(ACC, 'Hof').local_id;
    m.write.createParcels(farm, Array.from({ length: 1500 }, (_, i) => pointParcel(`Baum ${i}`, 1, 9 + (i % 50) * 0.001, 52 + Math.floor(i / 50) * 0.001)));
    m.close();
    host = await launchHost({ home: dir });
    bridgeHost({ on: (_event, l) => { mainListeners.add(l); }, postMessage: () => {} }, childPort(host.child));
    fromMain({ type: HOST_SECRETS });
  }, 120_000);
  afterAll(async () => {
    await host?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a window's page exports, and main fetches the file from the host by range through the bridge", async () => {
    // The window's page: a port main hands the host through the bridge, the renderer's own client on the other end.
    const page = new MessageChannel();
    fromMain({ type: RENDERER_PORT }, [asMain(page.port2)]);
    const client = createClient(API, messagePortPort(page.port1 as unknown as MessagePort), API_EVENTS);
    await client.api.hello({ apiVersion: API_VERSION });
    const r = await client.api.exportDownload({ account: ACC, farm, format: 'geojson' });
    const reference = join(dir, 'reference.geojson');
    await host.api.exportFile({ path: reference, farm });
    const want = readFileSync(reference);
    expect(r.bytes).toBe(want.length);

    // Each request: a fresh channel, one end to the host through the bridge (BYTES_PORT), main keeps the other.
    const ask = () => {
      const { port1, port2 } = new MessageChannel();
      fromMain({ type: BYTES_PORT }, [asMain(port1)]);
      return asMain(port2);
    };
    const url = `app://furrow${r.path}`;
    const whole = await bytesResponse(request(url), ask);
    expect([whole.status, whole.headers.get('content-type'), whole.headers.get('content-disposition')]).toEqual([200, 'application/geo+json', `attachment; filename="Hof.geojson"; filename*=UTF-8''Hof.geojson`]);
    expect(Buffer.from(await whole.arrayBuffer()).equals(want)).toBe(true);
    const tail = await bytesResponse(request(url, { range: 'bytes=-100' }), ask);
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(want.subarray(want.length - 100))).toBe(true);

    // The page gone (its port closed), its key leads nowhere.
    client.close();
    page.port1.close();
    await expect.poll(async () => (await bytesResponse(request(url), ask)).status, { timeout: 10_000 }).toBe(404);
  }, 60_000);
});
