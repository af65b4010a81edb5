// Main's side of the bytes path (no electron import: tested by electron/bytes.test.ts under Node against the host's
// side, backend/bytes-port.ts). An app://furrow/bytes/… request is answered by asking the host, on a fresh
// MessageChannelMain per request (core/host-protocol.ts BYTES_PORT): main sends the request, takes the head the host
// computed (core/bytes-protocol.ts: the same status and headers browser mode sends), and streams the body one chunk
// per read. Main adds the page policy's headers for bytes; it sees the bytes and the page's address, never an API
// message or an account's secret.
import type { Port } from '../core/rpc.ts';
import { receiveBytes, type BytesToHost } from '../core/bytes-protocol.ts';
import { bytesPolicyHeaders } from '../core/page-policy.ts';

/** The end of a MessageChannelMain main keeps (Electron's MessagePortMain, as far as used here). */
export interface MainPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): unknown;
  off(event: 'message', listener: (e: { data: unknown }) => void): unknown;
  start(): void;
  close(): void;
}

/** What main reads of a protocol request. */
export interface AppRequest {
  method: string;
  url: string;
  headers: { get(name: string): string | null };
}

function portOf(port: MainPort): Port {
  return {
    postMessage: (m) => port.postMessage(m),
    onMessage(listener) {
      const on = (e: { data: unknown }) => listener(e.data);
      port.on('message', on);
      port.start();
      return () => port.off('message', on);
    },
  };
}

/**
 * The Response to an app://furrow/bytes/… request: `ask` hands the host a new channel's other end (posting BYTES_PORT
 * with it) and returns this end. The host's answer decides the status and the resource's headers; the page policy's
 * are main's.
 */
export async function bytesResponse(request: AppRequest, ask: () => MainPort, timeoutMs = 30_000): Promise<Response> {
  const main = ask();
  const port = portOf(main);
  const answer = receiveBytes(port, { close: () => main.close(), timeoutMs });
  port.postMessage({
    t: 'get', method: request.method, path: new URL(request.url).pathname, range: request.headers.get('range'), ifRange: request.headers.get('if-range'),
  } satisfies BytesToHost);
  const r = await answer;
  return new Response(r.body, { status: r.status, headers: { ...r.headers, ...bytesPolicyHeaders() } });
}
