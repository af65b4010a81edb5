// The real parcel service as a child process for benchmarks. Unlike test/helpers/process.ts#spawnService (which
// goes through the tsx wrapper, so its child.pid is the wrapper's), this runs `node --import tsx` directly: the pid
// is the service's own, which /proc RSS sampling and --cpu-prof need (taskset, when a benchmark pins it, execs node
// in its own process: the pid stays the service's).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool } from 'undici';
import { freePort, serviceCli } from '../../test/helpers/process.ts';
import { ROOT } from './paths.ts';

export interface Child {
  url: string;
  pid: number;
  child: ChildProcess;
  log(): string;
  stop(): Promise<void>;
}

async function waitHealthy(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`child exited early (${child.exitCode}): ${log()}`);
    try {
      const r = await fetch(`${url}/healthz`);
      if (r.ok) return;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) throw new Error(`child did not start within 60 s: ${log()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The command that runs node on the given CPUs only (taskset, from util-linux), or node itself when no CPUs are given.
 * For benchmarks that keep a client and a service off each other's cores.
 */
export function onCpus(cpus: string | undefined, argv: string[]): [string, string[]] {
  return cpus === undefined ? [process.execPath, argv] : ['taskset', ['-c', cpus, process.execPath, ...argv]];
}

/** Whether processes can be pinned to CPUs here: taskset runs and there are at least two CPUs to share out. */
export function canPin(): boolean {
  return availableParallelism() >= 2 && spawnSync('taskset', ['-c', '0', 'true']).status === 0;
}

/**
 * Starts `script` (relative to the repository root) under `node --import tsx` with PORT/HOST set, on `cpus` when given;
 * waits for /healthz.
 */
export async function startNode(script: string, args: string[], env: NodeJS.ProcessEnv, nodeFlags: string[] = [], cpus?: string): Promise<Child> {
  const port = await freePort();
  const [command, argv] = onCpus(cpus, [...nodeFlags, '--import', 'tsx', script, ...args]);
  const child = spawn(command, argv, {
    cwd: ROOT, env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const keep = (d: Buffer) => { text = (text + d.toString()).slice(-20_000); };
  child.stderr!.on('data', keep);
  child.stdout!.on('data', keep);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, child, () => text);
  return {
    url, pid: child.pid!, child, log: () => text,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

export interface ServiceOptions {
  synchronous?: 'FULL' | 'NORMAL';
  /** Directory for a V8 CPU profile of the service (node --cpu-prof), written when it stops. */
  cpuProfDir?: string;
  /** Extra node flags for the service process (experiments, e.g. --max-semi-space-size=64). */
  nodeFlags?: string[];
  /** Extra environment for the service process (experiments, e.g. VALIDATION_WORKERS=0). */
  env?: Record<string, string>;
  /** The CPUs the service runs on (taskset -c), every thread of it; all of them when unset. */
  cpus?: string;
}

export function startService(dataDir: string, opts: ServiceOptions = {}): Promise<Child> {
  const env: NodeJS.ProcessEnv = { DATA_DIR: dataDir, LOG_LEVEL: 'warn', FAULTS: '0' };
  if (opts.synchronous) env.SQLITE_SYNCHRONOUS = opts.synchronous;
  Object.assign(env, opts.env);
  const flags = [...(opts.nodeFlags ?? []), ...(opts.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', opts.cpuProfDir] : [])];
  return startNode('service/cli.ts', ['serve'], env, flags, opts.cpus);
}

export const startHello = (): Promise<Child> => startNode('bench/lib/hello-server.ts', [], {});

export function tempDataDir(tag: string): string {
  return mkdtempSync(join(tmpdir(), `furrow-bench-${tag}-`));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Bytes of every file in a directory (the database, its WAL and shared-memory file). */
export function dirBytes(dir: string): number {
  let n = 0;
  for (const f of readdirSync(dir)) n += statSync(join(dir, f)).size;
  return n;
}

export interface Tenant {
  organizationId: string;
  apiKey: string;
  accountId: string;
  headers: Record<string, string>;
}

async function json(pool: Pool, method: 'POST' | 'GET', path: string, headers: Record<string, string>, body?: unknown): Promise<unknown> {
  const res = await pool.request({
    method, path, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path} → ${res.statusCode}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as unknown;
}

/** The organization through the CLI (as an operator would), the account through the HTTP API. */
export async function createTenant(dataDir: string, pool: Pool): Promise<Tenant> {
  // The service CLI runs from dist/ (test/helpers/process.ts): built first if a source changed.
  const { ensureBuilt } = await import('../../scripts/build.mjs');
  await ensureBuilt('service');
  const org = serviceCli(dataDir, ['create-org', '--name', 'Bench Org']);
  if (org.status !== 0) throw new Error(`create-org failed: ${org.stderr}`);
  const { organization_id: organizationId, api_key: apiKey } = org.json as { organization_id: string; api_key: string };
  const acc = await json(pool, 'POST', '/api/accounts/', { 'x-api-key': apiKey }, { account_email: `bench-${Date.now()}@example.com` }) as { id: string };
  return { organizationId, apiKey, accountId: acc.id, headers: { 'x-api-key': apiKey, 'service-account': acc.id } };
}

export async function createFarms(pool: Pool, tenant: Tenant, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const farm = await json(pool, 'POST', '/api/farms/', tenant.headers, { farm: { name: `Bench farm ${i + 1}` }, parcels: [] }) as { id: number };
    ids.push(farm.id);
  }
  return ids;
}
