// Not a benchmark: the serial stretches of the push benchmark's two sides (bench/sync-push.ts builds the same fixtures),
// read from strace: spawn -> first request written, first -> second request, last 201 read -> exit_group, and the
// fsyncs and the WAL's removal after the last answer. Each round builds fresh fixtures (a service per side, the CLI's
// FURROW_HOME with the parcels queued, the bare loop's bodies) and runs each side once, client on CPU 1, service on 0.
//   npx tsx bench/lib/push-trace.ts [--rounds N] [--shape squares|irregular] [--parcels N]
// Environment: SIDES=cli,bare (the runs of a round, in this order in even rounds, reversed in odd ones; another name
// is a script in scripts/ run instead of scripts/cli.mjs, for an A/B of two builds of its end); LIGHT=1 (strace
// --seccomp-bpf, writes and fsyncs only: start-up is not slowed by tracing every read); ALL=1 (every system call);
// KEEP=1 (the traces' folders are kept and printed); NODEARGS (flags for the CLI's node, e.g. --cpu-prof). A line TMARK
// written to stderr (by such a script, after runCli returned) gives lastToMark and markToExitGroup.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { Mirror } from '../../db/mirror.ts';
import type { ParcelRow } from '../../db/types.ts';
import { SyncEngine } from '../../sync/engine.ts';
import { clientFactory } from '../../sync/client-factory.ts';
import { saveCredentials } from '../../sync/credentials.ts';
import { parcelInput, parcelStateOfRow } from '../../sync/state.ts';
import { defaultSyncOptions } from '../../sync/context.ts';
import { MAX_PARCELS_PER_REQUEST } from '../../core/parcels/validate.ts';
import { BATCH_SIZE, makeParcels, type ParcelShape } from './parcels.ts';
import { createFarms, createTenant, removeDir, startService, tempDataDir } from './service.ts';
import { ROOT } from './paths.ts';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, shape: { type: 'string', default: 'squares' }, parcels: { type: 'string', default: '20000' } } });
const PARCELS = Number(args.parcels);
const inputs: unknown[] = [];
for (let i = 0; i < PARCELS / BATCH_SIZE; i++) inputs.push(...makeParcels(1 + i, BATCH_SIZE, args.shape as ParcelShape));
const { ensureBuilt } = await import('../../scripts/build.mjs');
await ensureBuilt();

async function service(tag: string) {
  const dir = tempDataDir(tag);
  const svc = await startService(dir, { cpus: '0' });
  const pool = new Pool(svc.url, { connections: 1 });
  return { dir, svc, pool, tenant: await createTenant(dir, pool) };
}

