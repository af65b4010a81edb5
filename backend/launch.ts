// Starts the mirror host as a child process and connects to it: what browser mode, the tests and the benchmarks
// use (the Electron app starts it as a utilityProcess instead, electron/).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { API, API_EVENTS, API_VERSION, type Api, type ApiEvents } from '../core/api.ts';
import { createClient, type Client } from '../core/rpc.ts';
import { childPort } from './node-ports.ts';
import { HOST_SECRETS, type HostSecrets } from '../core/host-protocol.ts';

export interface Host {
  client: Client<Api, ApiEvents>;
  api: Client<Api, ApiEvents>['api'];
  child: ChildProcess;
  pid: number;
  /** Closes the channel and waits for the host to exit. */
  close(): Promise<void>;
}

/** From source, the TypeScript entry under tsx; built (dist/), the bundled host beside this module. */
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const ENTRY = fileURLToPath(new URL(FROM_SOURCE ? './host.ts' : './host.mjs', import.meta.url));

export interface LaunchOptions {
  home: string;
  /** Settings (never a secret: the host's children inherit them, and /proc/<pid>/environ shows them to the user's other processes). */
  env?: NodeJS.ProcessEnv;
  /** Another host script (the built dist/host.mjs, say); by default the one beside this module. */
  entry?: string;
  /** The host's secrets (browser mode's token), handed over its IPC channel as its first message. */
  secrets?: Omit<HostSecrets, 'type'>;
}

export async function launchHost(opts: LaunchOptions): Promise<Host> {
  const entry = opts.entry ?? ENTRY;
  const child = spawn(process.execPath, [...(entry.endsWith('.ts') ? ['--import', 'tsx'] : []), entry], {
    env: { ...process.env, ...opts.env, FURROW_HOME: opts.home }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // Structured clone, as Electron's MessagePort: a map's answer (core/rpc.ts JsonItems, a few hundred KB of text)
    // crosses as copied strings, where the JSON channel escaped every quote in them and unescaped them again.
    serialization: 'advanced',
  });
  // First, before any call: the host opens nothing until it has them (backend/host.ts).
  child.send({ type: HOST_SECRETS, ...opts.secrets } satisfies HostSecrets);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const client = createClient(API, childPort(child), API_EVENTS);
  child.once('exit', (code, signal) => client.close(`the mirror host exited (${signal ?? code})`));
  const hello = await client.api.hello({ apiVersion: API_VERSION }).catch(async (err: unknown) => {
    child.kill();
    await exited;
    throw err;
  });
  return {
    client, api: client.api, child, pid: hello.pid,
    async close() {
      client.close();
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}
