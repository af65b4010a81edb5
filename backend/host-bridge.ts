// Development only: Electron's utilityProcess runs this bridge (dist/host-bridge.mjs) where the packaged app runs
// the host itself. In a checkout, better-sqlite3 is compiled for system Node's ABI, which Electron's own Node cannot
// load; so the bridge starts the host (dist/host.mjs) in system Node (FURROW_NODE, given by app/start.ts) and
// carries each renderer's MessagePort over the child's IPC channel as a session of its own (node-ports.ts
// acceptSessions on the host's side). Main and the renderer see the same utilityProcess and ports either way. Two of
// core/host-protocol.ts's messages cross it too: main's HOST_SECRETS down to the host, first, and the host's
// EXTERNAL_LINK announcements up to main.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { EXTERNAL_LINK, isExternalLink, isHostSecrets } from '../core/host-protocol.ts';
import { childPort, electronParent, joinPorts, messagePortMain, RENDERER_PORT, sessionPort, type MessagePortMainLike } from './node-ports.ts';
import type { Port } from '../core/rpc.ts';

/** Joins a renderer's port to session `id` of the host's channel; the session ends when the port closes. */
export function bridgeSession(channel: Port, id: number, renderer: (onClose: () => void) => Port): void {
  const session = sessionPort(channel, id);
  let stop: (() => void) | null = null;
  stop = joinPorts(renderer(() => { stop?.(); session.end(); }), session);
}

/** Electron's parentPort, as node-ports.ts types it. */
type Parent = NonNullable<ReturnType<typeof electronParent>>;

/**
 * The bridge between main (`parent`) and the host's channel:
 * - main's secrets message (HOST_SECRETS, its first) goes on to the host before anything else: the host reads nothing
 *   before it. A renderer's port that came first (main never sends one first) waits for it. Only the first counts.
 * - each renderer port becomes a session of the channel (bridgeSession);
 * - the host's external-link announcements (EXTERNAL_LINK) go up to main, which opens only those; nothing else the
 *   host sends on the channel does.
 * Returns the function that stops listening to the channel.
 */
export function bridgeHost(parent: Pick<Parent, 'on' | 'postMessage'>, channel: Port): () => void {
  let sessions = 0;
  let secretsSent = false;
  const waiting: MessagePortMainLike[] = [];
  const open = (port: MessagePortMainLike) => bridgeSession(channel, ++sessions, (onClose) => messagePortMain(port, onClose));
  parent.on('message', (e) => {
    if (isHostSecrets(e.data)) {
      if (secretsSent) return;
      secretsSent = true;
      channel.postMessage(e.data);
      for (const port of waiting.splice(0)) open(port);
      return;
    }
    const port = e.ports?.[0];
    if ((e.data as { type?: unknown } | null)?.type !== RENDERER_PORT || !port) return;
    if (secretsSent) open(port);
    else waiting.push(port);
  });
  return channel.onMessage((m) => {
    if (isExternalLink(m)) parent.postMessage({ type: EXTERNAL_LINK, url: m.url });
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
