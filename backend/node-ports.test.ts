// The host's channel in the packaged app: Electron's process.parentPort, which wraps each message in an event's
// `data`. Electron cannot run here, so an EventEmitter with parentPort's shape stands in for it.
import { EventEmitter } from 'node:events';
import { expect, it } from 'vitest';
import { processPort } from './node-ports.ts';

it("speaks over Electron's parentPort when the host runs in a utilityProcess", () => {
  const sent: unknown[] = [];
  const parentPort = Object.assign(new EventEmitter(), { postMessage: (m: unknown) => sent.push(m) });
  const port = processPort({ parentPort } as unknown as NodeJS.Process);
  const got: unknown[] = [];
  const stop = port.onMessage((m) => got.push(m));
  parentPort.emit('message', { data: { id: 1, method: 'hello' }, ports: [] });
  stop();
  parentPort.emit('message', { data: { id: 2 }, ports: [] });
  port.postMessage({ id: 1, result: 'ok' });
  expect(got).toEqual([{ id: 1, method: 'hello' }]);
  expect(sent).toEqual([{ id: 1, result: 'ok' }]);
});
