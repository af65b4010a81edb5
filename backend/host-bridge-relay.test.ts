// The development bridge's relay (host-bridge.ts bridgeHost) between a stand-in for Electron's parentPort and a
// stand-in for the host's channel, in memory: main's secrets reach the host first, before any renderer's session, and
// only the host's external-link announcements go up to main. (host-bridge.test.ts drives the sessions against a real
// host.)
import { describe, expect, it } from 'vitest';
import { BYTES_PORT, EXTERNAL_LINK, HOST_SECRETS, LAYER_FILE_CHOSEN } from '../core/host-protocol.ts';
import type { Port } from '../core/rpc.ts';
import { bridgeHost } from './host-bridge.ts';
import { RENDERER_PORT, type MessagePortMainLike, type ParentEvent } from './node-ports.ts';


function world() {
  const parentListeners = new Set<(e: ParentEvent) => void>();
  const toMain: unknown[] = [];
  const parent = {
    postMessage: (m: unknown) => { toMain.push(m); },
    on: (_event: 'message', l: (e: ParentEvent) => void) => { parentListeners.add(l); },
  };
  const channelListeners = new Set<(m: unknown) => void>();
  const toHost: unknown[] = [];
  const channel: Port = {
    postMessage: (m) => { toHost.push(m); },
    onMessage(l) {
      channelListeners.add(l);
      return () => channelListeners.delete(l);
    },
  };
  const stop = bridgeHost(parent, channel);
  return {
    toMain, toHost, stop,
    fromMain: (data: unknown, ports?: MessagePortMainLike[]) => { for (const l of parentListeners) l({ data, ports }); },
    fromHost: (m: unknown) => { for (const l of channelListeners) l(m); },
  };
}

/** A renderer's port: what the page sends (`send`), and what it was sent. */
function rendererPort() {
  const listeners = new Set<(e: { data: unknown }) => void>();
  const received: unknown[] = [];
  let started = false;
  const port = {
    postMessage: (m: unknown) => { received.push(m); },
    on: (event: string, l: (e: { data: unknown }) => void) => { if (event === 'message') listeners.add(l); return port; },
    off: (_event: string, l: (e: { data: unknown }) => void) => { listeners.delete(l); return port; },
    start: () => { started = true; },
    close: () => {},
  } as unknown as MessagePortMainLike;
  return { port, received, started: () => started, send: (data: unknown) => { for (const l of listeners) l({ data }); } };
}

describe('the development bridge relay', () => {
  it("passes main's secrets to the host first, then each renderer's port as a session", () => {
    const w = world();
    const secrets = { type: HOST_SECRETS, credentialKey: 'a2V5' };
    w.fromMain(secrets);
    const r = rendererPort();
    w.fromMain({ type: RENDERER_PORT }, [r.port]);
    r.send({ id: 1, method: 'hello' });
    expect(w.toHost).toEqual([secrets, { furrowSession: 1, m: { id: 1, method: 'hello' } }]);
    // The host's answer on that session reaches the page.
    w.fromHost({ furrowSession: 1, m: { id: 1, result: 'hi' } });
    expect(r.received).toEqual([{ id: 1, result: 'hi' }]);
  });

  it('holds a renderer port that came before the secrets until they came, and passes only the first secrets', () => {
    const w = world();
    const r = rendererPort();
    w.fromMain({ type: RENDERER_PORT }, [r.port]);
    expect(r.started()).toBe(false); // its messages wait in the port
    expect(w.toHost).toEqual([]);
    w.fromMain({ type: HOST_SECRETS });
    expect(r.started()).toBe(true);
    r.send('call');
    w.fromMain({ type: HOST_SECRETS, credentialKey: 'b3RoZXI=' });
    expect(w.toHost).toEqual([{ type: HOST_SECRETS }, { furrowSession: 1, m: 'call' }]);
  });

  it('passes no malformed secrets and no other message of main on to the host', () => {
    const w = world();
    w.fromMain({ type: HOST_SECRETS, credentialKey: 42 });
    w.fromMain({ type: 'something else' });
    w.fromMain({ type: RENDERER_PORT }); // no port
    expect(w.toHost).toEqual([]);
  });

  it("carries each bytes request's port as a bytes session, after the secrets, apart from the renderers' sessions", () => {
    const w = world();
    const early = rendererPort();
    w.fromMain({ type: BYTES_PORT }, [early.port]);
    expect(early.started()).toBe(false);
    w.fromMain({ type: HOST_SECRETS });
    const page = rendererPort();
    w.fromMain({ type: RENDERER_PORT }, [page.port]);
    early.send({ t: 'get', method: 'GET', path: '/bytes/x', range: null, ifRange: null });
    page.send({ id: 1, method: 'hello' });
    expect(w.toHost).toEqual([
      { type: HOST_SECRETS },
      { furrowBytes: 1, m: { t: 'get', method: 'GET', path: '/bytes/x', range: null, ifRange: null } },
      { furrowSession: 2, m: { id: 1, method: 'hello' } },
    ]);
    // The host's answer goes to that request's port only.
    w.fromHost({ furrowBytes: 1, m: { t: 'head', status: 404, headers: {}, body: false } });
    w.fromHost({ furrowSession: 1, m: 'not for the bytes port' });
    expect(early.received).toEqual([{ t: 'head', status: 404, headers: {}, body: false }]);
    expect(page.received).toEqual([]);
    // Nothing of it goes up to main on the parent's channel.
    expect(w.toMain).toEqual([]);
  });

  it("relays the host's external-link announcements up to main, with the service they came from, and nothing else it sends", () => {
    const w = world();
    const url = 'https://service.example/embed/acc-1/map';
    const service = 'https://service.example';
    w.fromHost({ type: EXTERNAL_LINK, url, service });
    w.fromHost({ type: EXTERNAL_LINK, url: 42, service });
    // Without its service main could not tell whether to ask the user first: not an announcement.
    w.fromHost({ type: EXTERNAL_LINK, url });
    w.fromHost({ type: EXTERNAL_LINK, url, service: 42 });
    w.fromHost({ type: EXTERNAL_LINK, url, service, extra: 'dropped' });
    w.fromHost({ event: { type: 'accounts' } });
    w.fromHost({ furrowSession: 1, m: { type: EXTERNAL_LINK, url: 'https://evil.example/', service } });
    w.fromHost({ type: HOST_SECRETS, credentialKey: 'a2V5' });
    expect(w.toMain).toEqual([{ type: EXTERNAL_LINK, url, service }, { type: EXTERNAL_LINK, url, service }]);
    w.stop();
    w.fromHost({ type: EXTERNAL_LINK, url, service });
    expect(w.toMain).toHaveLength(2);
  });

  it("passes the file main's dialog chose for a layer down to the host, after the secrets, and nothing malformed", () => {
    const w = world();
    const chosen = { type: LAYER_FILE_CHOSEN, ticket: 'd'.repeat(32), path: '/home/ana/Ortofoto.tif' };
    w.fromMain({ ...chosen, extra: 'dropped' });
    expect(w.toHost).toEqual([]);
    w.fromMain({ type: HOST_SECRETS });
    w.fromMain({ type: LAYER_FILE_CHOSEN, ticket: 'not hex', path: '/x' });
    w.fromMain({ type: LAYER_FILE_CHOSEN, ticket: 'd'.repeat(32), path: 42 });
    w.fromMain(chosen);
    expect(w.toHost).toEqual([{ type: HOST_SECRETS }, chosen, chosen]);
    expect(w.toMain).toEqual([]);
  });
});
