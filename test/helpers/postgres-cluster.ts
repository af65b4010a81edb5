// vitest globalSetup: a throwaway PostgreSQL + PostGIS cluster for the tests that need one (issue 15): initdb in a
// temporary directory, a server listening on a Unix socket in that directory only (no TCP port to collide with
// another run or to be reached from outside), a template database with PostGIS that each test file clones for a
// database of its own (test/helpers/postgres.ts), and everything stopped and deleted at the end of the run.
//
// The setup only checks that it can be done and picks the directory; the first test that asks for a database
// starts the cluster (about 1.5 s on the 2-core machine), the other workers wait for it. A run without such a test (core/, a single
// unrelated file) pays nothing.
//
// PostgreSQL refuses to run as root: as root (CI, this machine) the server runs as the `postgres` system user that
// Debian's package creates, in directories owned by it; as anyone else it runs as that user. The directory is
// private to its owner (mode 0700), which is what makes trust authentication on its socket safe: only its owner,
// and root, can reach the socket at all.
//
// Without PostgreSQL and PostGIS, CI (CI=true) fails here, naming the packages; a developer's run goes on with the
// PostgreSQL tests skipped and one line saying how to enable them.
import { spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

export const PG_TEMPLATE = 'furrow_template';
export const PG_TEST_ROLE = 'furrow';

interface Cluster { bin: string; dir: string; data: string; runAs: string | null }

/** What the setup provides: where the cluster is (started on first use), or why there is none. */
export type PgTestCluster = (Cluster & { socketDir: string; adminUrl: string }) | { skip: string };

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PgTestCluster;
  }
}

/** A connection URL over the cluster's Unix socket (node-postgres reads a directory in `host` as a socket's). */
export const urlOf = (socketDir: string, user: string, database: string): string =>
  `postgres://${user}@/${encodeURIComponent(database)}?host=${encodeURIComponent(socketDir)}`;

const PACKAGES = 'postgresql-15 postgresql-15-postgis-3';
const DIR_PREFIX = 'furrow-pg-';

let cluster: Cluster | null = null;

export async function setup(project: TestProject): Promise<void> {
  const bin = findBinaries();
  const missing = missingPrerequisite(bin);
  if (!bin || missing) {
    if (process.env.CI === 'true') throw new Error(`The PostgreSQL tests need PostgreSQL and PostGIS: ${missing}. Install them with: apt-get install ${PACKAGES}`);
    console.log(`PostgreSQL tests skipped (${missing}): apt-get install ${PACKAGES} to run them.`);
    project.provide('postgres', { skip: missing ?? 'no PostgreSQL' });
    return;
  }
  // As root the server must be able to reach its directory: /tmp is open to every user, a TMPDIR may not be.
  const base = isRoot() ? '/tmp' : tmpdir();
  removeStaleClusters(base, bin);
  const dir = mkdtempSync(join(base, DIR_PREFIX));
  cluster = { bin, dir, data: join(dir, 'data'), runAs: isRoot() ? 'postgres' : null };
  // Which run owns the cluster: a run killed before its teardown leaves it behind, and the next run removes it.
  writeFileSync(join(dir, 'owner.pid'), String(process.pid));
  if (cluster.runAs) chownSync(dir, serverUid(), Number(run('id', ['-g', cluster.runAs], null).stdout));
  project.provide('postgres', { ...cluster, socketDir: dir, adminUrl: urlOf(dir, 'postgres', 'postgres') });
}

export function teardown(): void {
  if (cluster) stopCluster(cluster);
  cluster = null;
}

let starting: Promise<void> | null = null;

/**
 * Called in the test workers before a database is created: the first caller of the run starts the cluster (a
 * directory made with mkdir is the lock), the others wait for its `ready` or `failed` file.
 */
