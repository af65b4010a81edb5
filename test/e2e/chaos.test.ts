// Chaos: 2,000 parcels over 3 farms pushed by the real `cli sync` process while the real service injects random
// faults (gateway 504s before and after the commit, dropped connections after the commit, slow commits past the
// gateway limit, 503 with Retry-After) and the sync process is SIGKILLed at random moments. Local edits land
// between runs. Once faults stop and a sync exits 0, the service must hold exactly one parcel per local parcel
// (no duplicate, none lost), mirror and service must agree field by field, and every edit must have arrived.
//
// Default run: one round with 8 kills (about a minute). CI_LONG=1: rounds of the whole scenario until 100 kills
// (many minutes). CHAOS_SEED=n replays a run's faults, kill moments and edits (the timing of the processes still
// varies). On failure the error names the duplicates or losses with their outbox rows; the journal (every run's
// faults, kill moment, exit and last output) stays in the kept temp dir. CHAOS_KEEP=1 keeps it on success too.
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { serviceCli, spawnService, type ServiceProcess } from '../helpers/process.ts';
import {
  chaosRandom, faults, farmGeoJson, pendingCreates, randomFault, runCli, sleep, startCli, tail,
  type FaultMix, type Feature, type World,
} from '../helpers/chaos.ts';
import { Mirror } from '../../db/mirror.ts';
import type { OutboxRow, ParcelRow } from '../../db/types.ts';
import type { StatusCounts } from '../../core/api.ts';
import { REF_KEY } from '../../sync/state.ts';

// ---------------------------------------------------------------- parameters

const LONG = process.env.CI_LONG === '1';
const SEED = process.env.CHAOS_SEED !== undefined ? Number(process.env.CHAOS_SEED) : LONG ? Date.now() % 1_000_000 : 20_251_121;

const FARMS = [{ name: 'Cortijo Norte', parcels: 700 }, { name: 'Finca del Sur', parcels: 700 }, { name: 'Dehesa Este', parcels: 600 }] as const;
const TOTAL_PARCELS = FARMS.reduce((s, f) => s + f.parcels, 0); // 2,000
/** Every n-th parcel of a file is a Point with hectares (the service builds its square). */
const POINT_EVERY = 10;

/** SIGKILLs to reach in all. */
const KILL_TARGET = LONG ? 100 : 8;
/**
 * SIGKILLs per round of the whole scenario (new account and FURROW_HOME, the 2,000 parcels imported again). One
 * round pushes its 2,000 parcels within a dozen runs or so; the long run repeats rounds until KILL_TARGET so that
 * its kills keep landing while creates are in flight, not on a mirror synced long ago.
 */
const KILLS_PER_ROUND = LONG ? 20 : KILL_TARGET;
/** A kill lands this long after the sync process starts working (its first progress line). */
const KILL_MIN_MS = 50;
const KILL_MAX_MS = 1500;
/**
 * Share of runs left to finish on their own (faults still on). The long run leaves half as many: its runs that end
 * before their kill (40 of its ~160) finish under faults too, and each run left to finish costs a kill's time or more
 * without a kill (measured, CHAOS_SEED=580033, load 5-7: 30 such runs, 32 s of the 183 s; at 0.1, 15 runs, 16 s).
 */
const FINISH_SHARE = LONG ? 0.1 : 0.2;
/** A run left to finish that takes longer than this is killed (and counted). */
const RUN_TIMEOUT_MS = 30_000;

/** The service's gateway answers 504 past this; the work behind it still commits. */
const GATEWAY_TIMEOUT_MS = 400;
/** Engine tuning for the CLI runs. Delays stay well inside the settle window (see DELAY_LONG_MS). */
const CLI_ENV = { FURROW_SETTLE_MS: '300', FURROW_MAX_WAIT_MS: '4000', FURROW_HTTP_TIMEOUT_MS: '5000' };

/** Fault rules added before each run: how many, and how many requests each one hits. */
const FAULT_RULES = [1, 4] as const;
const FAULT_COUNT = [1, 3] as const;
/** Where faults go: the creates, the listings reconciliation and pull read, and (less often) the PATCHes of edits. */
const FAULT_MATCHES = ['POST /api/parcels/', 'POST /api/parcels/', 'POST /api/parcels/', 'POST /api/farms/', 'GET /api/farms/*', 'GET /api/farms/*', 'PATCH /api/parcels/*'] as const;
/** 'delay' shorter than the gateway limit (a slow 201) or longer (a 504 whose work commits after it). Longer
 * delays must stay under the engine's settle window (two empty listings at least 1 s apart, settle time
 * after the send): a commit later than that is a resend by design, not a bug. */
