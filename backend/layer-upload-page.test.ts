// The page's own upload code (renderer/features/layers/upload-file.ts, what "Open a file as a layer…" runs in browser
// mode) against a real mirror host over browser mode's real WebSocket: a File of several chunks sent a few at a
// time and kept byte for byte, with its progress; Cancel midway leaves nothing in the host's folder; a file the map
// cannot show comes back in the host's words; Electron's way (main's dialog, then a ticket) through a stand-in for
// the preload's bridge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { API, API_EVENTS, API_VERSION, type Api, type ApiEvents } from '../core/api.ts';
import { createClient, RpcCode, type Client } from '../core/rpc.ts';
import { LAYER_FILE_CHOSEN } from '../core/host-protocol.ts';
import { LAYER_CHUNK_BYTES } from '../core/layers/layer-files.ts';
import { pageSocket, wsPort } from '../test/helpers/ws-port.ts';
import { freePort } from '../test/helpers/process.ts';
import { cog } from '../test/helpers/layer-fixtures.ts';
import { chooseLayerFile, toBase64, uploadLayerFile } from '../renderer/features/layers/upload-file.ts';
import { launchHost, type Host } from './launch.ts';

let dir: string;
let home: string;
let host: Host;
let port: number;
let tif: Buffer;
let tifPath: string;
const token = randomBytes(32).toString('base64url');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-layer-page-'));
  mkdirSync(join(dir, 'renderer'));
  writeFileSync(join(dir, 'renderer', 'index.html'), '<!doctype html>');
  home = join(dir, 'home');
  // Several chunks: an uncompressed COG of 1200 px.
  tifPath = cog(dir, 'Ortofoto', 25830, [40, 120, 200], 1200, 'NONE');
  tif = readFileSync(tifPath);
  expect(tif.length).toBeGreaterThan(4 * LAYER_CHUNK_BYTES);
  port = await freePort();
  host = await launchHost({ home, env: { FURROW_BROWSER_PORT: String(port), FURROW_RENDERER_DIR: join(dir, 'renderer') }, secrets: { browserToken: token } });
}, 120_000);
afterAll(async () => {
  await host?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function tab(): Promise<{ api: Client<Api, ApiEvents>['api']; close(): void }> {
  const ws = await pageSocket(port, token);
  const client = createClient(API, wsPort(ws), API_EVENTS);
  await client.api.hello({ apiVersion: API_VERSION });
  return { api: client.api, close: () => { client.close(); ws.close(); } };
}

const folder = () => readdirSync(join(home, 'layers'));

describe("the page's upload of a layer file", () => {
  it('encodes as Node does', () => {
    const b = randomBytes(100_003);
    expect(toBase64(b)).toBe(b.toString('base64'));
    expect(toBase64(new Uint8Array())).toBe('');
  });

  it('sends a File in chunks, a few at a time, kept byte for byte, its progress up to the whole', async () => {
    const page = await tab();
    const progress: number[] = [];
    const info = await uploadLayerFile(page.api, new File([new Uint8Array(tif)], 'Ortofoto 2024.tif'), { onProgress: (done, total) => { expect(total).toBe(tif.length); progress.push(done); } });
    expect(info).toMatchObject({ format: 'geotiff', name: 'Ortofoto 2024', epsg: 25830, bytes: tif.length });
    expect(progress).toHaveLength(Math.ceil(tif.length / LAYER_CHUNK_BYTES));
    expect(progress.at(-1)).toBe(tif.length);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    expect(readFileSync(join(home, 'layers', `${info.file}.tif`)).equals(tif)).toBe(true);
    page.close();
  }, 60_000);

  it('cancelled midway, leaves nothing on the host', async () => {
    const page = await tab();
    const before = folder();
    const stop = new AbortController();
    const sent = uploadLayerFile(page.api, new File([new Uint8Array(tif)], 'big.tif'), { signal: stop.signal, onProgress: (done) => { if (done >= LAYER_CHUNK_BYTES) stop.abort(); } });
    await expect(sent).rejects.toMatchObject({ code: RpcCode.cancelled });
    await expect.poll(() => folder()).toEqual(before);
    page.close();
  }, 60_000);

  it("says in the host's words why a file cannot be a layer, leaving nothing", async () => {
    const page = await tab();
    const before = folder();
    await expect(uploadLayerFile(page.api, new File(['<html>hello</html>'], 'page.html'))).rejects.toMatchObject({
      code: 'unsupported_layer_file', message: expect.stringMatching(/^page\.html is not a file the map shows: open MBTiles, PMTiles, GeoTIFF/),
    });
    expect(folder()).toEqual(before);
    page.close();
  }, 60_000);

  it("takes Electron's way: main's dialog gives a ticket, the host copies the file chosen", async () => {
    const page = await tab();
    const progress: number[] = [];
    // The preload's bridge, standing in for main: the dialog's path goes to the host, the ticket to the page.
    const bridge = {
      chooseLayerFile: () => {
        const ticket = randomBytes(16).toString('hex');
        host.child.send({ type: LAYER_FILE_CHOSEN, ticket, path: tifPath });
        return Promise.resolve(ticket);
      },
    };
    expect(await chooseLayerFile(page.api, bridge, { onProgress: (done) => progress.push(done) })).toMatchObject({ format: 'geotiff', name: 'Ortofoto', bytes: tif.length });
    expect(progress.at(-1)).toBe(tif.length);
    // The dialog cancelled: nothing.
    expect(await chooseLayerFile(page.api, { chooseLayerFile: () => Promise.resolve(null) })).toBeNull();
    await expect(chooseLayerFile(page.api, {})).rejects.toThrow(/update the app/);
    page.close();
  }, 60_000);
});
