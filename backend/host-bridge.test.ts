// Electron's transport without Electron (its binary cannot be downloaded here): the renderer's MessagePort client
// (renderer/electron-port.ts, the code the window runs) against a real mirror host process, through the development
// bridge's own session code (host-bridge.ts bridgeSession). A Node MessageChannel stands in for Electron's
// MessageChannelMain: the renderer's end is a DOM-style MessagePort in both; the bridge's end gets MessagePortMain's
// shape (an event with `data`, a 'close' event) from a small adapter.
import { MessageChannel } from 'node:worker_threads';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncWorld, type SyncWorld } from '../test/helpers/sync.ts';
import { square } from '../test/helpers/service.ts';
import { API, API_EVENTS, API_VERSION, type Api, type ApiEvents } from '../core/api.ts';
import { allEvents, type SeenEvent } from '../test/helpers/host.ts';
import { createClient, RpcCode, type Client } from '../core/rpc.ts';
import { messagePortPort } from '../renderer/electron-port.ts';
import { bridgeSession } from './host-bridge.ts';
import { launchHost, type Host } from './launch.ts';
import { childPort, messagePortMain } from './node-ports.ts';
import { asMain } from '../test/helpers/message-port-main.ts';


let dir: string;
let w: SyncWorld;
let host: Host;
let sessions = 0;

/** A renderer connected as the window connects: a fresh channel, one end bridged to the host, the other to the client. */
function renderer(): { client: Client<Api, ApiEvents>; close(): void } {
  const { port1, port2 } = new MessageChannel();
  bridgeSession(childPort(host.child), ++sessions, (onClose) => messagePortMain(asMain(port2), onClose));
  const client = createClient(API, messagePortPort(port1 as unknown as MessagePort), API_EVENTS);
  return { client, close: () => { client.close(); port1.close(); } };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-bridge-'));
  w = await syncWorld({ LOG_LEVEL: 'fatal' });
  host = await launchHost({ home: dir, env: { FURROW_SETTLE_MS: '200', FURROW_MAX_WAIT_MS: '3000' } });
}, 120_000);
afterAll(async () => {
  await host?.close();
  await w?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("Electron's MessagePort transport against a real host", () => {
  it('calls, refusals and argument checks round-trip', async () => {
    const r = renderer();
    expect(await r.client.api.hello({ apiVersion: API_VERSION })).toMatchObject({ apiVersion: API_VERSION, pid: host.pid });
    expect(await r.client.api.accounts({})).toEqual([]);
    await expect(r.client.api.hello({ apiVersion: API_VERSION + 1 })).rejects.toMatchObject({ code: 'version_mismatch' });
    await expect(r.client.api.farms({ account: 42 } as never)).rejects.toMatchObject({ code: RpcCode.invalidArguments });
    // A refused connect comes back as the backend's coded error.
    await expect(r.client.api.connect({ service: 'not a url', apiKey: 'k', account: 'acc-1' })).rejects.toMatchObject({ code: 'connect_refused' });
    r.close();
  }, 60_000);

  it('connects an account, sends the map as JSON items, and gives every page the events; a closed page ends only its session', async () => {
    const a = renderer();
    const b = renderer();
    const seenA: SeenEvent[] = [];
    const seenB: SeenEvent[] = [];
    allEvents(a.client.on.bind(a.client), (e) => seenA.push(e));
    allEvents(b.client.on.bind(b.client), (e) => seenB.push(e));
    // The same call ids (1, 2, …) on both ports at once, each answered on its own.
    const [x, y] = await Promise.all([a.client.api.hello({ apiVersion: API_VERSION }), b.client.api.hello({ apiVersion: API_VERSION })]);
    expect([x.pid, y.pid]).toEqual([host.pid, host.pid]);

    const acc = (await w.api('POST', '/api/accounts/', { account_email: `bridge-${Date.now()}@example.com` })).body.id as string;
    await expect(a.client.api.connect({ service: w.svc.url, account: acc, apiKey: 'fk_wrong' })).rejects.toMatchObject({ code: 'connect_refused' });
    const { account } = await a.client.api.connect({ service: w.svc.url, account: acc, apiKey: w.apiKey, label: 'Over a port' });
    expect(account).toMatchObject({ id: acc, label: 'Over a port' });
    await expect.poll(() => seenB.some((e) => e.type === 'accounts')).toBe(true);
    expect(seenA.some((e) => e.type === 'accounts')).toBe(true);

    // A viewport answer is JsonItems: its items cross as structured-cloned texts and the client parses them.
    const farm = await b.client.api.createFarm({ account: acc, name: 'Port farm' });
    await b.client.api.createParcel({ farm: farm.id, name: 'Port parcel', geometry: { type: 'Polygon', coordinates: square(-4.5, 37.5, 100) } });
    const view = await a.client.api.viewport({ account: acc, bbox: [-5, 37, -4, 38] });
    expect(JSON.stringify(view)).toContain('Port parcel');

    // The page closed (a reload, its window gone): its session ends in the host, which sends it nothing more.
    const channel = childPort(host.child);
    const sessionOfA = sessions - 1;
    const after: unknown[] = [];
    const stop = channel.onMessage((m) => { if ((m as { furrowSession?: number }).furrowSession === sessionOfA) after.push(m); });
    a.close();
    await new Promise((r) => setTimeout(r, 300));
    await b.client.api.createFarm({ account: acc, name: 'Second port farm' });
    await expect.poll(() => seenB.filter((e) => e.type === 'changed').length).toBeGreaterThan(1);
    expect(after).toEqual([]);
    stop();
    // The launcher's own client on the same channel went on beside the sessions.
    expect((await host.api.accounts({})).map((x) => x.id)).toEqual([acc]);
    b.close();
  }, 120_000);
});
