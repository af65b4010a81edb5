// The reference deployment, started and stopped as a whole (docs/deploy.md, "The reference deployment"): a primary
// PostgreSQL with a streaming standby, PgBouncer in front of the primary, N service processes, HAProxy in front of
// them. Everything lives in one folder the scripts own (state.json says what runs where); all on 127.0.0.1 with
// ports the OS picked free. deploy/up.ts and deploy/down.ts are its command line; the tests and bench/deploy.ts
// start it here.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../platform/node/free-port.ts';
import { findBinaries, missingPrerequisite } from '../platform/node/pg-server.ts';
import { type Balancer, serverStats, startBalancer, stopBalancer, writeBalancerConfig } from './haproxy.ts';
import { type Bouncer, PGBOUNCER_BIN, startBouncer, stopBouncer, writeBouncerConfig } from './pgbouncer.ts';
import { createPrimary, createStandby, makeSynchronous, DATABASE, type PgNode, pgStop, REPLICATION_ROLE, SERVICE_ROLE, serverDir, serverSecret } from './postgres.ts';
import { ROOT, SERVICE, type ServiceSpec, serviceEnv, startService, stopService } from './services.ts';

export interface DeploymentOptions {
  dir: string;
  /** Service processes behind the balancer (default 2). */
  services: number;
  /** PostgreSQL's fsync and full-page writes (default on; the tests turn them off). */
  durable: boolean;
  /** Synchronous replication to the standby (default off: docs/deploy.md says what asynchronous can lose). */
  synchronous: boolean;
  /** The primary logs every statement (tests). */
  logStatements: boolean;
  /** Load the demo organization and print its credentials (default on). */
  demo: boolean;
  /** Each service process's pool (PG_POOL_MAX); PgBouncer's server pool is what reaches the database. */
  poolMax: number;
  /**
   * The listings and the embedded map read from the standby while its replay is at most this far behind (ms), and
   * after the client's own writes (READ_DATABASE_URL, READ_MAX_LAG_MS); null: every read on the primary.
   */
  readMaxLagMs: number | null;
  /** Tests only: the processes' fault-injection endpoint (FAULTS=1). */
  faults?: boolean;
}

export interface Deployment {
  dir: string;
  bin: string;
  options: DeploymentOptions;
  primary: PgNode;
  standby: PgNode;
  bouncer: Bouncer;
  balancer: Balancer;
  services: ServiceSpec[];
  /** The balancer: what clients use. */
  url: string;
  /** The service processes' database URL (through PgBouncer; the password is in `passfile`). */
  databaseUrl: string;
  /** The standby's, for the routed reads (directly: PgBouncer fronts the primary only; the password in `passfile`). */
  readDatabaseUrl: string;
  passfile: string;
  demo?: Record<string, string>;
  /** After a failover: `standby` is the old primary, stopped (deploy/failover.ts). */
  standbyLost?: boolean;
}

export const DEFAULT_DIR = join(process.getuid?.() === 0 ? '/tmp' : (process.env.TMPDIR ?? '/tmp'), 'furrow-deploy');

export const defaults = (dir = DEFAULT_DIR): DeploymentOptions =>
  ({ dir, services: 2, durable: true, synchronous: false, logStatements: false, demo: true, poolMax: 10, readMaxLagMs: 1_000 });

const statePath = (dir: string) => join(dir, 'state.json');
export const saveDeployment = (d: Deployment) => writeFileSync(statePath(d.dir), `${JSON.stringify(d, null, 2)}\n`, { mode: 0o600 });

export function readDeployment(dir: string): Deployment | null {
  return existsSync(statePath(dir)) ? JSON.parse(readFileSync(statePath(dir), 'utf8')) as Deployment : null;
}

/** A pgpass line; `:` and `\` escaped as libpq reads them. */
const pgpassLine = (port: number | '*', database: string, user: string, password: string) =>
  [`127.0.0.1`, String(port), database, user, password].map((f) => f.replace(/[\\:]/g, (c) => `\\${c}`)).join(':');

/** Why the deployment cannot run here (a missing Debian package), or null. */
export function deployPrerequisite(): string | null {
  const bin = findBinaries();
  const pg = missingPrerequisite(bin);
  if (pg) return `${pg} (apt-get install postgresql-15 postgresql-15-postgis-3)`;
  if (!existsSync(PGBOUNCER_BIN)) return 'no PgBouncer (apt-get install pgbouncer)';
  if (!existsSync('/usr/sbin/haproxy')) return 'no HAProxy (apt-get install haproxy)';
  return null;
}

