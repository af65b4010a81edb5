// A Node WebSocket (the `ws` package) as core/rpc.ts's Port, one JSON text a message: how a test speaks to browser
// mode's host as a page would (renderer/ws-port.ts is the browser's own).
import { WebSocket } from 'ws';
import type { Port } from '../../core/rpc.ts';
import { PROTOCOL } from '../../backend/browser-server.ts';

export function wsPort(ws: WebSocket): Port {
  return {
    postMessage: (m) => ws.send(JSON.stringify(m)),
    onMessage(listener) {
      const on = (d: Buffer) => listener(JSON.parse(d.toString()));
      ws.on('message', on);
      return () => ws.off('message', on);
    },
  };
}

/**
 * A page's session on browser mode's host at 127.0.0.1:`port`, holding the launch's `token` as the page's
 * WebSocket does, tried every 50 ms for 5 s while the host starts listening.
 */
export async function pageSocket(port: number, token: string): Promise<WebSocket> {
  for (let i = 0; i < 100; i++) {
    const ws = await new Promise<WebSocket | null>((resolve) => {
      const s = new WebSocket(`ws://127.0.0.1:${port}/`, [PROTOCOL, `furrow-token.${token}`], { origin: `http://127.0.0.1:${port}` });
      s.once('open', () => resolve(s));
      s.once('error', () => resolve(null));
    });
    if (ws) return ws;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no page session on 127.0.0.1:${port} within 5 s`);
}
