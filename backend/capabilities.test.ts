// Who may call what, enforced by a real mirror host on every kind of session it serves: its parent's channel (the
// user's own process: npm start's launcher, a test — a 'cli' caller), a browser tab's WebSocket and an Electron
// window's port through the development bridge (both pages). A page never names a path nor supplies a command: the
// powers only the command line needs are refused to it before its arguments are even read.
import { MessageChannel } from 'node:worker_threads';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { TSchema } from '@sinclair/typebox';
import { API, API_EVENTS, API_VERSION, type Api, type ApiEvents } from '../core/api.ts';
import { createClient, RpcCode, RpcError, type Client } from '../core/rpc.ts';
import { wsPort } from '../test/helpers/ws-port.ts';
import { freePort } from '../test/helpers/process.ts';
import { syncWorld, type SyncWorld } from '../test/helpers/sync.ts';
import { messagePortPort } from '../renderer/electron-port.ts';
import { PROTOCOL } from './browser-server.ts';
import { bridgeSession } from './host-bridge.ts';
import { launchHost, type Host } from './launch.ts';
import { isExternalLink } from '../core/host-protocol.ts';
import { childPort, messagePortMain } from './node-ports.ts';
import { asMain } from '../test/helpers/message-port-main.ts';

/** What only the command line may call: each takes a path or a command. A change here is a security decision. */
const CLI_ONLY_METHODS = ['addLayerFilePath', 'connectWithCommand', 'exportFile', 'importFile',
  // A serial device by its path (a Bluetooth /dev/rfcomm0, a pseudo-terminal the port list does not show): a page
  // chooses among the listed ports by the host's opaque ids and never names a device.
  'positionConnectPath'];
/**
 * What only a page may call: a download, a layer file's or an offline area's bytes the host serves at a path only the
 * asking page session can read (backend/bytes.ts), and the file the user chose in Electron's dialog, by its ticket.
 */
const PAGE_ONLY_METHODS = ['addLayerFileChosen', 'exportDownload', 'layerFileSource', 'offlineTiles', 'parcelTiles',
  // The rotation plan's summary and plan files, a download like exportDownload's (backend/plan.ts).
  'planDownload',
  // The system's location as the page's Geolocation read it: only a page has one to report (the shells grant it to
  // the app's own page alone); the host takes it only while the source chosen is 'system'.
  'positionReport',
  // A print is written into the page session's own downloads, as an export is, and read back by its /bytes/ path.
  'printMap'];
/**
 * Methods both may call that hand the page something of the host's own (not the account's data), pinned: a change here
 * is a security decision. crsDefinition: an EPSG code's public proj4 definition (epsg-index, which the page cannot
 * read), for placing typed coordinates; it takes a number, names no file and reads only the package's file of that code.
 */
const HOST_DATA_FOR_PAGES = ['crsDefinition',
  // positionPorts: this computer's serial ports, for the page to choose a receiver among them — each as an opaque id
  // (a keyed hash of its path, the key kept in FURROW_HOME) and a label of its device name and maker; never a path.
  'positionPorts'];

