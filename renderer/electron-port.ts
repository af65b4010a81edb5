// core/rpc.ts's Port over a MessagePort (Electron's window: electron/preload.ts hands the page the backend's port).
// Pure browser code; Node's worker_threads ports have the same shape, so electron-port.test.ts runs it against a
// real host.
import type { Port } from '../core/rpc.ts';

/** What electron/preload.ts exposes on window: the one object the page gets from Electron. */
export interface FurrowBridge {
  connect(): void;
  /** Main's open dialog for a layer file: a ticket the host redeems (never a path), or null (none chosen). */
  chooseLayerFile?(): Promise<string | null>;
}

export const electronBridge = (w: Window = window): FurrowBridge | null => (w as Window & { furrow?: FurrowBridge }).furrow ?? null;

/** A MessagePort as a Port: messages are structured clones (a map's JSON item texts cross as strings, parsed once by the client). */
export function messagePortPort(port: MessagePort): Port {
  return {
    postMessage: (m) => port.postMessage(m),
    onMessage(listener) {
      const on = (e: MessageEvent) => listener(e.data);
      port.addEventListener('message', on);
      port.start(); // addEventListener, unlike onmessage, does not start the port
      return () => port.removeEventListener('message', on);
    },
  };
}

/** Asks the preload for the backend's port and waits for it (posted to this window by the preload, on its own origin). */
export function requestPort(bridge: FurrowBridge, w: Window = window, timeoutMs = 20_000): Promise<MessagePort> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { w.removeEventListener('message', on); reject(new Error("The app's backend did not answer: restart the app.")); }, timeoutMs);
    function on(e: MessageEvent) {
      const port = e.ports[0];
      if (e.source !== w || e.origin !== w.location.origin || (e.data as { furrow?: unknown } | null)?.furrow !== 'port' || !port) return;
      clearTimeout(timer);
      w.removeEventListener('message', on);
      resolve(port);
    }
    w.addEventListener('message', on);
    bridge.connect();
  });
}
