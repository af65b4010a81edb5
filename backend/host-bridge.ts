// Development only: Electron's utilityProcess runs this bridge (dist/host-bridge.mjs) where the packaged app runs
// the host itself. In a checkout, better-sqlite3 is compiled for system Node's ABI, which Electron's own Node cannot
// load; so the bridge starts the host (dist/host.mjs) in system Node (FURROW_NODE, given by app/start.ts) and
// carries each renderer's MessagePort over the child's IPC channel as a session of its own (node-ports.ts
// acceptSessions on the host's side). Main and the renderer see the same utilityProcess and ports either way.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { childPort, electronParent, joinPorts, messagePortMain, RENDERER_PORT, sessionPort } from './node-ports.ts';
import type { Port } from '../core/rpc.ts';

/** Joins a renderer's port to session `id` of the host's channel; the session ends when the port closes. */
export function bridgeSession(channel: Port, id: number, renderer: (onClose: () => void) => Port): void {
  const session = sessionPort(channel, id);
  let stop: (() => void) | null = null;
  stop = joinPorts(renderer(() => { stop?.(); session.end(); }), session);
}

const parent = electronParent();
const node = process.env.FURROW_NODE;
if (parent && node) {
  delete process.env.FURROW_NODE;
  const host = spawn(node, [fileURLToPath(new URL('./host.mjs', import.meta.url))], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced', env: process.env,
  });
  const channel = childPort(host);
  let sessions = 0;
  parent.on('message', (e) => {
    const port = e.ports?.[0];
    if ((e.data as { type?: unknown } | null)?.type === RENDERER_PORT && port) bridgeSession(channel, ++sessions, (onClose) => messagePortMain(port, onClose));
  });
  // The host gone, the bridge has nothing to carry: main sees this process exit (and quits).
  host.once('exit', (code) => process.exit(code ?? 1));
}