const DELAY_SHORT_MS = [50, 350] as const;
const DELAY_LONG_MS = [500, 1000] as const;
/** Share of runs whose bulk creates are also slowed (under the gateway limit), so that pushing the 2,000
 * parcels spans several kills instead of finishing within the first run's second. */
const SLOW_SHARE = 0.7;
const SLOW_MS = [150, 350] as const;
const SLOW_COUNT = [4, 12] as const;

/** Between runs (no CLI process alive) a few parcels are renamed or get a metadata edit through db/mirror.ts. */
const EDIT_SHARE = LONG ? 0.5 : 0.4;
const EDITS_PER_ROUND = [1, 4] as const;

/** Syncs with the faults off until one exits 0. */
const FINAL_ATTEMPTS = 8;
const TEST_TIMEOUT_MS = LONG ? 3_600_000 : 240_000;

// ---------------------------------------------------------------- seeded choices

const random = chaosRandom(SEED);
const { rnd, between, pickOne } = random;
const FAULT_MIX: FaultMix = { matches: FAULT_MATCHES, count: FAULT_COUNT, delayShortMs: DELAY_SHORT_MS, delayLongMs: DELAY_LONG_MS };

// ---------------------------------------------------------------- one round of the scenario

/** The world of helpers/chaos.ts and the organization whose accounts the rounds create. */
interface ChaosWorld extends World { orgId: string }

interface RoundResult { runs: number; kills: number; killsWhileCreating: number; finished: number; edited: number; killMoments: number[] }

/**
 * The whole scenario once: a new connected account and FURROW_HOME, three GeoJSON imports, the kill/fault loop
 * until `killTarget` kills, faults off, sync until exit 0, then every check. Throws with the diagnosis on failure.
 */
