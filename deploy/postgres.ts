// The deployment's databases (docs/deploy.md, "The reference deployment"): a primary PostgreSQL cluster and a
// streaming-replication standby cloned from it with pg_basebackup, each in a folder of the deployment's own.
//
// Both listen on 127.0.0.1 (the service, PgBouncer and the standby reach them over TCP, with SCRAM passwords, as they
// would across hosts) and on a Unix socket in their folder (mode 0700, trust: only the server's user and root reach
// it; the scripts administer the clusters through it). PostgreSQL refuses to run as root, so as root the servers run
// as Debian's `postgres` user, as the test clusters do (platform/node/pg-server.ts).
import { appendFileSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { run, serverUid } from '../platform/node/pg-server.ts';

export interface PgNode {
  /** Where its data, socket and log are: owned by the server's user, mode 0700. */
  dir: string;
  data: string;
  port: number;
}

export const DATABASE = 'furrow';
export const SERVICE_ROLE = 'furrow';
export const REPLICATION_ROLE = 'replicator';
export const SLOT = 'standby1';

/** The user the servers run as: `postgres` for root (PostgreSQL refuses root), else whoever runs the scripts. */
export const serverUser = (): string | null => (process.getuid?.() === 0 ? 'postgres' : null);

/** A folder owned by the server's user, private to it. */
export function serverDir(path: string): string {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  if (serverUser()) chownSync(path, serverUid(), Number(run('id', ['-g', 'postgres'], null).stdout));
  return path;
}

/** A file only the server's user may read (a password file PostgreSQL's tools or PgBouncer read). */
export function serverSecret(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  if (serverUser()) chownSync(path, serverUid(), Number(run('id', ['-g', 'postgres'], null).stdout));
}

function tool(bin: string, name: string, args: string[], logOf?: PgNode): void {
  const r = run(join(bin, name), args, serverUser());
  if (r.status !== 0) {
    const log = logOf && existsSync(join(logOf.dir, 'postgres.log')) ? readFileSync(join(logOf.dir, 'postgres.log'), 'utf8').slice(-2000) : '';
    throw new Error(`${name} ${args.join(' ')} failed (${r.status}): ${r.stderr}${r.stdout}${log ? `\nserver log:\n${log}` : ''}`);
  }
}

/** A superuser connection over the node's socket. */
export function adminClient(node: PgNode, database = 'postgres'): pg.Client {
  return new pg.Client({ host: node.dir, port: node.port, user: 'postgres', database });
}

export async function adminQuery<T extends pg.QueryResultRow = pg.QueryResultRow>(node: PgNode, sql: string, args: unknown[] = [], database = 'postgres'): Promise<T[]> {
  const c = adminClient(node, database);
  await c.connect();
  try {
    return (await c.query<T>(sql, args)).rows;
  } finally {
    await c.end();
  }
}

export interface PrimaryOptions {
  /** fsync and full-page writes on (default); the tests turn them off, the cluster is deleted after. */
  durable: boolean;
  /**
   * synchronous_standby_names = the standby, once it runs (before, every commit would wait for it): a commit returns
   * once the standby has it (docs/deploy.md, failover).
   */
  synchronous: boolean;
  /** log_statement = 'all': the tests read the log to check what the service sends through PgBouncer. */
  logStatements: boolean;
}

/** The settings both nodes share; the standby's copy of postgresql.conf comes from the primary. */
function commonConf(node: PgNode, opts: PrimaryOptions): string[] {
  return [
    '', '# furrow reference deployment (deploy/postgres.ts)',
    "listen_addresses = '127.0.0.1'", `port = ${node.port}`, `unix_socket_directories = '${node.dir}'`,
    'max_connections = 100',
    'wal_level = replica', 'max_wal_senders = 5', 'max_replication_slots = 5',
    // The standby serves reads: a listing there keeps its snapshot, the primary keeps the rows it needs (no
    // "canceling statement due to conflict with recovery" for a long listing).
    'hot_standby = on', 'hot_standby_feedback = on',
    ...(opts.durable ? [] : ['fsync = off', 'full_page_writes = off']),
    ...(opts.logStatements ? ["log_statement = 'all'", "log_line_prefix = '%m [%p] %u@%d '"] : []),
    '',
  ];
}

/**
 * pg_hba.conf: the socket trusted (its folder is private), TCP on 127.0.0.1 with SCRAM for the service's role and
 * the replication role only. On real hosts: the service hosts' and the standby's addresses, and `hostssl`.
 */
const HBA = [
  '# furrow reference deployment (deploy/postgres.ts)',
  'local all all trust',
  `host ${DATABASE} ${SERVICE_ROLE} 127.0.0.1/32 scram-sha-256`,
  `host replication ${REPLICATION_ROLE} 127.0.0.1/32 scram-sha-256`,
  '',
].join('\n');

export function pgStart(bin: string, node: PgNode): void {
  tool(bin, 'pg_ctl', ['-D', node.data, '-l', join(node.dir, 'postgres.log'), '-w', '-t', '60', '-s', 'start'], node);
}

/** fast: clients cut, a shutdown checkpoint; immediate: as a crash (the failover test's killed primary). */
export function pgStop(bin: string, node: PgNode, mode: 'fast' | 'immediate' = 'fast'): void {
  if (existsSync(join(node.data, 'postmaster.pid'))) run(join(bin, 'pg_ctl'), ['-D', node.data, '-m', mode, '-w', '-s', 'stop'], serverUser());
}

/**
 * A new primary: initdb, the service's database owned by a role that is not a superuser (with PostGIS created by
 * the superuser here: the service's role may not), that role's timeouts set on it (PgBouncer does not pass them as
 * startup parameters), and a replication role. Passwords are set over the socket, never on a command line.
 */
export async function createPrimary(bin: string, node: PgNode, passwords: { service: string; replication: string }, opts: PrimaryOptions): Promise<void> {
  serverDir(node.dir);
  tool(bin, 'initdb', ['-D', node.data, '-U', 'postgres', '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--locale=C',
    ...(opts.durable ? [] : ['--no-sync'])]);
  appendFileSync(join(node.data, 'postgresql.conf'), commonConf(node, opts).join('\n'));
  writeFileSync(join(node.data, 'pg_hba.conf'), HBA);
  pgStart(bin, node);
  const c = adminClient(node);
  await c.connect();
  try {
    await c.query(`CREATE ROLE ${SERVICE_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD ${c.escapeLiteral(passwords.service)}`);
    // What openPgPool sends as startup parameters, on the role instead (docs/deploy.md, PgBouncer).
    await c.query(`ALTER ROLE ${SERVICE_ROLE} SET statement_timeout = '30s'`);
    await c.query(`ALTER ROLE ${SERVICE_ROLE} SET idle_in_transaction_session_timeout = '10s'`);
    await c.query(`CREATE ROLE ${REPLICATION_ROLE} LOGIN REPLICATION PASSWORD ${c.escapeLiteral(passwords.replication)}`);
    await c.query(`CREATE DATABASE ${DATABASE} OWNER ${SERVICE_ROLE}`);
  } finally {
    await c.end();
  }
  await adminQuery(node, 'CREATE EXTENSION postgis', [], DATABASE);
}

/**
 * The standby: pg_basebackup of the running primary over TCP as the replication role (its password in a passfile
 * only the server's user reads), creating the replication slot (-C -S: the primary keeps the WAL the standby has not
 * received, however long it is away) and writing primary_conninfo and standby.signal (-R). Its cluster_name is the
 * slot's name, which is what the primary's synchronous_standby_names matches.
 */
export function createStandby(bin: string, primary: PgNode, node: PgNode, passfile: string): void {
  serverDir(node.dir);
  tool(bin, 'pg_basebackup', ['-d', `host=127.0.0.1 port=${primary.port} user=${REPLICATION_ROLE} passfile=${passfile}`,
    '-D', node.data, '-R', '-C', '-S', SLOT, '-X', 'stream', '-c', 'fast']);
  appendFileSync(join(node.data, 'postgresql.conf'), [
    '', '# the standby (deploy/postgres.ts): its own port and socket, named for synchronous_standby_names',
    `port = ${node.port}`, `unix_socket_directories = '${node.dir}'`, `cluster_name = '${SLOT}'`,
    // Promoted, it has no standby of its own to wait for: a copied synchronous_standby_names would hang every commit.
    "synchronous_standby_names = ''", '',
  ].join('\n'));
  pgStart(bin, node);
}

/** Commits on the primary wait for the standby from now on (ALTER SYSTEM: kept in postgresql.auto.conf). */
export async function makeSynchronous(primary: PgNode): Promise<void> {
  await adminQuery(primary, `ALTER SYSTEM SET synchronous_standby_names = '${SLOT}'`);
  await adminQuery(primary, 'SELECT pg_reload_conf()');
}

/** Promotes the standby to a primary (after the primary is lost: docs/deploy.md, failover). */
export function promote(bin: string, node: PgNode): void {
  tool(bin, 'pg_ctl', ['-D', node.data, '-w', '-t', '60', '-s', 'promote'], node);
}

/** The node's running processes: its postmaster and the postmaster's children (backends, WAL sender or receiver…). */
export function nodePids(node: PgNode): number[] {
  const pm = Number(readFileSync(join(node.data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const out = [pm];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      // The parent's pid is the second field after the command, which is in parentheses and may hold spaces.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pm) out.push(Number(d));
    } catch { /* gone meanwhile */ }
  }
  return out;
}
