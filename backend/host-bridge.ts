// Development only: Electron's utilityProcess runs this bridge (dist/host-bridge.mjs) where the packaged app runs
// the host itself. In a checkout, better-sqlite3 is compiled for system Node's ABI, which Electron's own Node cannot
// load; so the bridge starts the host (dist/host.mjs) in system Node (FURROW_NODE, given by app/start.ts) and
// carries each renderer's MessagePort over the child's IPC channel as a session of its own (node-ports.ts
// acceptSessions on the host's side). Main and the renderer see the same utilityProcess and ports either way. Two of
// core/host-protocol.ts's messages cross it too: main's HOST_SECRETS down to the host, first, and the host's
// EXTERNAL_LINK announcements up to main. And each port main gives with BYTES_PORT (one app://furrow/bytes/ request)
// becomes a bytes session of the channel (node-ports.ts BYTES_SESSION), served by backend/bytes-port.ts. And the file
// the user chose in main's open dialog for a layer (LAYER_FILE_CHOSEN) goes down to the host as it came.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BYTES_PORT, EXTERNAL_LINK, isExternalLink, isHostSecrets, isLayerFileChosen } from '../core/host-protocol.ts';
import {
  BYTES_SESSION, childPort, electronParent, joinPorts, messagePortMain, RENDERER_PORT, RPC_SESSION, sessionPort,
} from './node-ports.ts';
import type { Port } from '../core/rpc.ts';

/**
 * Joins a renderer's port to session `id` of the host's channel; the session ends when the port closes. `key`: the
 * kind of session (an rpc session; BYTES_SESSION for a bytes request's port).
 */
export function bridgeSession(channel: Port, id: number, renderer: (onClose: () => void) => Port, key: typeof RPC_SESSION | typeof BYTES_SESSION = RPC_SESSION): void {
  const session = sessionPort(channel, id, key);
  let stop: (() => void) | null = null;
  stop = joinPorts(renderer(() => { stop?.(); session.end(); }), session);
}

/** Electron's parentPort, as node-ports.ts types it. */
type Parent = NonNullable<ReturnType<typeof electronParent>>;

/**
 * The bridge between main (`parent`) and the host's channel:
 * - main's secrets message (HOST_SECRETS, its first) goes on to the host before anything else: the host reads nothing
 *   before it. A renderer's port that came first (main never sends one first) waits for it. Only the first counts.
 * - each renderer port becomes a session of the channel (bridgeSession), and each bytes request's port a bytes
 *   session (main posts one per app://furrow/bytes/ request); both wait for the secrets like the rest;
 * - the host's external-link announcements (EXTERNAL_LINK) go up to main, which opens only those; nothing else the
 *   host sends on the channel does;
 * - a layer file main's dialog gave (LAYER_FILE_CHOSEN) goes down to the host, after the secrets like the rest.
 * Returns the function that stops listening to the channel.
 */
export function bridgeHost(parent: Pick<Parent, 'on' | 'postMessage'>, channel: Port): () => void {
  let sessions = 0;
  let secretsSent = false;
  const waiting: (() => void)[] = [];
  const kinds: Record<string, typeof RPC_SESSION | typeof BYTES_SESSION> = { [RENDERER_PORT]: RPC_SESSION, [BYTES_PORT]: BYTES_SESSION };
  parent.on('message', (e) => {
    if (isHostSecrets(e.data)) {
      if (secretsSent) return;
      secretsSent = true;
      channel.postMessage(e.data);
      for (const open of waiting.splice(0)) open();
      return;
    }
    if (isLayerFileChosen(e.data)) {
      const { type, ticket, path } = e.data;
      const send = () => channel.postMessage({ type, ticket, path });
      if (secretsSent) send();
      else waiting.push(send);
      return;
    }
    const port = e.ports?.[0];
    const type = (e.data as { type?: unknown } | null)?.type;
    const key = typeof type === 'string' && Object.hasOwn(kinds, type) ? kinds[type] : undefined;
    if (!key || !port) return;
    const open = () => bridgeSession(channel, ++sessions, (onClose) => messagePortMain(port, onClose), key);
    if (secretsSent) open();
    else waiting.push(open);
  });
  return channel.onMessage((m) => {
    if (isExternalLink(m)) parent.postMessage({ type: EXTERNAL_LINK, url: m.url, service: m.service });
  });
}

const parent = electronParent();
const node = process.env.FURROW_NODE;
if (parent && node) {
  delete process.env.FURROW_NODE;
  const host = spawn(node, [fileURLToPath(new URL('./host.mjs', import.meta.url))], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced', env: process.env,
  });
  bridgeHost(parent, childPort(host));
  // The host gone, the bridge has nothing to carry: main sees this process exit (and quits).
  host.once('exit', (code) => process.exit(code ?? 1));
}
