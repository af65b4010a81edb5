// How long `npm run -s cli -- sync` takes to give up against a service that accepts connections and never answers.
// The documented bound: a run ends within FURROW_MAX_WAIT_MS (how long it keeps retrying) + FURROW_HTTP_DEADLINE_MS
// (a request started just before that can take its whole deadline). Target: that bound + 1 s, whole process.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './lib/paths.ts';
import { metric, startResult, writeResult } from './lib/result.ts';

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '3' }, deadline: { type: 'string', default: '5000' }, 'max-wait': { type: 'string', default: '10000' } } });
const RUNS = Number(args.runs);
const DEADLINE_MS = Number(args.deadline);
const MAX_WAIT_MS = Number(args['max-wait']);
const BOUND_S = (MAX_WAIT_MS + DEADLINE_MS) / 1000;
const CLI = resolve(ROOT, 'scripts/cli.mjs');

const record = startResult('sync-giveup', 'A sync against a service that never answers: time to give up', 'npm run bench -- sync-giveup');

// A service that answers while the account is connected, then accepts every connection and never answers.
let answering = true;
const sockets = new Set<Socket>();
const server: Server = createServer((req, res) => {
  if (!answering) return; // the request is read and left without an answer
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(req.url === '/api/farms/' ? '[]' : '{}');
});
server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const env = { ...process.env, FURROW_HTTP_DEADLINE_MS: String(DEADLINE_MS), FURROW_MAX_WAIT_MS: String(MAX_WAIT_MS) };
/** The CLI as a process; asynchronous, since the server it talks to runs in this one. */
function cli(home: string, argv: string[]): Promise<{ status: number | null; seconds: number; out: string }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [CLI, ...argv], { cwd: ROOT, env: { ...env, FURROW_HOME: home } });
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
  return new Promise((r) => child.on('close', (status) => r({ status, seconds: (performance.now() - t0) / 1000, out })));
}

const { ensureBuilt } = await import('../scripts/build.mjs');
await ensureBuilt();
const rows: (string | number)[][] = [];
const times: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const home = mkdtempSync(join(tmpdir(), 'furrow-bench-giveup-'));
  answering = true;
  const c = await cli(home, ['connect', '--service', url, '--api-key', 'fk_bench', '--account', 'acc-bench']);
  if (c.status !== 0) throw new Error(`connect failed: ${c.out}`);
  const imp = await cli(home, ['import', resolve(ROOT, 'examples/fields.geojson'), '--farm', 'Bench']);
  if (imp.status !== 0) throw new Error(`import failed: ${imp.out}`);
  answering = false;
  const s = await cli(home, ['sync']);
  for (const sock of sockets) sock.destroy();
  const last = s.out.trim().split('\n').at(-1) ?? '';
  rows.push([i + 1, Math.round(s.seconds * 10) / 10, s.status ?? 'signal', last.slice(0, 160)]);
  times.push(s.seconds);
  rmSync(home, { recursive: true, force: true });
}
server.close();

const worst = Math.round(Math.max(...times) * 10) / 10;
const result = record.finish({
  method: [
    `A local HTTP server answers while the CLI connects and imports examples/fields.geojson, then accepts every connection and never answers; \`npm run -s cli -- sync\` is timed as a whole process (\`node scripts/cli.mjs\`, the built JavaScript, start-up included), ${RUNS} runs.`,
    `FURROW_HTTP_DEADLINE_MS=${DEADLINE_MS} (a request's deadline) and FURROW_MAX_WAIT_MS=${MAX_WAIT_MS} (how long a run retries): the documented bound is their sum, ${BOUND_S} s; the target adds 1 s.`,
  ],
  metrics: [
    metric('Slowest run to give up', worst, 's', { op: '<=', value: BOUND_S + 1 }),
    metric('Documented bound (FURROW_MAX_WAIT_MS + FURROW_HTTP_DEADLINE_MS)', BOUND_S, 's'),
  ],
  tables: [{ title: 'Runs', columns: ['run', 'seconds', 'exit', 'last line'], rows }],
  notes: ['With the defaults (120 s of retries, a 300 s request deadline) the bound is 420 s; a service that refuses connections is reported after 4 tries in seconds (docs/sync.md).'],
  details: { deadline_ms: DEADLINE_MS, max_wait_ms: MAX_WAIT_MS, times_s: times },
});
console.log(`  slowest give-up ${worst} s (bound ${BOUND_S} s + 1)`);
console.log(`  wrote ${writeResult(result)}`);