/** Starts everything; on any failure stops what it had started and removes the folder. */
export async function up(opts: DeploymentOptions): Promise<Deployment> {
  const missing = deployPrerequisite();
  if (missing) throw new Error(`The deployment cannot start: ${missing}`);
  if (readDeployment(opts.dir)) throw new Error(`A deployment is already in ${opts.dir}: stop and delete it first (npm run deploy:down)`);
  // The server's user (postgres, when run as root) must pass through the folder to its own subfolders.
  mkdirSync(opts.dir, { recursive: true });
  chmodSync(opts.dir, 0o711);
  const { ensureBuilt } = await import('../scripts/build.mjs');
  await ensureBuilt('service');
  const ports = [];
  for (let i = 0; i < 4 + opts.services; i++) ports.push(await freePort());
  const [primaryPort, standbyPort, bouncerPort, balancerPort, ...servicePorts] = ports as [number, number, number, number, ...number[]];
  const pgDir = serverDir(join(opts.dir, 'pg'));
  const d: Deployment = {
    dir: opts.dir, bin: findBinaries()!, options: opts,
    primary: { dir: join(pgDir, 'primary'), data: join(pgDir, 'primary', 'data'), port: primaryPort },
    standby: { dir: join(pgDir, 'standby'), data: join(pgDir, 'standby', 'data'), port: standbyPort },
    bouncer: { dir: join(opts.dir, 'pgbouncer'), port: bouncerPort },
    balancer: { dir: join(opts.dir, 'haproxy'), port: balancerPort },
    services: servicePorts.map((port, i) => ({ dir: join(opts.dir, `service-${i + 1}`), port })),
    url: `http://127.0.0.1:${balancerPort}`,
    databaseUrl: `postgres://${SERVICE_ROLE}@127.0.0.1:${bouncerPort}/${DATABASE}`,
    readDatabaseUrl: `postgres://${SERVICE_ROLE}@127.0.0.1:${standbyPort}/${DATABASE}`,
    passfile: join(opts.dir, 'pgpass'),
  };
  saveDeployment(d);
  try {
    const passwords = { service: randomBytes(24).toString('base64url'), replication: randomBytes(24).toString('base64url') };
    // The service processes' passwords (PgBouncer, and the standby for reads), readable by their user only.
    writeFileSync(d.passfile, [pgpassLine(bouncerPort, DATABASE, SERVICE_ROLE, passwords.service),
      pgpassLine(standbyPort, DATABASE, SERVICE_ROLE, passwords.service), pgpassLine(primaryPort, DATABASE, SERVICE_ROLE, passwords.service), ''].join('\n'), { mode: 0o600 });
    const replicationPass = join(pgDir, 'replication.pgpass');
    serverSecret(replicationPass, `${pgpassLine('*', '*', REPLICATION_ROLE, passwords.replication)}\n`);
    await createPrimary(d.bin, d.primary, passwords, opts);
    createStandby(d.bin, d.primary, d.standby, replicationPass);
    if (opts.synchronous) await makeSynchronous(d.primary);
    writeBouncerConfig(d.bouncer, primaryPort, passwords.service, 20);
    await startBouncer(d.bouncer);
    mkdirSync(d.balancer.dir, { recursive: true, mode: 0o700 });
    writeBalancerConfig(d.balancer, servicePorts);
    startBalancer(d.balancer);
    // All at once on the fresh database, through PgBouncer: one migrates under the advisory lock, the others wait.
    const common = serviceCommon(d);
    await Promise.all(d.services.map(async (s) => {
      s.pid = await startService(s, serviceEnv(s, common));
      saveDeployment(d);
    }));
    if (opts.demo) d.demo = loadDemo(d, common);
    saveDeployment(d);
    await balancedAll(d);
    return d;
  } catch (e) {
    await down(opts.dir, { purge: true });
    throw e;
  }
}

/**
 * Until HAProxy has every process UP: its health checks find a new process after two of them (a second apart), and
 * until then it answers 503 with a page of its own. Started means serving, for a user and for the tests.
 */
async function balancedAll(d: Deployment, timeoutMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const stats = await serverStats(d.balancer);
    if (stats.length === d.services.length && stats.every((s) => s.status === 'UP')) return;
    if (Date.now() > deadline) throw new Error(`HAProxy did not have every service process UP within ${timeoutMs / 1000} s: ${stats.map((s) => `${s.name} ${s.status}`).join(', ')}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
}

/** What every service process of `d` is started with (deploy/services.ts serviceEnv). */
export const serviceCommon = (d: Deployment) => ({
  databaseUrl: d.databaseUrl, passfile: d.passfile, publicUrl: d.url, poolMax: d.options.poolMax, faults: d.options.faults,
  reads: d.options.readMaxLagMs === null ? undefined : { url: d.readDatabaseUrl, maxLagMs: d.options.readMaxLagMs },
});

/**
 * The demo organization (`service demo`, as `npm start` loads it), its addresses the balancer's; its API key and
 * admin password kept in demo/demo-credentials.json (0600), so a second start would reuse them.
 */
function loadDemo(d: Deployment, common: Parameters<typeof serviceEnv>[1]): Record<string, string> {
  const spec = { dir: join(d.dir, 'demo'), port: d.balancer.port };
  mkdirSync(spec.dir, { recursive: true, mode: 0o700 });
  const r = spawnSync(process.execPath, [SERVICE, 'demo'], { cwd: ROOT, env: serviceEnv(spec, common), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`service demo failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, string>;
}

/** Stops everything in `dir` (the balancer first, the databases last); `purge` also deletes the folder and its data. */
export async function down(dir: string, opts: { purge: boolean }): Promise<void> {
  const d = readDeployment(dir);
  if (d) {
    await stopBalancer(d.balancer);
    await Promise.all(d.services.map(stopService));
    await stopBouncer(d.bouncer);
    pgStop(d.bin, d.standby);
    pgStop(d.bin, d.primary);
  }
  // Kept (--keep), the folder still holds its state: a later `down` deletes it, and `up` refuses it until then.
  if (opts.purge) rmSync(dir, { recursive: true, force: true });
}
