// Node's MessagePort with the shape of Electron's MessagePortMain (an event with `data`, a 'close' event): what main
// hands the host or the bridge, for tests that run Electron's transports without Electron.
import type { MessagePort as NodeMessagePort } from 'node:worker_threads';
import type { MessagePortMainLike } from '../../backend/node-ports.ts';

export function asMain(port: NodeMessagePort): MessagePortMainLike {
  const wrapped = new Map<unknown, (data: unknown) => void>();
  return {
    postMessage: (m: unknown) => port.postMessage(m),
    on(event: 'message' | 'close', listener: ((e: { data: unknown }) => void) | (() => void)) {
      if (event === 'close') port.on('close', listener as () => void);
      else {
        const on = (data: unknown) => (listener as (e: { data: unknown }) => void)({ data });
        wrapped.set(listener, on);
        port.on('message', on);
      }
      return this;
    },
    off(_event: 'message', listener: (e: { data: unknown }) => void) {
      const on = wrapped.get(listener);
      if (on) port.off('message', on);
      return this;
    },
    start: () => port.start(),
    close: () => port.close(),
  } as MessagePortMainLike;
}