function trace(argv: string[], env: NodeJS.ProcessEnv, out: string) {
  spawnSync('sync');
  const r = spawnSync('strace', ['-f', '-tt', ...(process.env.LIGHT ? ['--seccomp-bpf'] : []), '-s', '24', '-o', out, ...(process.env.ALL ? [] : ['-e', process.env.LIGHT ? 'trace=execve,write,writev,sendto,fsync,fdatasync,exit_group' : 'trace=execve,connect,read,write,writev,sendto,fsync,fdatasync,unlink,exit_group']), 'taskset', '-c', '1', process.execPath, ...(process.env.NODEARGS && /cli/.test(argv[0]!) ? process.env.NODEARGS.split(' ') : []), ...argv],
    { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${argv.join(' ')}: ${r.status} ${r.stderr.slice(-2000)}`);
  return analyze(readFileSync(out, 'utf8'));
}

const sec = (t: string) => { const [h, m, s] = t.split(':').map(Number); return (h! * 3600 + m! * 60 + s!) * 1000; };
function analyze(text: string) {
  const lines = text.split('\n').filter(Boolean);
  let start = NaN; let exit = NaN; let mark = NaN; let end = NaN;
  const sockets = new Set<string>();
  const posts: number[] = []; const answers: number[] = []; const fsyncs: number[] = []; const unlinks: number[] = [];
  for (const l of lines) {
    const e = /^(\d+)\s+(\d\d:\d\d:\d\d\.\d+) \+\+\+ exited/.exec(l);
    if (e) end = sec(e[2]!);
    const m = /^(\d+)\s+(\d\d:\d\d:\d\d\.\d+) (\w+)\((\d+)?(.*)$/.exec(l);
    if (!m) continue;
    const t = sec(m[2]!); const call = m[3]!; const fd = m[4];
    if (call === 'execve' && /node/.test(l) && Number.isNaN(start)) start = t;
    if (call === 'connect' && fd) sockets.add(fd);
    if ((call === 'write' || call === 'writev' || call === 'sendto') && /POST \/api\/parcels/.test(l)) posts.push(t);
    if (call === 'read' && fd && sockets.has(fd) && /HTTP\/1.1 201/.test(l)) answers.push(t);
    if (call === 'fsync' || call === 'fdatasync') fsyncs.push(t);
    if (call === 'unlink') unlinks.push(t);
    if (call === 'exit_group') exit = t;
    if (/TMARK/.test(l)) mark = t;
  }
  const last = answers.at(-1)!;
  return {
    toFirst: +(posts[0]! - start).toFixed(1), firstToSecond: +(posts[1]! - posts[0]!).toFixed(1), lastToExit: +(exit - last).toFixed(1),
    total: +(exit - start).toFixed(0), closedToExitGroup: +(exit - (unlinks.at(-1) ?? NaN)).toFixed(1), markToExitGroup: +(exit - mark).toFixed(1), exitGroupToEnd: +(end - exit).toFixed(1), lastToMark: +(mark - last).toFixed(1), posts: posts.length, answers: answers.length,
    fsyncsBeforeFirst: fsyncs.filter((t) => t < posts[0]!).length, fsyncsAfterLast: fsyncs.filter((t) => t > last).length,
    afterLast: fsyncs.filter((t) => t > last).map((t) => +(t - last).toFixed(1)), unlinkAfterLast: unlinks.filter((t) => t > last).map((t) => +(t - last).toFixed(1)),
  };
}

async function engineHome() {
  const e = await service('trace-engine');
  const home = tempDataDir('trace-home');
  const mirror = Mirror.open(join(home, 'mirror.db'));
  const accountId = e.tenant.accountId;
  saveCredentials(home, accountId, { method: 'api_key', apiKey: e.tenant.apiKey });
  mirror.write.addAccount({ id: accountId, service_url: e.svc.url, mode: 'api_key', label: 'bench' });
  const farm = mirror.write.createFarm(accountId, 'Bench push farm').local_id;
  await new SyncEngine(mirror, clientFactory({ [accountId]: { method: 'api_key', apiKey: e.tenant.apiKey } })).sync({ push: true, pull: false });
  mirror.write.createParcels(farm, inputs, { label: 'bench parcels' });
  const rows = mirror.syncDb.prepare('SELECT * FROM parcels WHERE farm_local_id = ? ORDER BY rowid').all(farm) as ParcelRow[];
  mirror.close();
  return { e, home, rows };
}

// SIDES: which runs make a round, in this order on odd rounds and reversed on even ones: cli (scripts/cli.mjs), bare,
// or a script of scripts/ named by its file (e.g. .cli-old.mjs: another build of the CLI's end, for an A/B).
const SIDES = (process.env.SIDES ?? 'cli,bare').split(',');
for (let round = 0; round < Number(args.rounds); round++) {
  const b = await service('trace-bare');
  const homes = new Map<string, Awaited<ReturnType<typeof engineHome>>>();
  try {
    for (const side of SIDES) if (side !== 'bare') homes.set(side, await engineHome());
    const rows = [...homes.values()][0]!.rows;
    const [bareFarm] = await createFarms(b.pool, b.tenant, 1) as [number];
    const lines: string[] = [];
    for (let i = 0; i < rows.length; i += MAX_PARCELS_PER_REQUEST) lines.push(JSON.stringify({ farm: { id: bareFarm }, parcels: rows.slice(i, i + MAX_PARCELS_PER_REQUEST).map((r) => parcelInput(r.local_id, parcelStateOfRow(r))) }));
    const bodies = join(b.dir, 'bodies.jsonl');
    writeFileSync(bodies, `${lines.join('\n')}\n`);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    const order = round % 2 === 0 ? SIDES : [...SIDES].reverse();
    for (const side of order) {
      const h = homes.get(side);
      const r = h
        ? trace([resolve(ROOT, 'scripts', side === 'cli' ? 'cli.mjs' : side), 'push'], { FURROW_HOME: h.home }, join(h.e.dir, 'cli.strace'))
        : trace([resolve(ROOT, 'bench/lib/bare-push.mjs'), b.svc.url, bodies, JSON.stringify(b.tenant.headers), String(defaultSyncOptions().pushWindow)], {}, join(b.dir, 'bare.strace'));
      console.log(JSON.stringify({ round, side, load, ...r }));
    }
  } finally {
    for (const s of [b, ...[...homes.values()].map((h) => h.e)]) { await s.pool.close(); await s.svc.stop(); if (!process.env.KEEP) removeDir(s.dir); else console.log(s.dir); }
    for (const h of homes.values()) removeDir(h.home);
  }
}
