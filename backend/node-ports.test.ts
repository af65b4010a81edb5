// The host's channel in the packaged app: Electron's process.parentPort, which wraps each message in an event's
// `data`. Electron cannot run here, so an EventEmitter with parentPort's shape stands in for it.
import { EventEmitter } from 'node:events';
import { expect, it } from 'vitest';
import type { Port } from '../core/rpc.ts';
import { acceptRendererPorts, acceptSessions, parentChannel, portOf, RENDERER_PORT, sessionPort } from './node-ports.ts';

it("speaks over Electron's parentPort when the host runs in a utilityProcess", () => {
  const sent: unknown[] = [];
  const parentPort = Object.assign(new EventEmitter(), { postMessage: (m: unknown) => sent.push(m) });
  const port = portOf(parentChannel({ parentPort } as unknown as NodeJS.Process));
  const got: unknown[] = [];
  const stop = port.onMessage((m) => got.push(m));
  parentPort.emit('message', { data: { id: 1, method: 'hello' }, ports: [] });
  stop();
  parentPort.emit('message', { data: { id: 2 }, ports: [] });
  port.postMessage({ id: 1, result: 'ok' });
  expect(got).toEqual([{ id: 1, method: 'hello' }]);
  expect(sent).toEqual([{ id: 1, result: 'ok' }]);
});

// The packaged app: main transfers each renderer's MessagePortMain to the host on the parentPort. Stand-ins with
// their shapes (an event with `data` and `ports`; a port with start and a 'close' event).
it('serves every renderer port main transfers, started, until it closes; other messages start nothing', () => {
  const parentPort = new EventEmitter();
  const sessions: { got: unknown[]; ended: boolean; port: Port }[] = [];
  acceptRendererPorts(parentPort as never, (port) => {
    const s = { got: [] as unknown[], ended: false, port };
    port.onMessage((m) => s.got.push(m));
    sessions.push(s);
    return () => { s.ended = true; };
  });
  const rendererPort = () => Object.assign(new EventEmitter(), { started: false, sent: [] as unknown[], start() { this.started = true; }, postMessage(m: unknown) { this.sent.push(m); }, close() {} });
  const p = rendererPort();
  parentPort.emit('message', { data: { type: 'something else' }, ports: [rendererPort()] });
  parentPort.emit('message', { data: { type: RENDERER_PORT }, ports: [] });
  expect(sessions).toHaveLength(0);
  parentPort.emit('message', { data: { type: RENDERER_PORT }, ports: [p] });
  expect(sessions).toHaveLength(1);
  expect(p.started).toBe(true);
  p.emit('message', { data: { t: 'call', id: 1 } });
  sessions[0]!.port.postMessage({ t: 'result', id: 1 });
  expect(sessions[0]!.got).toEqual([{ t: 'call', id: 1 }]);
  expect(p.sent).toEqual([{ t: 'result', id: 1 }]);
  p.emit('close');
  expect(sessions[0]!.ended).toBe(true);
});

it('multiplexes sessions over one channel beside plain messages, and ends one on its end message', () => {
  // Two ends of one in-memory channel.
  const toHost = new Set<(m: unknown) => void>();
  const toBridge = new Set<(m: unknown) => void>();
  const bridgeEnd: Port = { postMessage: (m) => { for (const l of toHost) l(structuredClone(m)); }, onMessage: (l) => { toBridge.add(l); return () => toBridge.delete(l); } };
  const hostEnd: Port = { postMessage: (m) => { for (const l of toBridge) l(structuredClone(m)); }, onMessage: (l) => { toHost.add(l); return () => toHost.delete(l); } };
  const ended: number[] = [];
  let n = 0;
  acceptSessions(hostEnd, (port) => {
    const me = ++n;
    port.onMessage((m) => port.postMessage({ echo: m, by: me }));
    return () => ended.push(me);
  });
  const one = sessionPort(bridgeEnd, 1);
  const two = sessionPort(bridgeEnd, 2);
  const got1: unknown[] = [];
  const got2: unknown[] = [];
  one.onMessage((m) => got1.push(m));
  two.onMessage((m) => got2.push(m));
  one.postMessage({ id: 1 });
  two.postMessage({ id: 1 });
  hostEnd.onMessage(() => {}); // a plain message on the channel is no session
  bridgeEnd.postMessage({ t: 'call', id: 1 });
  expect(got1).toEqual([{ echo: { id: 1 }, by: 1 }]);
  expect(got2).toEqual([{ echo: { id: 1 }, by: 2 }]);
  expect(n).toBe(2);
  one.end();
  expect(ended).toEqual([1]);
});
