// The service processes of the deployment: the built service (dist/service.mjs, as `npm run service` runs it), each
// on a port of its own, sharing only the database (through PgBouncer). Started detached, so that they outlive the
// script that starts them; their pids are in the deployment's state.json, their logs in their folders.
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stopPid } from './pgbouncer.ts';

export const ROOT = resolve(import.meta.dirname, '..');
export const SERVICE = join(ROOT, 'dist/service.mjs');

export interface ServiceSpec {
  dir: string;
  port: number;
  pid?: number;
}

/**
 * The environment every process gets. No password in it: the database URL names none, node-postgres reads it from
 * PGPASSFILE (mode 0600). MAX_CONNECTIONS_PER_ADDRESS=0: every request comes from the balancer's address, which
 * bounds clients itself (docs/deploy.md).
 */
export interface ServiceCommon {
  databaseUrl: string;
  passfile: string;
  publicUrl: string;
  poolMax: number;
  faults?: boolean;
  /** The standby the listings are read from, within a lag bound (READ_DATABASE_URL, READ_MAX_LAG_MS). */
  reads?: { url: string; maxLagMs: number };
}

export function serviceEnv(s: ServiceSpec, common: ServiceCommon): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    HOST: '127.0.0.1',
    PORT: String(s.port),
    DATA_DIR: s.dir,
    PUBLIC_URL: common.publicUrl,
    DATABASE_URL: common.databaseUrl,
    ...(common.reads ? { READ_DATABASE_URL: common.reads.url, READ_MAX_LAG_MS: String(common.reads.maxLagMs) } : {}),
    // Tests only: the fault-injection endpoint (service/faults.ts), its rules in the database and shared by every
    // process (a rule set through the balancer is used once, by whichever process meets the request); never in a real deployment.
    ...(common.faults ? { FAULTS: 'database' } : {}),
    PGPASSFILE: common.passfile,
    PG_POOL_MAX: String(common.poolMax),
    MAX_CONNECTIONS_PER_ADDRESS: '0',
    LOG_LEVEL: 'warn',
  };
}

/** Starts a process, detached, its output appended to service.log in its folder; resolves once /healthz answers. */
export async function startService(s: ServiceSpec, env: NodeJS.ProcessEnv): Promise<number> {
  mkdirSync(s.dir, { recursive: true, mode: 0o700 });
  const log = openSync(join(s.dir, 'service.log'), 'a');
  const child = spawn(process.execPath, [SERVICE, 'serve'], { cwd: ROOT, env, detached: true, stdio: ['ignore', log, log] });
  closeSync(log);
  let exit: string | null = null;
  child.once('exit', (code, signal) => { exit = `code ${code}, signal ${signal}`; });
  child.unref();
  const pid = child.pid!;
  await waitHealthy(`http://127.0.0.1:${s.port}`, () => (exit ? `it exited (${exit}); see ${join(s.dir, 'service.log')}` : null));
  return pid;
}

export async function waitHealthy(url: string, failed: () => string | null = () => null, timeoutMs = 60_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const why = failed();
    if (why) throw new Error(`The service at ${url} did not start: ${why}`);
    try {
      if ((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) })).ok) return;
    } catch { /* not yet listening */ }
    if (Date.now() > deadline) throw new Error(`The service at ${url} did not answer /healthz within ${timeoutMs / 1000} s`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

/** SIGTERM: the service finishes its requests in flight and closes its pool (SIGKILL after 15 s). */
export async function stopService(s: ServiceSpec): Promise<void> {
  if (s.pid) await stopPid(s.pid, 'SIGTERM', 15_000);
}
