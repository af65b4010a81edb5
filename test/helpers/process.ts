// Runs the real service as a child process on 127.0.0.1 (for fault, crash and CLI tests).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { dataDirEnv, openDataDirStore } from './store.ts';

export const ROOT = resolve(import.meta.dirname, '../..');
/**
 * The service as `npm run service` runs it: built JavaScript (scripts/build.mjs), brought up to date with the sources
 * by the run's global setup (test/helpers/build-setup.ts). Not through tsx, which cost ~2 s of CPU a start.
 */
export const SERVICE = resolve(ROOT, 'dist/service.mjs');

import { freePort, freePorts } from '../../platform/node/free-port.ts';

export { freePort, freePorts };

/** Runs `npm run -s service -- <args>` equivalent synchronously; returns parsed stdout JSON. */
export function serviceCli(dataDir: string, args: string[], env: NodeJS.ProcessEnv = {}): { status: number; stdout: string; stderr: string; json: unknown } {
  const r = spawnSync(process.execPath, [SERVICE, ...args], { cwd: ROOT, env: { ...process.env, ...dataDirEnv(dataDir), ...env }, encoding: 'utf8' });
  let json: unknown = undefined;
  try { json = JSON.parse(r.stdout); } catch { /* not JSON */ }
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json };
}

export interface ServiceProcess {
  url: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
  exited: Promise<number | null>;
  /** Everything the process wrote to stderr so far (banners, start-up messages). */
  stderr(): string;
  /** The last 100 kB it wrote to stdout (its log). */
  stdout(): string;
}

/**
 * `args`: the service CLI command, `serve` unless told (`['demo', '--serve']` is what `npm start` runs). A PORT in
 * `env` is kept (a restart on the same address), otherwise a free one is taken.
 */
export async function spawnService(dataDir: string, env: NodeJS.ProcessEnv = {}, args: string[] = ['serve'], wrap: string[] = []): Promise<ServiceProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  // Node itself, not a wrapper (npm, tsx) that would run the service in a grandchild: killing `child` (SIGKILL in
  // the crash tests) would orphan the real service with its port and database still open. `wrap`: a command that
  // execs it in its own process (prlimit), so the pid stays the service's.
  const [command, ...before] = [...wrap, process.execPath];
  const child = spawn(command!, [...before, SERVICE, ...args], {
    cwd: ROOT, env: { ...process.env, ...dataDirEnv(dataDir), PORT: String(port), HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  let log = '';
  child.stderr!.on('data', (d: Buffer) => { log += d.toString(); });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out = (out + d.toString()).slice(-100_000); });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited early: ${log}`);
    try {
      const r = await fetch(`${url}/healthz`);
      if (r.ok) break;
    } catch { /* not yet listening */ }
    if (Date.now() > deadline) throw new Error(`service did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url, port, child, exited,
    stderr: () => log,
    stdout: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/**
 * Rotates an organization's API key in a running service's database, as an operator would: a new key is issued
 * and the old one revoked (the service's own Store). Returns the new key.
 */
export async function rotateApiKey(dataDir: string, organizationId: string, oldKey: string): Promise<string> {
  const store = await openDataDirStore(dataDir);
  try {
    const fresh = await store.apiKeys.create(organizationId, 'rotated');
    await store.apiKeys.revoke(organizationId, oldKey.split('_').slice(0, 2).join('_'));
    return fresh.api_key;
  } finally {
    await store.close();
  }
}
