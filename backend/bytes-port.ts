// The host's side of Electron's bytes path: main serves app://furrow/bytes/… by asking the host on a port of its own
// per request (core/host-protocol.ts BYTES_PORT; electron/bytes.ts is main's side), and the host answers here from
// its byte resources (backend/bytes.ts): the head bytesHead computes — the same status and headers browser mode's
// server sends — then one chunk of the file per `more`, so neither side ever holds the whole file. In the packaged app
// the port comes straight on the parentPort; in development the bridge (backend/host-bridge.ts) carries it over the
// system-Node host's channel as a session of its own (node-ports.ts BYTES_SESSION).
import { readSync } from 'node:fs';
import { isObject, type Port } from '../core/rpc.ts';
import { BYTES_CHUNK, bytesHead, parseBytesPath, type BytesToHost, type BytesToMain } from '../core/bytes-protocol.ts';
import { BYTES_PORT } from '../core/host-protocol.ts';
import { closeBytes, type BytesSource, type OpenedBytes } from './bytes.ts';
import { acceptRendererPorts, acceptSessions, BYTES_SESSION, electronParent, type ParentPort } from './node-ports.ts';

const str = (v: unknown): string | null => (typeof v === 'string' && v.length <= 8192 ? v : null);

/**
 * Answers the one bytes request that comes first on `port`; returns the function that ends it (the port closed),
 * which also closes the file.
 */
export function serveBytesPort(port: Port, source: BytesSource): () => void {
  let opened: OpenedBytes | null = null;
  let ended = false;
  let started = false;
  let pos = 0;
  let last = -1;
  let reading: Promise<void> = Promise.resolve();
  const post = (m: BytesToMain) => { if (!ended) port.postMessage(m); };
  const finish = () => {
    if (ended) return;
    ended = true;
    stop();
    const o = opened;
    opened = null;
    void closeBytes(o);
  };

  async function begin(m: unknown): Promise<void> {
    const ask = isObject(m) && m.t === 'get' ? { method: str(m.method) ?? '', path: str(m.path) ?? '', range: str(m.range), ifRange: str(m.ifRange) } : null;
    if (!ask) return finish();
    const path = parseBytesPath(ask.path);
    opened = path ? await source.open(path).catch(() => null) : null;
    if (ended) {
      await closeBytes(opened);
      opened = null;
      return;
    }
    const head = bytesHead(opened?.meta ?? null, ask);
    if (head.body) [pos, last] = [head.body.start, head.body.end];
    post({ t: 'head', status: head.status, headers: head.headers, body: head.body !== null });
    if (!head.body) finish();
  }

  async function chunk(): Promise<void> {
    if (ended || !opened) return;
    if (pos > last) {
      post({ t: 'end' });
      return finish();
    }
    const n = Math.min(BYTES_CHUNK, last - pos + 1);
    if (opened.data) {
      // Bytes a reader made: a copy of the part asked (a view would clone its whole buffer).
      post({ t: 'chunk', data: opened.data.slice(pos, pos + n) });
      pos += n;
      return;
    }
    const data = new Uint8Array(n);
    try {
      const bytesRead = opened.fd !== undefined ? readSync(opened.fd, data, 0, n, pos) : (await opened.handle.read(data, 0, n, pos)).bytesRead;
      if (bytesRead === 0) throw new Error('the file ended before its size');
      pos += bytesRead;
      // A view of exactly what was read: a copy when short, as structured clone copies a view's whole buffer.
      post({ t: 'chunk', data: bytesRead === n ? data : data.slice(0, bytesRead) });
    } catch (err) {
      post({ t: 'error', message: err instanceof Error ? err.message : String(err) });
      finish();
    }
  }

  const stop = port.onMessage((m) => {
    if (!started) {
      started = true;
      reading = begin(m).catch(() => finish());
      return;
    }
    const t = isObject(m) ? (m as BytesToHost).t : null;
    if (t === 'more') reading = reading.then(chunk);
    else if (t === 'cancel') finish();
  });
  return finish;
}

/**
 * The host's bytes requests from Electron's main: in the packaged app each comes as a port on the parentPort (with
 * BYTES_PORT); under the development bridge, as a session of the host's channel.
 */
export function acceptBytes(parent: Pick<ParentPort, 'on'>, channel: Port, source: BytesSource): void {
  const serve = (port: Port) => serveBytesPort(port, source);
  if (electronParent()) acceptRendererPorts(parent, serve, BYTES_PORT);
  else acceptSessions(channel, serve, BYTES_SESSION);
}