async function chaosRound(w: ChaosWorld, round: number, killTarget: number): Promise<RoundResult> {
  const journal = (line: string) => w.journal(`[${round}] ${line}`);
  const t0 = Date.now();
  const home = join(w.dir, `home-${round}`);
  // The account comes from the service's admin CLI, not a POST: every API request passes the 400 ms gateway, and on a
  // loaded host the service's first request overran it (CI: 504, and a 504'd POST may still have committed).
  const acc = serviceCli(join(w.dir, 'service'), ['create-account', '--org', w.orgId, '--email', `chaos-${round}@example.com`]);
  expect(acc.status, acc.stderr).toBe(0);
  const accountId = (acc.json as { id: string }).id;
  /** The checks' reads: a GET past the gateway limit is only slow, so a 504 is asked again (the faults are off by then). */
  const api = async <T>(path: string): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      const r = await fetch(`${w.base}${path}`, { headers: { 'x-api-key': w.apiKey, 'service-account': accountId } });
      if (r.status === 504 && attempt < 5) { await r.arrayBuffer(); continue; }
      if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${await r.text()}`);
      return (await r.json()) as T;
    }
  };

  const connected = runCli(home, ['connect', '--service', w.base, '--api-key', w.apiKey, '--account', accountId], CLI_ENV);
  expect(connected.status, connected.stderr).toBe(0);
  // ---- three GeoJSON files, one per farm
  for (const [i, farm] of FARMS.entries()) {
    const file = join(w.dir, `farm-${i}.geojson`);
    if (round === 1) writeFileSync(file, JSON.stringify(farmGeoJson(farm.name, i, farm.parcels, POINT_EVERY)));
    const r = runCli(home, ['import', file, '--farm', farm.name], CLI_ENV);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Imported ${farm.parcels} parcel(s)`);
  }
  journal(`account ${accountId}, ${TOTAL_PARCELS} parcels imported in ${Date.now() - t0} ms`);

  // ---- chaos loop
  /** Expected state of every locally edited parcel: the service must end up with it. */
  const edited = new Map<string, { name: string; metadata: Record<string, unknown> }>();
  const res: RoundResult = { runs: 0, kills: 0, killsWhileCreating: 0, finished: 0, edited: 0, killMoments: [] };
  const maxRuns = killTarget * 3 + 10;
  /** How long the last run that ended by itself took from its start (ms): where the next kill is drawn. */
  let lastRunMs = KILL_MAX_MS;
  while (res.kills < killTarget) {
    const runs = ++res.runs;
    if (runs > maxRuns) throw new Error(`only ${res.kills} kills after ${maxRuns} runs (journal: ${w.journalFile})`);

    if (rnd() < EDIT_SHARE) {
      // No CLI process is alive: the mirror is ours. Rename or edit the metadata of a few parcels.
      const m = Mirror.open(join(home, 'mirror.db'));
      try {
        const all = m.read.allParcels(accountId);
        const lines: string[] = [];
        for (let e = between(EDITS_PER_ROUND[0], EDITS_PER_ROUND[1]); e > 0; e--) {
          const row = m.read.parcel(pickOne(all).local_id)!;
          if (rnd() < 0.5) {
            m.write.updateParcel(row.local_id, { name: `${row.name.replace(/ ✎\d+$/, '')} ✎${runs}` });
          } else {
            m.write.updateParcel(row.local_id, { metadata: { ...(JSON.parse(row.metadata) as Record<string, unknown>), edited_in_run: runs, region: rnd() < 0.5 ? 'centro' : 'oeste' } });
          }
          const after = m.read.parcel(row.local_id)!;
          edited.set(row.local_id, { name: after.name, metadata: JSON.parse(after.metadata) as Record<string, unknown> });
          // The id's last 8 hex digits: local ids are version-7 UUIDs, whose first 8 are the timestamp (the same on every line).
          lines.push(`${row.local_id.slice(-8)}→'${after.name}' ${after.metadata.slice(0, 60)}`);
        }
        journal(`run ${runs}: edits ${lines.join(', ')}`);
      } finally {
        m.close();
      }
    }

    await faults(w, { mode: 'reset' });
    const injected = Array.from({ length: between(FAULT_RULES[0], FAULT_RULES[1]) }, () => randomFault(random, FAULT_MIX));
    // Rules apply in order: the slow-down comes last so that the other faults are taken first.
    if (rnd() < SLOW_SHARE) injected.push({ match: 'POST /api/parcels/', mode: 'delay', count: between(SLOW_COUNT[0], SLOW_COUNT[1]), ms: between(SLOW_MS[0], SLOW_MS[1]) });
    for (const f of injected) await faults(w, f);
    const creating = pendingCreates(home);

    const run = startCli(home, ['sync'], CLI_ENV);
    children.push(run.child);
    // The first run is always killed: a run left to finish first would push everything before any kill.
    const letFinish = runs > 1 && rnd() < FINISH_SHARE;
    // The kill lands within a run as long as the last one that finished: once everything is pushed, a run is an
    // incremental pull of a few hundred milliseconds, and kills drawn up to KILL_MAX_MS would mostly come too late.
    const delay = between(KILL_MIN_MS, Math.max(KILL_MIN_MS + 50, Math.min(KILL_MAX_MS, lastRunMs)));
    if (!letFinish) {
      await Promise.race([run.started, run.exited, sleep(RUN_TIMEOUT_MS)]);
      const startedAt = Date.now();
      const early = await Promise.race([sleep(delay).then(() => false), run.exited.then(() => true)]);
      // A kill widens the range again (one quick failure must not keep every later kill in the first milliseconds).
      lastRunMs = early ? Date.now() - startedAt : Math.min(KILL_MAX_MS, lastRunMs * 2);
      if (!early) {
        run.child.kill('SIGKILL');
        res.kills++;
        if (creating > 0) res.killsWhileCreating++;
        res.killMoments.push(Date.now() - startedAt);
      }
    } else if (!(await Promise.race([sleep(RUN_TIMEOUT_MS).then(() => false), run.exited.then(() => true)]))) {
      run.child.kill('SIGKILL');
      res.kills++;
    }
    const ex = await run.exited;
    let outcome: string;
    if (ex.signal === 'SIGKILL') outcome = letFinish ? `killed after the ${RUN_TIMEOUT_MS} ms run timeout` : `SIGKILL at ${delay} ms`;
    else {
      res.finished++;
      outcome = `exit ${ex.code}${letFinish ? ' (let finish)' : ` before the kill at ${delay} ms`}`;
    }
    journal(`run ${runs} (${creating} parcel creates open): faults ${JSON.stringify(injected)} → ${outcome}; ${tail(run.output())}`);
  }
  res.edited = edited.size;
  journal(`loop: ${res.runs} runs, ${res.kills} kills (${res.killsWhileCreating} with parcel creates open), ${res.finished} finished, ${edited.size} parcels edited`);

  // ---- faults off: sync until it exits 0
  await faults(w, { mode: 'reset' });
  let final: ReturnType<typeof runCli> | undefined;
  for (let attempt = 1; attempt <= FINAL_ATTEMPTS; attempt++) {
    final = runCli(home, ['sync'], CLI_ENV);
    journal(`final sync ${attempt}: exit ${final.status}; ${tail(final.stdout + final.stderr, 6)}`);
    if (final.status === 0) break;
    await sleep(300);
  }
  const status = JSON.parse(runCli(home, ['status', '--json'], CLI_ENV).stdout) as StatusCounts;
  journal(`status ${JSON.stringify(status)}`);

  // ---- what the service holds (API key + account header), and the mirror (read-only: every CLI process is dead)
  const farms = await api<{ id: number; name: string }[]>('/api/farms/');
  const features: Feature[] = [];
  for (const f of farms) features.push(...(await api<{ features: Feature[] }>(`/api/farms/${f.id}/parcels/`)).features);
  const db = new Database(join(home, 'mirror.db'), { readonly: true, fileMustExist: true });
  try {
    const local = db.prepare('SELECT * FROM parcels WHERE account_id = ? AND deleted = 0').all(accountId) as ParcelRow[];
    const localFarms = db.prepare('SELECT local_id, server_id, name FROM farms WHERE account_id = ? AND deleted = 0').all(accountId) as { local_id: string; server_id: number | null; name: string }[];
    const outboxOf = (ids: readonly string[]) => (ids.length ? db.prepare(`SELECT * FROM outbox WHERE local_id IN (${ids.map(() => '?').join(',')}) ORDER BY id`).all(...ids) as OutboxRow[] : []);
    const conflicts = db.prepare('SELECT entity, local_id, kind, fields FROM conflicts WHERE resolved IS NULL').all();

    const byRef = new Map<string, Feature[]>();
    for (const f of features) {
      const ref = String(f.properties.metadata[REF_KEY] ?? '');
      byRef.set(ref, [...(byRef.get(ref) ?? []), f]);
    }
    const localIds = new Set(local.map((p) => p.local_id));
    const duplicates = [...byRef].filter(([, fs]) => fs.length > 1).map(([ref]) => ref);
    const lost = [...localIds].filter((id) => !byRef.has(id));
    const strangers = [...byRef.keys()].filter((ref) => !localIds.has(ref));
    /** What went wrong, for the journal and the error: the parcels in question, their outbox rows, farms, conflicts. */
    const diagnose = (): string => {
      keep = true;
      const ids = [...duplicates, ...lost, ...strangers].slice(0, 40);
      const lines = [
        `round ${round}, account ${accountId}, home ${home}`,
        `duplicates ${duplicates.length}: ${duplicates.slice(0, 20).join(', ')}`,
        `lost ${lost.length}: ${lost.slice(0, 20).join(', ')}`,
        `on the service but not local ${strangers.length}: ${strangers.slice(0, 20).join(', ')}`,
        ...duplicates.slice(0, 10).map((ref) => `  dup ${ref}: ${JSON.stringify(byRef.get(ref)!.map((f) => ({ id: f.id, farm: f.properties.farm, created: (f.properties as { created?: string }).created })))}`),
        ...outboxOf(ids).map((o) => `  outbox ${JSON.stringify(o)}`),
        `farms on the service ${JSON.stringify(farms)}; local ${JSON.stringify(localFarms)}`,
        `conflicts ${JSON.stringify(conflicts)}`,
      ];
      for (const l of lines) journal(l);
      return `${lines.join('\n')}\nfault sequence and kill timings: ${w.journalFile} (temp dir kept)`;
    };

    try {
      expect(final?.status, `the last sync: ${final?.stdout} ${final?.stderr}`).toBe(0);
      expect(status).toMatchObject({ pending: 0, in_flight: 0, uncertain: 0, rejected: 0, conflicts: 0, blocked: 0 });

      // Exactly the three farms, once each, mapped to the mirror's farms.
      expect(farms.map((f) => f.name).sort()).toEqual(FARMS.map((f) => f.name).sort());
      expect(localFarms.map((f) => f.server_id).sort()).toEqual(farms.map((f) => f.id).sort());

      // Exactly one parcel per local parcel: 0 duplicates, 0 lost, nothing unknown.
      expect({ duplicates: duplicates.length, lost: lost.length, strangers: strangers.length }).toEqual({ duplicates: 0, lost: 0, strangers: 0 });
      expect(local).toHaveLength(TOTAL_PARCELS);
      expect(features).toHaveLength(TOTAL_PARCELS);
      for (const farm of FARMS) {
        const sid = farms.find((f) => f.name === farm.name)!.id;
        expect(features.filter((f) => f.properties.farm === sid), farm.name).toHaveLength(farm.parcels);
      }

      // Field by field.
      const farmServerId = new Map(localFarms.map((f) => [f.local_id, f.server_id]));
      for (const row of local) {
        const f = byRef.get(row.local_id)![0]!;
        const { [REF_KEY]: _ref, ...metadata } = f.properties.metadata;
        expect({
          server_id: row.server_id, key: row.key, farm: farmServerId.get(row.farm_local_id), name: row.name,
          metadata: JSON.parse(row.metadata) as unknown, hectares: row.hectares, geometry: JSON.parse(row.geometry) as unknown,
        }, row.local_id).toEqual({ server_id: f.id, key: f.properties.key, farm: f.properties.farm, name: f.properties.name, metadata, hectares: f.properties.hectares, geometry: f.geometry });
      }

      // Every local edit reached the service.
      for (const [id, want] of edited) {
        const f = byRef.get(id)![0]!;
        const { [REF_KEY]: _ref, ...metadata } = f.properties.metadata;
        expect({ name: f.properties.name, metadata }, `edit of ${id}`).toEqual(want);
      }
    } catch (err) {
      (err as Error).message = `${(err as Error).message}\n(seed ${SEED})\n${diagnose()}`;
      throw err;
    }
  } finally {
    db.close();
  }
  journal(`round done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return res;
}

// ---------------------------------------------------------------- the test

const children: ChildProcess[] = [];
let svc: ServiceProcess | undefined;
let dir = '';
let keep = false;

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await svc?.stop();
  if (dir && !keep && process.env.CHAOS_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
});

describe('chaos: SIGKILLed sync under random service faults', () => {
  it(`pushes ${TOTAL_PARCELS} parcels over ${FARMS.length} farms exactly once through ${KILL_TARGET}+ kills; mirror and service agree`, async () => {
    const t0 = Date.now();
    dir = mkdtempSync(join(tmpdir(), 'furrow-chaos-'));
    const journalFile = join(dir, 'chaos-journal.log');
    const journal = (line: string) => appendFileSync(journalFile, `${((Date.now() - t0) / 1000).toFixed(1).padStart(7)}s ${line}\n`);
    journal(`seed ${SEED}, kill target ${KILL_TARGET}, ${KILLS_PER_ROUND} per round`);

    const org = serviceCli(join(dir, 'service'), ['create-org', '--name', 'Chaos']).json as { organization_id: string; api_key: string };
    svc = await spawnService(join(dir, 'service'), { FAULTS: '1', GATEWAY_TIMEOUT_MS: String(GATEWAY_TIMEOUT_MS), LOG_LEVEL: 'error' });
    const serviceLog = join(dir, 'service.log');
    const child = svc.child;
    child.stderr!.on('data', (d: Buffer) => appendFileSync(serviceLog, d));
    let serviceGone: string | null = null;
    void svc.exited.then((code) => {
      serviceGone = `the service process exited (code ${code}, signal ${child.signalCode})`;
      journal(serviceGone);
    });
    const serviceAlive = () => {
      if (serviceGone === null) return;
      keep = true;
      throw new Error(`${serviceGone}: its stderr is in ${serviceLog}, the journal in ${journalFile} (temp dir kept)`);
    };
    const w: ChaosWorld = { base: svc.url, apiKey: org.api_key, orgId: org.organization_id, dir, journal, journalFile, serviceAlive };

    const total: RoundResult = { runs: 0, kills: 0, killsWhileCreating: 0, finished: 0, edited: 0, killMoments: [] };
    for (let round = 1; total.kills < KILL_TARGET; round++) {
      const r = await chaosRound(w, round, Math.min(KILLS_PER_ROUND, KILL_TARGET - total.kills));
      total.runs += r.runs;
      total.kills += r.kills;
      total.killsWhileCreating += r.killsWhileCreating;
      total.finished += r.finished;
      total.edited += r.edited;
      total.killMoments.push(...r.killMoments);
      const summary = `${round} round(s), ${total.runs} runs, ${total.kills} kills (${total.killsWhileCreating} with parcel creates open; ` +
        `${Math.min(...total.killMoments)}–${Math.max(...total.killMoments)} ms into the run), ${total.finished} runs finished, ${total.edited} parcels edited`;
      journal(summary);
      process.stdout.write(`chaos: seed ${SEED}, ${summary}, ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
    }
  }, TEST_TIMEOUT_MS);
});
