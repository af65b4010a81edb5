// HAProxy in front of the service processes (docs/deploy.md, "The balancer"): round robin, each process checked on
// /healthz every second and taken out after two failures, and a request whose connection to a process failed sent
// to another one (the request never reached the first, so resending it cannot duplicate anything).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { run } from '../platform/node/pg-server.ts';
import { alive, stopPid } from './pgbouncer.ts';

export const HAPROXY_BIN = '/usr/sbin/haproxy';

export interface Balancer {
  dir: string;
  port: number;
}

/**
 * Timeouts sit with the service's (docs/deploy.md, "Timeouts and connection bounds"): the server timeout over
 * GATEWAY_TIMEOUT_MS (30 s, the service answers 504 first), the client timeout at REQUEST_TIMEOUT_MS, the keep-alive
 * towards the processes under their IDLE_TIMEOUT_MS (75 s), so that HAProxy never reuses a connection a process is
 * closing.
 */
export function writeBalancerConfig(b: Balancer, servicePorts: readonly number[]): void {
  const cfg = [
    '# furrow reference deployment (deploy/haproxy.ts)',
    'global',
    '  maxconn 4000',
    `  stats socket ${join(b.dir, 'haproxy.sock')} mode 600 level admin`,
    '',
    'defaults',
    '  mode http',
    '  option httplog',
    '  timeout connect 2s',
    '  timeout client 120s',
    '  timeout server 60s',
    '  timeout http-request 20s',
    '  timeout http-keep-alive 60s',
    // A connection refused before the request was sent: up to 3 retries, each on another process (redispatch 1).
    // A GET or HEAD whose process closed the connection without an answer (killed) is also resent: a read. Any
    // other request a process received may have been committed by it, so an answer lost after that is the
    // client's to reconcile (the sync engine does, docs/sync.md): HAProxy answers 502 and never resends it.
    '  retries 3',
    '  option redispatch 1',
    '  retry-on conn-failure empty-response junk-response',
    '',
    'frontend furrow',
    `  bind 127.0.0.1:${b.port}`,
    '  default_backend services',
    '',
    'backend services',
    '  balance roundrobin',
    '  http-request disable-l7-retry if !METH_GET !METH_HEAD',
    '  option httpchk GET /healthz',
    '  http-check expect status 200',
    // Every second, out after 3 failed checks, back after 2 good ones; a process marked down has its connections
    // cut. A check may take 5 s: a busy process (a loaded machine) answers late, and checks timing out on every
    // process at once would take them all out (HAProxy then answers 503 to everything). A killed process refuses
    // the connection at once, so it is out in about 3 s all the same.
    '  timeout check 5s',
    '  default-server inter 1s fall 3 rise 2 on-marked-down shutdown-sessions maxconn 200',
    ...servicePorts.map((p, i) => `  server s${i + 1} 127.0.0.1:${p} check`),
    '',
  ].join('\n');
  writeFileSync(join(b.dir, 'haproxy.cfg'), cfg);
}

export function startBalancer(b: Balancer): void {
  const check = run(HAPROXY_BIN, ['-c', '-q', '-f', join(b.dir, 'haproxy.cfg')], null);
  if (check.status !== 0) throw new Error(`haproxy.cfg is invalid: ${check.stderr}${check.stdout}`);
  // -D: a daemon, its pid in the pid file; its log (stderr) is nowhere, the stats socket says what it does.
  const r = run(HAPROXY_BIN, ['-D', '-p', join(b.dir, 'haproxy.pid'), '-f', join(b.dir, 'haproxy.cfg')], null);
  if (r.status !== 0) throw new Error(`haproxy failed to start (${r.status}): ${r.stderr}${r.stdout}`);
}

export function balancerPid(b: Balancer): number | null {
  const f = join(b.dir, 'haproxy.pid');
  if (!existsSync(f)) return null;
  const pid = Number(readFileSync(f, 'utf8').trim().split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : null;
}

export async function stopBalancer(b: Balancer): Promise<void> {
  const pid = balancerPid(b);
  if (pid !== null) await stopPid(pid, 'SIGTERM', 5_000);
}

/** A command on HAProxy's stats socket ("show stat", "show servers state"…): its answer. */
export function balancerCommand(b: Balancer, command: string): Promise<string> {
  return new Promise((ok, fail) => {
    const s = createConnection(join(b.dir, 'haproxy.sock'));
    let out = '';
    s.on('connect', () => s.write(`${command}\n`));
    s.on('data', (d) => { out += d.toString(); });
    s.on('end', () => ok(out));
    s.on('error', fail);
  });
}

export interface ServerStat { name: string; status: string; requests: number; retries: number; redispatches: number; errors: number }

/** Per service process: its check status (UP, DOWN…), the requests it was sent, retries and redispatches. */
export async function serverStats(b: Balancer): Promise<ServerStat[]> {
  const csv = (await balancerCommand(b, 'show stat')).trim().split('\n');
  const head = csv[0]!.replace(/^# /, '').split(',');
  const col = (row: string[], name: string) => row[head.indexOf(name)] ?? '';
  return csv.slice(1).map((l) => l.split(',')).filter((r) => r[0] === 'services' && r[1] !== 'BACKEND').map((r) => ({
    name: r[1]!, status: col(r, 'status'), requests: Number(col(r, 'stot')), retries: Number(col(r, 'wretr')),
    redispatches: Number(col(r, 'wredis')), errors: Number(col(r, 'econ')) + Number(col(r, 'eresp')),
  }));
}