let dir: string;
let w: SyncWorld;
let host: Host;
let port: number;
const token = randomBytes(32).toString('base64url');

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-capabilities-'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Furrow</title>');
  w = await syncWorld({ LOG_LEVEL: 'fatal' });
  port = await freePort();
  host = await launchHost({ home: join(dir, 'home'), env: { FURROW_BROWSER_PORT: String(port), FURROW_RENDERER_DIR: dir }, secrets: { browserToken: token } });
}, 120_000);
afterAll(async () => {
  await host?.close();
  await w?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A browser tab's session: the WebSocket with this launch's token, as renderer/ws-port.ts opens it. */
async function tab(): Promise<{ client: Client<Api, ApiEvents>; close(): void }> {
  let ws: WebSocket | null = null;
  for (let i = 0; i < 100 && !ws; i++) {
    ws = await new Promise<WebSocket | null>((resolve) => {
      const s = new WebSocket(`ws://127.0.0.1:${port}/`, [PROTOCOL, `furrow-token.${token}`], { origin: `http://127.0.0.1:${port}` });
      s.once('open', () => resolve(s));
      s.once('error', () => resolve(null)); // the browser server may still be starting
    });
    if (!ws) await new Promise((r) => setTimeout(r, 50));
  }
  const socket = ws!;
  const client = createClient(API, wsPort(socket), API_EVENTS);
  return { client, close: () => { client.close(); socket.close(); } };
}

let sessions = 1000;
/** An Electron window's session through the development bridge (backend/host-bridge.test.ts has the details). */
function windowPage(): { client: Client<Api, ApiEvents>; close(): void } {
  const { port1, port2 } = new MessageChannel();
  const main = asMain(port2);
  bridgeSession(childPort(host.child), ++sessions, (onClose) => messagePortMain(main, onClose));
  const client = createClient(API, messagePortPort(port1 as unknown as MessagePort), API_EVENTS);
  return { client, close: () => { client.close(); port1.close(); } };
}

/** The code a call ends with (null: it succeeded). */
async function outcome(client: Client<Api, ApiEvents>, method: string, args: unknown): Promise<string | null> {
  try {
    await (client.api as Record<string, (a: unknown) => Promise<unknown>>)[method]!(args);
    return null;
  } catch (err) {
    return err instanceof RpcError ? err.code : `thrown: ${String(err)}`;
  }
}

/** The host's own id for a file it keeps (core/api-layers.ts LayerFileId): 32 hex digits, which no path can be. */
const KEPT_FILE_ID = '^[0-9a-f]{32}$';

/** Property names anywhere in a schema, but a kept file's id (named `file`, and no path). */
function keys(schema: TSchema, into = new Set<string>()): Set<string> {
  const s = schema as { properties?: Record<string, TSchema>; anyOf?: TSchema[]; items?: TSchema };
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    if ((v as { pattern?: string }).pattern !== KEPT_FILE_ID) into.add(k);
    keys(v, into);
  }
  for (const v of s.anyOf ?? []) keys(v, into);
  if (s.items) keys(s.items, into);
  return into;
}

describe('capabilities per caller', () => {
  it('the contract gives every method its callers, and only the path and command methods are the command line\'s', () => {
    for (const [name, spec] of Object.entries(API)) expect(spec.callers.length, name).toBeGreaterThan(0);
    expect(Object.entries(API).filter(([, s]) => !(s.callers as readonly string[]).includes('page')).map(([n]) => n).sort()).toEqual(CLI_ONLY_METHODS);
    expect(Object.entries(API).filter(([, s]) => !(s.callers as readonly string[]).includes('cli')).map(([n]) => n).sort()).toEqual(PAGE_ONLY_METHODS);
    for (const name of HOST_DATA_FOR_PAGES) expect([...API[name as keyof typeof API].callers].sort(), name).toEqual(['cli', 'page']);
    // Nothing a page may call takes a path, a folder or a command (a file's display name is not a path).
    for (const [name, spec] of Object.entries(API)) {
      if (!(spec.callers as readonly string[]).includes('page')) continue;
      const named = [...keys(spec.args)].filter((k) => /path|dir|folder|command|cmd|exec|^file$/i.test(k));
      expect(named, name).toEqual([]);
    }
  });

  it('every method against every kind of session: pages are refused the command line\'s methods whatever the arguments, the parent only the page\'s downloads', async () => {
    const pages = { tab: await tab(), window: windowPage() };
    for (const p of Object.values(pages)) expect(await p.client.api.hello({ apiVersion: API_VERSION })).toMatchObject({ pid: host.pid });
    for (const method of Object.keys(API)) {
      const pageOnly = !CLI_ONLY_METHODS.includes(method);
      // Arguments that are wrong for every method: refused as such, or as forbidden before they are read.
      for (const [kind, p] of Object.entries(pages)) {
        expect(await outcome(p.client, method, { nonsense: true }), `${kind} ${method}`).toBe(pageOnly ? RpcCode.invalidArguments : RpcCode.forbidden);
      }
      expect(await outcome(host.client, method, { nonsense: true }), `parent ${method}`).toBe(PAGE_ONLY_METHODS.includes(method) ? RpcCode.forbidden : RpcCode.invalidArguments);
    }
    for (const p of Object.values(pages)) p.close();
  }, 60_000);

  it('a page can neither write nor read a path, nor tell whether a file exists, nor run a command', async () => {
    const acc = (await w.api('POST', '/api/accounts/', { account_email: `caps-${Date.now()}@example.com` })).body.id as string;
    await host.api.connect({ service: w.svc.url, account: acc, apiKey: w.apiKey });
    const marker = join(dir, 'ran');
    const written = join(dir, 'written.geojson');
    for (const p of [await tab(), windowPage()]) {
      await expect(p.client.api.exportFile({ path: written, account: acc })).rejects.toMatchObject({ code: RpcCode.forbidden });
      const real = await outcome(p.client, 'importFile', { account: acc, path: '/etc/passwd', farm: 'F' });
      const missing = await outcome(p.client, 'importFile', { account: acc, path: join(dir, 'no-such-file.geojson'), farm: 'F' });
      expect([real, missing]).toEqual([RpcCode.forbidden, RpcCode.forbidden]);
      const [a, b] = await Promise.all(['/etc/passwd', '/nope'].map((path) => p.client.api.importFile({ account: acc, path, farm: 'F' }).catch((e: Error) => e.message)));
      expect(a).toBe(b);
      const token = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhY2MtMSIsImV4cCI6OTk5OTk5OTk5OX0.x';
      await expect(p.client.api.connectWithCommand({ service: w.svc.url, token, tokenCommand: `touch ${marker}` })).rejects.toMatchObject({ code: RpcCode.forbidden });
      // connect has no command: one smuggled in is an unknown argument.
      await expect(p.client.api.connect({ service: w.svc.url, token, tokenCommand: `touch ${marker}` } as never)).rejects.toMatchObject({ code: RpcCode.invalidArguments });
      p.close();
    }
    await new Promise((r) => setTimeout(r, 200));
    expect([existsSync(written), existsSync(marker)]).toEqual([false, false]);
    // The one external address a page may have opened, the account's embedded map, is announced to the parent
    // (Electron's main opens no other: electron/external-links.ts).
    const announced: unknown[] = [];
    const stop = childPort(host.child).onMessage((m) => { if (isExternalLink(m)) announced.push({ url: m.url, service: m.service }); });
    const page = await tab();
    const { url } = await page.client.api.embeddedMap({ account: acc });
    // With the account's service, whose origin decides whether main opens it at once or asks first.
    await expect.poll(() => announced).toEqual([{ url, service: w.svc.url }]);
    stop();
    page.close();
    // The user's own process still has them.
    expect(await host.api.exportFile({ path: written, account: acc })).toMatchObject({ format: 'geojson', parcels: 0 });
    expect(existsSync(written)).toBe(true);
  }, 60_000);

  it("tells a page that an internal error happened, never its detail (an absolute path); the parent gets the detail", async () => {
    const acc = (await w.api('POST', '/api/accounts/', { account_email: `caps-internal-${Date.now()}@example.com` })).body.id as string;
    await host.api.connect({ service: w.svc.url, account: acc, apiKey: w.apiKey });
    // The previews' folder made impossible: keeping a dropped file fails in the file system, naming the full path.
    const imports = join(dir, 'home', 'imports');
    rmSync(imports, { recursive: true, force: true });
    writeFileSync(imports, 'not a folder');
    const data = Buffer.from('{"type":"FeatureCollection","features":[]}').toString('base64');
    try {
      for (const p of [await tab(), windowPage()]) {
        const err = await p.client.api.importPreview({ account: acc, fileName: 'fields.geojson', data }).then(() => null, (e: unknown) => e);
        expect(err).toMatchObject({ code: RpcCode.internal, message: expect.stringContaining("Something went wrong in the app's backend (internal_error); details are in its log") });
        const message = (err as Error).message;
        expect(message).not.toContain(dir);
        expect(message).not.toMatch(/EEXIST|\/imports|mkdir/);
        // A refusal the backend words itself is said to the page as it is.
        await expect(p.client.api.importPreview({ account: 'acc-nobody', fileName: 'fields.geojson', data })).rejects.toMatchObject({ code: 'no_account', message: expect.stringContaining('acc-nobody') });
        p.close();
      }
      // The user's own process (the launcher, a test, the CLI) gets what happened.
      await expect(host.api.importPreview({ account: acc, fileName: 'fields.geojson', data })).rejects.toMatchObject({ code: RpcCode.internal, message: expect.stringContaining(imports) });
    } finally {
      rmSync(imports, { force: true });
    }
  }, 60_000);
});
