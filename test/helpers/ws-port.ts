// A Node WebSocket (the `ws` package) as core/rpc.ts's Port, one JSON text a message: how a test speaks to browser
// mode's host as a page would (renderer/ws-port.ts is the browser's own).
import type { WebSocket } from 'ws';
import type { Port } from '../../core/rpc.ts';

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