export function ensureStarted(c: Cluster): Promise<void> {
  starting ??= (async () => {
    const ready = join(c.dir, 'ready');
    const failed = join(c.dir, 'failed');
    if (existsSync(ready)) return;
    try {
      mkdirSync(join(c.dir, 'starting'));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      for (const deadline = Date.now() + 120_000; !existsSync(ready);) {
        if (existsSync(failed)) throw new Error(`The PostgreSQL test cluster failed to start: ${readFileSync(failed, 'utf8')}`);
        if (Date.now() > deadline) throw new Error(`The PostgreSQL test cluster in ${c.dir} was not ready after 120 s`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return;
    }
    try {
      startCluster(c);
      await prepareTemplate(c);
      writeFileSync(ready, '');
    } catch (e) {
      writeFileSync(failed, e instanceof Error ? (e.stack ?? e.message) : String(e));
      throw e;
    }
  })();
  return starting;
}

/** Why the cluster cannot be started here, or null when it can. */
function missingPrerequisite(bin: string | null): string | null {
  if (!bin) return 'no PostgreSQL server binaries (initdb, pg_ctl, postgres) found';
  const share = run(join(bin, 'pg_config'), ['--sharedir'], null);
  if (share.status !== 0 || !existsSync(join(share.stdout.trim(), 'extension', 'postgis.control'))) return `no PostGIS for the PostgreSQL in ${bin}`;
  if (isRoot() && run('id', ['-u', 'postgres'], null).status !== 0) return 'running as root and there is no postgres system user to run the server as';
  return null;
}

/** Debian's newest /usr/lib/postgresql/N/bin, else the directory of the initdb on PATH (often a symlink to it). */
function findBinaries(): string | null {
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

const isRoot = () => process.getuid?.() === 0;
/** Who runs the server, and so owns its directory: the postgres user for root, else whoever runs the tests. */
const serverUid = () => (isRoot() ? Number(run('id', ['-u', 'postgres'], null).stdout) : process.getuid!());

function run(cmd: string, args: string[], runAs: string | null): { status: number | null; stdout: string; stderr: string } {
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

function startCluster(c: Cluster): void {
  runOrThrow(c, 'initdb', ['-D', c.data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  // Durability is worth nothing in a cluster deleted at the end of the run.
  appendFileSync(join(c.data, 'postgresql.conf'), [
    '', '# furrow test cluster (test/helpers/postgres-cluster.ts)',
    "listen_addresses = ''", `unix_socket_directories = '${c.dir}'`,
    'fsync = off', 'synchronous_commit = off', 'full_page_writes = off',
    // Three test workers, each with pools and a few clients of its own, and tests that start two service processes.
    'max_connections = 200', '',
  ].join('\n'));
  runOrThrow(c, 'pg_ctl', ['-D', c.data, '-l', join(c.dir, 'postgres.log'), '-w', '-t', '60', '-s', 'start']);
}

/** The role the tests connect as (not a superuser, as on a managed PostgreSQL) and the template they clone. */
async function prepareTemplate(c: Cluster): Promise<void> {
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

function stopCluster(c: Cluster): void {
  // immediate: no shutdown checkpoint, the files are deleted next. Only if a test started it.
  if (existsSync(join(c.data, 'postmaster.pid'))) run(join(c.bin, 'pg_ctl'), ['-D', c.data, '-m', 'immediate', '-w', '-s', 'stop'], c.runAs);
  rmSync(c.dir, { recursive: true, force: true });
}

/**
 * Clusters left by runs that died before their teardown (their owner.pid names no live process), of the same
 * server user: another user's are theirs to clean.
 */
function removeStaleClusters(base: string, bin: string): void {
  const uid = serverUid();
  for (const name of readdirSync(base)) {
    if (!name.startsWith(DIR_PREFIX)) continue;
    const dir = join(base, name);
    let owner: number;
    try {
      if (statSync(dir).uid !== uid) continue;
      owner = Number(readFileSync(join(dir, 'owner.pid'), 'utf8'));
    } catch {
      continue; // another user's, or being created right now
    }
    if (!Number.isInteger(owner) || owner <= 0 || alive(owner)) continue;
    stopCluster({ bin, dir, data: join(dir, 'data'), runAs: isRoot() ? 'postgres' : null });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
