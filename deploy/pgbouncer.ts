// PgBouncer in transaction mode in front of the primary (docs/deploy.md, "PgBouncer"): the service processes hold
// many client connections each, PgBouncer lends them a few server connections, one transaction at a time.
//
// That fits the store: it keeps no session state (no named prepared statements, no session-level SET, no LISTEN;
// the migration lock and the sign-in attempts' locks are transaction-level advisory locks). Debian 12's PgBouncer
// is 1.18, older than the prepared-statement support of 1.21: a named statement would break here, which
// deploy/deployment.test.ts checks the service never sends.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../platform/node/pg-server.ts';
import { DATABASE, SERVICE_ROLE, serverDir, serverSecret, serverUser } from './postgres.ts';

export const PGBOUNCER_BIN = '/usr/sbin/pgbouncer';

export interface Bouncer {
  dir: string;
  port: number;
}

/** PgBouncer's quoting of a userlist.txt field: "…" with " doubled. */
const quoted = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * The configuration and the auth_file (the service role's password, mode 0600, readable by PgBouncer's user only).
 * `primaryPort`: where the database is (changed by failover, docs/deploy.md).
 */
export function writeBouncerConfig(b: Bouncer, primaryPort: number, password: string, poolSize: number): void {
  serverDir(b.dir);
  serverSecret(join(b.dir, 'userlist.txt'), `${quoted(SERVICE_ROLE)} ${quoted(password)}\n`);
  const ini = [
    '; furrow reference deployment (deploy/pgbouncer.ts)',
    '[databases]',
    `${DATABASE} = host=127.0.0.1 port=${primaryPort} dbname=${DATABASE}`,
    '',
    '[pgbouncer]',
    'listen_addr = 127.0.0.1', `listen_port = ${b.port}`,
    // No socket: the service connects over TCP, as from another host.
    'unix_socket_dir =',
    'auth_type = scram-sha-256', `auth_file = ${join(b.dir, 'userlist.txt')}`,
    'pool_mode = transaction',
    // Server connections per (database, role): what the database sees, whatever the number of service processes.
    `default_pool_size = ${poolSize}`, 'max_client_conn = 1000',
    // node-postgres sends the pool's timeouts as startup parameters, which PgBouncer would refuse: it ignores them,
    // and the role carries them instead (ALTER ROLE furrow SET …, deploy/postgres.ts).
    'ignore_startup_parameters = statement_timeout,idle_in_transaction_session_timeout',
    // A client connection PgBouncer cannot serve at once waits at most this long, then fails (the service's pool
    // connection timeout is 5 s).
    'query_wait_timeout = 10',
    // After a failed login to the database (the primary down, before failover repoints it) PgBouncer refuses every
    // client for server_login_retry (default 15 s): 1 s, so that clients are served again a second after failover.
    'server_login_retry = 1',
    `logfile = ${join(b.dir, 'pgbouncer.log')}`, `pidfile = ${join(b.dir, 'pgbouncer.pid')}`,
    '',
  ].join('\n');
  writeFileSync(join(b.dir, 'pgbouncer.ini'), ini, { mode: 0o644 });
  if (serverUser()) run('chown', [serverUser()!, join(b.dir, 'pgbouncer.ini')], null);
}

/** Started as a daemon (-d) by the server's user: PgBouncer, like PostgreSQL, refuses to run as root. */
export async function startBouncer(b: Bouncer): Promise<void> {
  const r = run(PGBOUNCER_BIN, ['-d', '-q', join(b.dir, 'pgbouncer.ini')], serverUser());
  if (r.status !== 0) throw new Error(`pgbouncer failed to start (${r.status}): ${r.stderr}${r.stdout}${logTail(b)}`);
  // -d returns once it has forked: wait for its pid file and its port.
  for (const deadline = Date.now() + 10_000; bouncerPid(b) === null;) {
    if (Date.now() > deadline) throw new Error(`pgbouncer did not start${logTail(b)}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

const logTail = (b: Bouncer) => {
  const f = join(b.dir, 'pgbouncer.log');
  return existsSync(f) ? `\n${readFileSync(f, 'utf8').slice(-1500)}` : '';
};

export function bouncerPid(b: Bouncer): number | null {
  const f = join(b.dir, 'pgbouncer.pid');
  if (!existsSync(f)) return null;
  const pid = Number(readFileSync(f, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

/** SIGINT: PgBouncer's "safe shutdown" waits for the transactions in flight; then SIGTERM after a few seconds. */
export async function stopBouncer(b: Bouncer): Promise<void> {
  const pid = bouncerPid(b);
  if (pid === null) return;
  await stopPid(pid, 'SIGINT', 5_000);
}

/** Signals a process and waits for it to end, SIGKILL after `graceMs`. */
export async function stopPid(pid: number, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  if (!alive(pid)) return;
  try { process.kill(pid, signal); } catch { return; }
  for (const deadline = Date.now() + graceMs; alive(pid);) {
    if (Date.now() > deadline) {
      try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    }
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A zombie (a child of ours not yet reaped) counts as ended.
  try {
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
