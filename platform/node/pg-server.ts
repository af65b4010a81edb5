// A throwaway PostgreSQL + PostGIS server: initdb in a directory of its own, listening on a Unix socket in that
// directory only (no TCP port to collide with another run or to be reached from outside), a template database with
// PostGIS to clone databases from, owned by a role that is not a superuser (as on a managed PostgreSQL). The test
// run's cluster (test/helpers/postgres-cluster.ts), the benchmarks' and the reference deployment's (deploy/) are all
// started here.
//
// PostgreSQL refuses to run as root: as root (CI, this machine) the server runs as the `postgres` system user that
// Debian's package creates, in directories owned by it; as anyone else it runs as that user. The directory is
// private to its owner (mode 0700), which is what makes trust authentication on its socket safe: only its owner,
// and root, can reach the socket at all.
import { spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import pg from 'pg';

export const PG_TEMPLATE = 'furrow_template';
export const PG_TEST_ROLE = 'furrow';
export const PG_PACKAGES = 'postgresql-15 postgresql-15-postgis-3';

export interface Cluster { bin: string; dir: string; data: string; runAs: string | null }

/** A connection URL over the cluster's Unix socket (node-postgres reads a directory in `host` as a socket's). */
export const urlOf = (socketDir: string, user: string, database: string): string =>
  `postgres://${user}@/${encodeURIComponent(database)}?host=${encodeURIComponent(socketDir)}`;

export const isRoot = (): boolean => process.getuid?.() === 0;
/** Who runs the server, and so owns its directory: the postgres user for root, else whoever runs the tests. */
export const serverUid = (): number => (isRoot() ? Number(run('id', ['-u', 'postgres'], null).stdout) : process.getuid!());

/** Why a cluster cannot be started here, or null when it can. */
export function missingPrerequisite(bin: string | null): string | null {
  if (!bin) return 'no PostgreSQL server binaries (initdb, pg_ctl, postgres) found';
  const share = run(join(bin, 'pg_config'), ['--sharedir'], null);
  if (share.status !== 0 || !existsSync(join(share.stdout.trim(), 'extension', 'postgis.control'))) return `no PostGIS for the PostgreSQL in ${bin}`;
  if (isRoot() && run('id', ['-u', 'postgres'], null).status !== 0) return 'running as root and there is no postgres system user to run the server as';
  return null;
}

/** Debian's newest /usr/lib/postgresql/N/bin, else the directory of the initdb on PATH (often a symlink to it). */
export function findBinaries(): string | null {
  const complete = (dir: string) => ['initdb', 'pg_ctl', 'postgres', 'pg_config'].every((b) => existsSync(join(dir, b)));
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (complete(join(debian, v, 'bin'))) return join(debian, v, 'bin');
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const initdb = join(dir, 'initdb');
    if (dir && existsSync(initdb)) {
      const real = dirname(realpathSync(initdb));
      if (complete(real)) return real;
    }
  }
  return null;
}

export function run(cmd: string, args: string[], runAs: string | null): { status: number | null; stdout: string; stderr: string } {
  const [file, argv] = runAs ? ['runuser', ['-u', runAs, '--', cmd, ...args]] : [cmd, args];
  const r = spawnSync(file, argv, { encoding: 'utf8' });
  return { status: r.error ? null : r.status, stdout: r.stdout ?? '', stderr: r.error ? String(r.error) : (r.stderr ?? '') };
}

function runOrThrow(c: Cluster, tool: string, args: string[]): void {
  const r = run(join(c.bin, tool), args, c.runAs);
  if (r.status !== 0) {
    const log = existsSync(join(c.dir, 'postgres.log')) ? readFileSync(join(c.dir, 'postgres.log'), 'utf8').slice(-2000) : '';
    throw new Error(`${tool} ${args.join(' ')} failed (${r.status}): ${r.stderr}${r.stdout}${log ? `\nserver log:\n${log}` : ''}`);
  }
}

/** Where clusters' directories go. As root the server must be able to reach them: /tmp is open to every user, a TMPDIR may not be. */
export const clusterBase = (): string => (isRoot() ? '/tmp' : tmpdir());

/** The cluster in `dir` (new, or one left behind), run as the postgres user by root and as its owner otherwise. */
export const clusterAt = (dir: string, bin: string): Cluster => ({ bin, dir, data: join(dir, 'data'), runAs: isRoot() ? 'postgres' : null });

/** A new, not yet started cluster's directory under clusterBase() (mode 0700, owned by the server's user). */
export function newCluster(prefix: string, bin: string): Cluster {
  const c = clusterAt(mkdtempSync(join(clusterBase(), prefix)), bin);
  if (c.runAs) chownSync(c.dir, serverUid(), Number(run('id', ['-g', c.runAs], null).stdout));
  return c;
}

/**
 * initdb and start. `durable: false` (the tests) turns fsync, synchronous commit and full-page writes off: durability
 * is worth nothing in a cluster deleted at the end of the run. The benchmarks keep PostgreSQL's defaults, which sync
 * the WAL at every commit as the SQLite store's synchronous=FULL does.
 */
export function startCluster(c: Cluster, opts: { durable: boolean; maxConnections: number }): void {
  runOrThrow(c, 'initdb', ['-D', c.data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', ...(opts.durable ? [] : ['--no-sync'])]);
  appendFileSync(join(c.data, 'postgresql.conf'), [
    '', '# furrow throwaway cluster (platform/node/pg-server.ts)',
    "listen_addresses = ''", `unix_socket_directories = '${c.dir}'`,
    ...(opts.durable ? [] : ['fsync = off', 'synchronous_commit = off', 'full_page_writes = off']),
    `max_connections = ${opts.maxConnections}`, '',
  ].join('\n'));
  runOrThrow(c, 'pg_ctl', ['-D', c.data, '-l', join(c.dir, 'postgres.log'), '-w', '-t', '60', '-s', 'start']);
}

/** The role clients connect as (not a superuser) and the template with PostGIS they clone (createDatabase). */
export async function prepareTemplate(c: Cluster): Promise<void> {
  const admin = new pg.Client({ connectionString: urlOf(c.dir, 'postgres', 'postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE ROLE ${PG_TEST_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE`);
    await admin.query(`CREATE DATABASE ${PG_TEMPLATE}`);
    const tpl = new pg.Client({ connectionString: urlOf(c.dir, 'postgres', PG_TEMPLATE) });
    await tpl.connect();
    try {
      await tpl.query('CREATE EXTENSION postgis');
    } finally {
      await tpl.end();
    }
    // No connections: CREATE DATABASE ... TEMPLATE fails while anyone is connected to the template.
    await admin.query(`ALTER DATABASE ${PG_TEMPLATE} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
  } finally {
    await admin.end();
  }
}

/** A new database cloned from the template, owned by the test role; its URL as that role. */
export async function createDatabase(c: Cluster, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: urlOf(c.dir, 'postgres', 'postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${PG_TEMPLATE} OWNER ${PG_TEST_ROLE}`);
  } finally {
    await admin.end();
  }
  return urlOf(c.dir, PG_TEST_ROLE, name);
}

/** The server's process id (the postmaster), while it runs. */
export function postmasterPid(c: Cluster): number {
  return Number(readFileSync(join(c.data, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

export function stopCluster(c: Cluster): void {
  // immediate: no shutdown checkpoint, the files are deleted next. Only if it was started.
  if (existsSync(join(c.data, 'postmaster.pid'))) run(join(c.bin, 'pg_ctl'), ['-D', c.data, '-m', 'immediate', '-w', '-s', 'stop'], c.runAs);
  rmSync(c.dir, { recursive: true, force: true });
}
