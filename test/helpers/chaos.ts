// Helpers of the chaos test (test/e2e/chaos.test.ts): its seeded choices, the random fault rules, the GeoJSON
// files it imports, the `cli` processes it runs and kills, and what it reads from a mirror between runs. The
// scenario, its parameters and its checks stay in the test.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ROOT } from './process.ts';
import { square } from './service.ts';
import { seededRandom as prng } from '../../core/random.ts';

/**
 * Every random choice of a run (faults, kill moments, edits) comes from one seeded stream, in the order the test
 * makes them: the same seed replays the same choices.
 */
export interface ChaosRandom {
  rnd: () => number;
  /** An integer from lo to hi, both included. */
  between: (lo: number, hi: number) => number;
  pickOne: <T>(xs: readonly T[]) => T;
}

export function chaosRandom(seed: number): ChaosRandom {
  const rnd = prng(seed);
  const between = (lo: number, hi: number) => Math.floor(lo + rnd() * (hi - lo + 1));
  const pickOne = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  return { rnd, between, pickOne };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A fault rule as the service's POST /__faults__ takes it (FAULTS=1). */
export interface Fault { match: string; mode: string; count: number; ms?: number; status?: number; retry_after?: number }

/** Where faults go, how many requests one rule hits, and the ranges of the short and long delays. */
export interface FaultMix {
  matches: readonly string[];
  count: readonly [number, number];
  delayShortMs: readonly [number, number];
  delayLongMs: readonly [number, number];
}

/** One fault rule drawn from the mix: 504s before and after the commit, dropped connections, delays, 503s. */
export function randomFault(r: ChaosRandom, mix: FaultMix): Fault {
  const match = r.pickOne(mix.matches);
  const count = r.between(mix.count[0], mix.count[1]);
  const x = r.rnd();
  if (x < 0.22) return { match, mode: '504-after-commit', count };
  if (x < 0.38) return { match, mode: '504-before-commit', count };
  if (x < 0.56) return { match, mode: 'drop-after-commit', count };
  if (x < 0.68) return { match, mode: 'delay', count, ms: r.between(mix.delayShortMs[0], mix.delayShortMs[1]) };
  if (x < 0.84) return { match, mode: 'delay', count, ms: r.between(mix.delayLongMs[0], mix.delayLongMs[1]) };
  return { match, mode: 'error', count, status: 503, retry_after: r.between(0, 1) };
}

/**
 * One GeoJSON file for the farm `farmName` (the farmIndex-th, which sets where its grid lies): ~1 ha squares on a
 * grid (every pointEvery-th a Point with hectares), with metadata.
 */
export function farmGeoJson(farmName: string, farmIndex: number, n: number, pointEvery: number): unknown {
  const lon0 = -5 + farmIndex * 0.5;
  const lat0 = 37.5;
  const features = Array.from({ length: n }, (_, i) => {
    const lon = lon0 + (i % 40) * 0.003;
    const lat = lat0 + Math.floor(i / 40) * 0.003;
    const properties: Record<string, unknown> = {
      name: `${farmName} #${i + 1}`, 'Supplier ID': `S-${(i * 7) % 97}`, region: i % 2 ? 'norte' : 'sur',
      contract_year: 2023 + (i % 3), organic: i % 5 === 0,
    };
    if (i % pointEvery === pointEvery - 1) {
      properties.hectares = 0.5 + (i % 9) * 0.5;
      return { type: 'Feature', properties, geometry: { type: 'Point', coordinates: [lon, lat] } };
    }
    return { type: 'Feature', properties, geometry: { type: 'Polygon', coordinates: square(lon, lat, 80 + (i % 5) * 10) } };
  });
  return { type: 'FeatureCollection', features };
}

/** The launcher builds dist/ first when a source changed (atomically: concurrent starts are safe). */
const CLI = 'scripts/cli.mjs';

export interface CliRun { child: ChildProcess; output: () => string; started: Promise<void>; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> }

/**
 * `npm run -s cli -- <args>` as `node scripts/cli.mjs`: the built CLI users run, in one process (npm, like the tsx
 * wrapper, would run it in a grandchild, and SIGKILLing the wrapper would leave the real sync running). Not
 * `--import tsx cli/main.ts`: compiling at every start cost ~0.5 s a run, over a hundred runs a CI minute.
 * `started` resolves on its first output.
 */
export function startCli(home: string, args: string[], env: Record<string, string>): CliRun {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT, env: { ...process.env, FURROW_HOME: home, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let markStarted: () => void = () => {};
  const started = new Promise<void>((r) => { markStarted = r; });
  const onData = (d: Buffer) => { out += d.toString(); markStarted(); };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  return { child, output: () => out, started, exited };
}

/** The same CLI run to the end (two minutes at most). */
export function runCli(home: string, args: string[], env: Record<string, string>): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: ROOT, env: { ...process.env, FURROW_HOME: home, ...env }, encoding: 'utf8', timeout: 120_000,
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Parcel creates not yet committed, read from the mirror while no CLI process is alive. */
export function pendingCreates(home: string): number {
  const db = new Database(join(home, 'mirror.db'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare("SELECT COUNT(*) AS n FROM outbox WHERE entity = 'parcel' AND op = 'create' AND state != 'committed'").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** The last lines of a process's output on one line, for the journal. */
export const tail = (s: string, lines = 4) => s.trim().split('\n').slice(-lines).join(' | ');

/** A parcel as the service lists it (GET /api/farms/{id}/parcels/). */
export interface Feature { id: number; geometry: unknown; properties: { key: string; name: string; farm: number; hectares: number; metadata: Record<string, unknown> } }

/** What a round of the scenario works with: the service, its temp dir and the journal. */
export interface World {
  base: string; apiKey: string; dir: string; journal: (line: string) => void; journalFile: string;
  /** Throws when the service process is gone (its stderr is in the temp dir): nothing after that would mean anything. */
  serviceAlive: () => void;
}

/** Sets the service's fault rules (POST /__faults__): one rule, or `{ mode: 'reset' }` to clear them all. */
export async function faults(w: World, body: unknown): Promise<void> {
  w.serviceAlive();
  const r = await fetch(`${w.base}/__faults__`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!r.ok) throw new Error(`faults: ${r.status} ${await r.text()}`);
}
