// core/rpc.ts's Port over the browser's WebSocket (browser mode; backend/browser-server.ts is the other side). Pure
// browser code, no Node: messages are JSON text frames. The per-launch token (and the tab's reconnect pass, when it
// has one: core/tab-pass.ts) is offered as a further subprotocol so that it is in no URL the server logs.
import type { Port } from '../core/rpc.ts';
import { PASS_PREFIX, passOf, TOKEN_PREFIX, type PassFrame } from '../core/tab-pass.ts';

export const PROTOCOL = 'furrow.v1';

export interface SocketPort extends Port {
  /** Resolves once the server accepted the connection; rejects when it refused it or it could not be made. */
  opened: Promise<void>;
  /** Called once when the connection ends (the host stopped, the network dropped). */
  onClose(listener: (reason: string) => void): void;
  close(): void;
}

export interface Secrets {
  /** This launch's token, from the printed address ('' when the tab has none). */
  token: string;
  /** The pass the host handed this tab at its last connection, for getting back in after a restart. */
  pass: string | null;
  /** A new pass the host sent, with its proof key: kept for the next connection (each is good once). */
  onPass(frame: PassFrame): void;
}

export function webSocketPort(url: string, secrets: Secrets): SocketPort {
  const ws = new WebSocket(url, [PROTOCOL, `${TOKEN_PREFIX}${secrets.token}`, ...(secrets.pass ? [`${PASS_PREFIX}${secrets.pass}`] : [])]);
  // The pass comes first, before any rpc message: taken here, never handed to rpc.
  ws.addEventListener('message', (e: MessageEvent) => {
    if (typeof e.data !== 'string' || !e.data.startsWith('{"furrowPass"')) return;
    let frame: PassFrame | null = null;
    try {
      frame = passOf(JSON.parse(e.data));
    } catch { /* not a pass */ }
    if (frame) secrets.onPass(frame);
  });
  // What is sent before the socket opens waits for it: the client's first call goes out at once.
  const queue: string[] = [];
  const closers: ((reason: string) => void)[] = [];
  const opened = new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => {
      for (const m of queue.splice(0)) ws.send(m);
      resolve();
    }, { once: true });
    ws.addEventListener('close', (e) => {
      const reason = e.reason || `the connection to the app's backend closed (${e.code})`;
      reject(new Error(reason));
      for (const c of closers) c(reason);
    }, { once: true });
  });
  opened.catch(() => {}); // also reported through onClose; a caller not awaiting it must not see an unhandled rejection
  return {
    opened,
    postMessage(message) {
      const text = JSON.stringify(message);
      if (ws.readyState === WebSocket.CONNECTING) queue.push(text);
      else if (ws.readyState === WebSocket.OPEN) ws.send(text);
    },
    onMessage(listener) {
      const on = (e: MessageEvent) => {
        if (typeof e.data !== 'string') return;
        let m: unknown;
        try {
          m = JSON.parse(e.data);
        } catch {
          return;
        }
        listener(m);
      };
      ws.addEventListener('message', on);
      return () => ws.removeEventListener('message', on);
    },
    onClose: (listener) => { closers.push(listener); },
    close: () => ws.close(),
  };
}
