import { parseArgs } from 'node:util';
import { realpathSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Mirror } from '../db/mirror.ts';
import { furrowHome } from '../backend/home.ts';
import { SettingsError, durationsFromEnv } from '../backend/settings.ts';
import { UsageError, parseHectares, parseWhole } from './args.ts';
import { needsUser, problemLine, problemsWithWayOut, statusJson, statusLines } from './status.ts';
import type { ProgressEvent } from '../sync/progress.ts';
import { RpcError, inProcess, type ClientOf } from '../core/rpc.ts';
import type { Api } from '../core/api.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import { SyncBackend } from '../backend/sync-backend.ts';
import type { SYNC_API } from '../core/api-sync.ts';
import type { IMPORTS_API } from '../core/api-imports.ts';
import { importPrinter, progressPrinter, type OutStream } from './output.ts';
import { importErrorLines, importReportLines } from './import-report.ts';
import { privateUmask } from '../platform/node/private-files.ts';
import { fullDiskNote } from './full-disk.ts';
import { diskFull } from '../platform/node/sqlite.ts';
import { syncFlags } from './v8-flags.ts';

// For scripts/cli.mjs, which loads the built CLI: it calls these around runCli, as the branch below does.
export { privateUmask, syncFlags };

// The backend loads the engine, the HTTP client, import and export only for the commands that use them: a status
// does not pay for them (built, `accounts` started in 0.24–0.26 s and 80 MB with them, 0.13–0.16 s and 61 MB without).

const USAGE = `Usage: npm run -s cli -- <command> [options]      (mirror and settings in FURROW_HOME)

  connect --service URL --api-key KEY --account ACC [--account-header NAME] [--bearer] [--label L]
  connect --service URL --token JWT [--token-command CMD]
                                   add an account (several accounts can be connected)
  accounts                         connected accounts and whether they are blocked
  disconnect --account ACC [--discard-unsynced]
                                   remove an account and its data from this computer; refused (exit 2) while it
                                   has changes the service does not have, unless --discard-unsynced
  import FILE --farm NAME [--skip-invalid] [--account ACC]
                                   GeoJSON, KML/KMZ or zipped Shapefile into a farm (created when missing)
  sync [--account ACC] [--accept-remote-deletions]
                                   push local changes, then pull; exit 0 all synced, 2 something needs you, 1 error.
                                   A pull that would delete over a fifth of the synced farms or parcels at once
                                   (more than 2 farms or 10 parcels) is held until run with --accept-remote-deletions
  push | pull [--account ACC]      one direction only (pull takes --accept-remote-deletions too)
  status [--json] [--account ACC]  counts (pending, uncertain, synced, rejected, conflicts, blocked) and blocked
                                   accounts with the way out; exit 2 when something needs you
  problems [--json]                every blocked account, rejected, conflicting or blocked item with its reason
  resolve ID --keep mine|theirs    settle a conflict
  retry [--account ACC]            send rejected items again (after the limit or the data changed) and release
                                   items waiting on a backoff or Retry-After
  farms [--account ACC]            farms in the mirror
  export FILE [--account ACC] [--farm NAME] [--crs EPSG]
                                   GeoJSON (.geojson/.json) or CSV with WKT (.csv), in WGS84 or the EPSG code's
                                   coordinate system (--crs 25830: ETRS89 / UTM zone 30N)
  set-parcel-limit --account ACC --hectares N|default   the account's agreed maximum parcel size
  plan --farm NAME [--account ACC] the farm's rotation plan checked against its rule set (the app's Rules): each
                                   violation (rule, parcel, campaign, message) as JSON
  undo | redo                      the last local edit (persists across restarts)
  layers [add FILE | remove ID]    the map's layers; add an MBTiles, PMTiles, GeoTIFF or vector overlay (GeoJSON,
                                   KML/KMZ, zipped Shapefile, GeoPackage) on top: copied to FURROW_HOME/layers/
  position ports                   this computer's serial ports, as the app lists them (an id and a label)
  position watch --tcp HOST:PORT | --udp PORT | --gpsd HOST[:PORT] | --serial PATH [--baud N] [--count N]
                                   a GNSS receiver's fixes, one JSON line each, until Ctrl+C (or N fixes); try it
                                   with the simulator: npm run -s gnss-sim -- --tcp 10110

Environment: FURROW_HOME; FURROW_SETTLE_MS, FURROW_MAX_WAIT_MS, FURROW_HTTP_TIMEOUT_MS (idle),
FURROW_HTTP_DEADLINE_MS (a whole request, default 300000) (whole milliseconds); FURROW_MAX_ANSWER_BYTES (the
largest answer read, default 268435456).`;

/** Where the CLI reads and writes: the process's by default, buffers in tests. */
export interface CliIo {
  env: NodeJS.ProcessEnv; stdout: OutStream; stderr: OutStream;
  /** Stops a sync, push or pull: the requests out finish and are booked, nothing else is sent (exit 130). */
  signal?: AbortSignal;
  /** Makes that signal for a sync, push or pull only (the script: Ctrl-C; other commands keep its default). */
  interrupt?: () => AbortSignal;
  /**
   * Called by a sync, push or pull once the engine is loaded, before anything is sent (the script: syncFlags,
   * which sets V8 flags for the whole process; so not in tests, which share theirs).
   */
  beforeRequests?: () => void;
}

type Values = Record<string, string | boolean | undefined>;

const OPTIONS = {
  service: { type: 'string' }, 'api-key': { type: 'string' }, account: { type: 'string' }, 'account-header': { type: 'string' },
  bearer: { type: 'boolean' }, label: { type: 'string' }, token: { type: 'string' }, 'token-command': { type: 'string' },
  farm: { type: 'string' }, 'skip-invalid': { type: 'boolean' }, json: { type: 'boolean' }, keep: { type: 'string' },
  hectares: { type: 'string' }, crs: { type: 'string' }, tcp: { type: 'string' }, udp: { type: 'string' }, gpsd: { type: 'string' }, serial: { type: 'string' },
  baud: { type: 'string' }, count: { type: 'string' }, 'accept-remote-deletions': { type: 'boolean' }, 'discard-unsynced': { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
} as const;

/** Commands taking positional arguments, and what they are. */
const POSITIONAL: Record<string, string[]> = { import: ['file'], export: ['file'], resolve: ['id'], layers: ['sub', 'arg'], position: ['sub'] };

const str = (v: Values, k: string): string | undefined => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
function need(v: Values, k: string, what = `--${k}`): string {
  const s = str(v, k);
  if (!s) throw new UsageError(`${what} is required`);
  return s;
}

function pickAccount(m: Mirror, v: Values): string {
  const explicit = str(v, 'account');
  const accounts = m.read.accounts();
  if (explicit) {
    if (!accounts.some((a) => a.id === explicit)) throw new UsageError(`Account ${explicit} is not connected (run connect)`);
    return explicit;
  }
  if (accounts.length === 1) return accounts[0]!.id;
  throw new UsageError(accounts.length ? `Several accounts are connected: choose one with --account (${accounts.map((a) => a.id).join(', ')})` : 'No account is connected: run connect first');
}

/** connect's options as the API takes them: a token kept fresh by a command is the command line's own method. */
function connectCall(api: ClientOf<Api>, v: Values) {
  const token = str(v, 'token');
  const tokenCommand = str(v, 'token-command');
  if (token && tokenCommand) return api.connectWithCommand({ service: need(v, 'service'), token, tokenCommand, label: str(v, 'label') });
  return api.connect(token
    ? { service: need(v, 'service'), token, label: str(v, 'label') }
    : { service: need(v, 'service'), account: need(v, 'account'), apiKey: need(v, 'api-key'), accountHeader: str(v, 'account-header'), bearer: Boolean(v.bearer), label: str(v, 'label') });
}

/**
 * sync, push and pull: the backend's own sync handler (backend/sync.ts) over the mirror alone (backend/sync-backend.ts),
 * not the whole backend, whose other modules a sync never uses: an unchanged pull is mostly this process's start-up.
 */
async function syncCommand(cmd: 'sync' | 'push' | 'pull', v: Values, io: CliIo, home: string): Promise<number> {
  const backend = new SyncBackend({ home, env: io.env });
  const m = backend.mirror;
  const api = inProcess<typeof SYNC_API>(backend.handlers);
  const out = (line: string) => io.stdout.write(`${line}\n`);
  try {
    if (io.beforeRequests) {
      // The engine first, so that Node's own modules it loads (undici's http, http2, tls, zlib…) come with their code
      // cache: V8 refuses that cache once a flag has changed, and loading them after cost ~28 ms more.
      await import('../backend/sync-jobs.ts');
      io.beforeRequests();
    }
    const printer = progressPrinter(io.stderr);
    const account = str(v, 'account') ? pickAccount(m, v) : undefined;
    const running = api.sync({ account, push: cmd !== 'pull', pull: cmd !== 'push', acceptRemoteDeletions: Boolean(v['accept-remote-deletions']) },
      { signal: io.signal ?? io.interrupt?.(), onProgress: (p) => printer.onProgress(p as ProgressEvent) });
    // Loaded while the run goes on (its thread mostly waits for the service), not after its end: a few ms less
    // between the last answer and the exit.
    const summary = import('./summary.ts');
    const accounts = await running;
    printer.done();
    const { summarizeRun } = await summary;
    const s = summarizeRun({ accounts }, m, { pushed: cmd !== 'pull' });
    for (const line of s.out) out(line);
    for (const line of s.err) io.stderr.write(`${line}\n`);
    return s.exit;
  } finally {
    backend.close();
  }
}

/**
 * import: the backend's own import of a file (backend/imports.ts fileImportHandlers) over the mirror alone, as a sync
 * is run (syncCommand). The whole backend's modules were resident through the import too: the built CLI importing
 * mirror-import's 100,000 parcels peaked ~2 MB lower without them (median 104.9 against 106.8 MB, lower in 9 of 10
 * interleaved pairs, 2026-11-30), where that benchmark's memory row (≤ 2× ogr2ogr's ~57 MB) had under 1 % left.
 */
async function importCommand(v: Values, io: CliIo, home: string): Promise<number> {
  const file = need(v, 'file', 'The FILE to import');
  const farm = need(v, 'farm');
  const backend = new SyncBackend({ home, env: io.env });
  try {
    const account = pickAccount(backend.mirror, v);
    const { fileImportHandlers } = await import('../backend/imports.ts');
    const api = inProcess<Pick<typeof IMPORTS_API, 'importFile'>>(fileImportHandlers(backend.context));
    const printer = importPrinter(io.stderr, basename(file));
    let r;
    try {
      r = await api.importFile({ account, path: file, farm, skipInvalid: Boolean(v['skip-invalid']) }, { onProgress: (p) => printer.onProgress(p.done, p.total) });
    } finally {
      printer.done();
    }
    for (const line of importReportLines(r)) io.stdout.write(`${line}\n`);
    return 0;
  } finally {
    backend.close();
  }
}

async function run(cmd: string, v: Values, io: CliIo): Promise<number> {
  const home = furrowHome(io.env);
  // Checked before anything is opened or sent: a bad duration (backend/settings.ts) is a usage error, not a silent default.
  if (cmd === 'sync' || cmd === 'push' || cmd === 'pull' || cmd === 'connect') durationsFromEnv(io.env);
  const hectares = cmd === 'set-parcel-limit' ? need(v, 'hectares') : undefined;
  const limit = hectares === undefined || hectares === 'default' ? null : parseHectares(hectares, '--hectares');
  const conflictId = cmd === 'resolve' ? parseWhole(need(v, 'id', 'The conflict ID'), 'The conflict ID', 1, Number.MAX_SAFE_INTEGER) : 0;
  if (cmd === 'sync' || cmd === 'push' || cmd === 'pull') return await syncCommand(cmd, v, io, home);
  if (cmd === 'import') return await importCommand(v, io, home);
  // The same use-cases as the app's backend, called in process; loaded here, not with this module (syncCommand).
  const { Backend } = await import('../backend/backend.ts');
  const backend = new Backend({ home, env: io.env });
  const m = backend.mirror;
  const api = inProcess<Api>(backend.handlers);
  const out = (x: unknown) => io.stdout.write(`${typeof x === 'string' ? x : JSON.stringify(x)}\n`);
  try {
    switch (cmd) {
      case 'connect': {
        const { account, tokenExpires } = await connectCall(api, v);
        out({ connected: account.id, service: account.service, method: account.method, ...(tokenExpires ? { token_expires: tokenExpires } : {}) });
        return 0;
      }
      case 'disconnect': {
        const accountId = need(v, 'account');
        const r = await api.disconnect({ account: accountId, discardUnsynced: Boolean(v['discard-unsynced']) });
        out(`Disconnected ${accountId}: removed ${r.farms} farm(s), ${r.parcels} parcel(s), ${r.crops} crop(s) and ${r.plants} plant(s) from this computer` +
          `${r.discarded ? `, discarding ${r.discarded} unsynced change(s) and open conflict(s)` : ''}; the service keeps its data.`);
        return 0;
      }
      case 'accounts': out((await api.accounts({})).map((a) => ({ id: a.id, service: a.service, method: a.method, blocked: a.blocked?.reason ?? null, last_pull: a.lastPull }))); return 0;
      case 'status': {
        const s = statusJson(m, await api.status({ account: str(v, 'account') }));
        out(v.json ? s : statusLines(s).join('\n'));
        return needsUser(s) ? 2 : 0;
      }
      case 'problems': {
        const list = problemsWithWayOut(m, await api.problems({ account: str(v, 'account') }));
        if (v.json) out(list);
        else out(list.length ? list.map(problemLine).join('\n') : 'Nothing needs you.');
        return list.length ? 2 : 0;
      }
      case 'resolve': {
        const keep = need(v, 'keep');
        if (keep !== 'mine' && keep !== 'theirs') throw new UsageError('--keep is mine or theirs');
        const { effect, deletedOnService } = await api.resolve({ conflict: conflictId, keep });
        for (const d of deletedOnService) out(`deleted duplicate ${d.entity} ${d.id} on the service: HTTP ${d.status}`);
        out(`Conflict #${conflictId} resolved: kept ${keep}${effect ? `: ${effect}` : ''}.`);
        return 0;
      }
      case 'retry': {
        const { requeued, released } = await api.retry({ account: str(v, 'account') });
        out(`${requeued} rejected item(s) queued again, ${released} waiting item(s) released; run sync.`);
        return 0;
      }
      case 'farms': {
        const farms = str(v, 'account') ? await api.farms({ account: pickAccount(m, v) }) : (await Promise.all(m.read.accounts().map((a) => api.farms({ account: a.id })))).flat();
        out(farms.map((f) => ({ local_id: f.id, server_id: f.serverId, name: f.name, parcels: f.parcels })));
        return 0;
      }
      case 'export': {
        const farmName = str(v, 'farm');
        let farm: string | undefined;
        if (farmName) {
          const f = m.read.farmByName(pickAccount(m, v), farmName);
          if (!f) throw new UsageError(`No farm named '${farmName}'`);
          farm = f.local_id;
        }
        const crsText = str(v, 'crs');
        const crs = crsText === undefined ? undefined : parseWhole(crsText.replace(/^EPSG:/i, ''), '--crs', 1, 32767);
        const r = await api.exportFile({ path: need(v, 'file', 'The FILE to export to'), account: str(v, 'account'), farm, crs });
        out(`Exported ${r.parcels} parcel(s) as ${r.format}${crs !== undefined && crs !== 4326 ? ` in EPSG:${crs}` : ''}.`);
        return 0;
      }
      case 'plan': {
        const farmName = need(v, 'farm');
        const f = m.read.farmByName(pickAccount(m, v), farmName);
        if (!f) throw new UsageError(`No farm named '${farmName}'`);
        // The app's own check (core/crops/plan-rules.ts) on the farm as the mirror has it, with the farm's rule set.
        const [{ farmPlan, farmRules }, { checkPlan }] = await Promise.all([import('../backend/plan.ts'), import('../core/crops/plan-rules.ts')]);
        const { parcels, current } = farmPlan(m, f.local_id);
        const { rules, chosen } = farmRules(m, f.local_id);
        const names = new Map(parcels.map((p) => [p.id, p.name]));
        out({
          farm: f.name, current_campaign_year: current, rules: chosen ? 'the farm\'s own' : 'the defaults',
          violations: checkPlan(parcels, rules).map((x) => ({ rule: x.rule, parcel: x.parcel === null ? null : names.get(x.parcel), campaign: x.campaign, message: x.message })),
        });
        return 0;
      }
      case 'set-parcel-limit': {
        const account = pickAccount(m, v);
        const r = await api.setParcelLimit({ account, hectares: limit });
        out(`Parcel limit of ${account}: ${r.hectares} ha${limit === null ? ' (the default)' : ''}.`);
        return 0;
      }
      case 'undo': case 'redo': {
        const account = str(v, 'account') ? pickAccount(m, v) : undefined;
        const label = await (cmd === 'undo' ? api.undo : api.redo)({ account });
        out(label ? `${cmd === 'undo' ? 'Undid' : 'Redid'}: ${label}` : `Nothing to ${cmd}.`);
        return 0;
      }
      case 'layers': {
        const { layersCommand } = await import('./layers.ts');
        return await layersCommand(api, [str(v, 'sub'), str(v, 'arg')], { out, stderr: io.stderr });
      }
      case 'position': {
        const { positionCommand } = await import('./position.ts');
        return await positionCommand(api, str(v, 'sub'), v, { out, stderr: io.stderr, signal: io.signal ?? io.interrupt?.() });
      }
      default: throw new UsageError(`Unknown command '${cmd}'`);
    }
  } finally {
    backend.close();
  }
}

/** The arguments as parseArgs reads them; a parse failure (an unknown option, a missing value) is a usage error. */
function parse(argv: readonly string[]): { cmd: string | undefined; v: Values } {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, options: OPTIONS });
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) throw new UsageError((err as Error).message);
    throw err;
  }
  const [cmd, ...rest] = parsed.positionals;
  const v: Values = { ...parsed.values };
  const slots = (cmd === undefined ? undefined : POSITIONAL[cmd]) ?? [];
  if (rest.length > slots.length) throw new UsageError(`Unexpected argument '${rest[slots.length]}'`);
  slots.forEach((slot, i) => { if (rest[i] !== undefined) v[slot] = rest[i]; });
  return { cmd, v };
}

/**
 * Runs one CLI command and returns its exit code: 0 done, 1 error, 2 bad usage or something needs the user.
 * In-process callers (tests, a backend) pass their own environment and output streams.
 */
export async function runCli(argv: readonly string[], io: Partial<CliIo> = {}): Promise<number> {
  const full: CliIo = {
    env: io.env ?? process.env, stdout: io.stdout ?? process.stdout, stderr: io.stderr ?? process.stderr, signal: io.signal, interrupt: io.interrupt,
    beforeRequests: io.beforeRequests,
  };
  try {
    const { cmd, v } = parse(argv);
    if (v.help) {
      full.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (!cmd) {
      full.stderr.write(`${USAGE}\n`);
      return 2;
    }
    const exit = await run(cmd, v, full);
    // A sync that stopped on a write (its account line says "error: database or disk is full"): say where, and what to do.
    const note = exit === 1 ? fullDiskNote(furrowHome(full.env)) : null;
    if (note) full.stderr.write(`${note}\n`);
    return exit;
  } catch (err) {
    if (err instanceof UsageError || err instanceof SettingsError) {
      full.stderr.write(`${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    const home = furrowHome(full.env);
    const note = diskFull(err, home) || (err instanceof RpcError && /disk is full|disk I\/O error/.test(err.message)) ? fullDiskNote(home) : null;
    if (note) {
      full.stderr.write(`error: ${note}\n`);
      return 1;
    }
    if (err instanceof RpcError) return refused(err, full.stderr);
    full.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

/** A refusal of the backend, worded for a terminal: 2 when the user must decide something, 1 otherwise. */
function refused(err: RpcError, stderr: OutStream): number {
  const write = (line: string) => stderr.write(`${line}\n`);
  switch (err.code) {
    case ApiErrorCode.importFailed: {
      for (const line of importErrorLines(err.message, err.details as Parameters<typeof importErrorLines>[1])) write(line);
      return 1;
    }
    case ApiErrorCode.invalidParcel: {
      write(err.message);
      for (const p of (err.details ?? []) as { path?: string; message: string }[]) write(`  ${p.path ? `${p.path}: ` : ''}${p.message}`);
      return 1;
    }
    case ApiErrorCode.badSetting:
      write(`${err.message}\n\n${USAGE}`);
      return 2;
    case ApiErrorCode.connectRefused:
      if ((err.details as { reason?: string } | undefined)?.reason === 'bad_input') {
        write(`${err.message}\n\n${USAGE}`);
        return 2;
      }
      write(`error: ${err.message}`);
      return 1;
    case ApiErrorCode.unsyncedWork: case ApiErrorCode.busy: case ApiErrorCode.noAccount: case ApiErrorCode.notFound:
      write(err.message);
      return 2;
    case 'cancelled':
      write(err.message);
      return 130;
    default:
      write(`error: ${err.message}`);
      return 1;
  }
}

const isMain = (() => {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
})();
if (isMain) {
  // FURROW_HOME is the user's alone: whatever this process creates is owner-only (platform/node/private-files.ts).
  privateUmask();
  const argv = process.argv.slice(2);
  endProcess(argv, await runCli(argv, { interrupt: stopOnInterrupt, beforeRequests: syncFlags }));
}

/**
 * The process's end once runCli has returned `code`. After a sync, push or pull everything is settled by then: each
 * transaction committed with its fsync, the lock released, the mirror closed (its WAL checkpointed and removed), the
 * HTTP connections closed, the output written. Such a run exits at once rather than let Node tear down its heap and
 * threads first, a serial cost after the last answer that grows with the heap a push leaves: from runCli's return to
 * the process's end, a push of 20,000 squares (strace, 5 interleaved pairs, load 2.6–3.0), 61 ms (52–73) before,
 * 13 ms (10–15) with this. Other commands end as Node ends them (an upload being cleaned up, a tile thread: nothing
 * is cut short), and so does a run whose output is still buffered (a terminal on Windows is written asynchronously).
 */
export function endProcess(argv: readonly string[], code: number): void {
  process.exitCode = code;
  let cmd;
  try {
    cmd = parse(argv).cmd;
  } catch {
    return;
  }
  if (cmd !== 'sync' && cmd !== 'push' && cmd !== 'pull') return;
  if (process.stdout.writableLength || process.stderr.writableLength) return;
  process.exit(code);
}

/**
 * Ctrl-C stops a sync cleanly: nothing new is sent, the requests out finish and are booked, the lock is released.
 * A second Ctrl-C quits at once (what was out is then reconciled by the next sync, never resent blindly).
 */
export function stopOnInterrupt(): AbortSignal {
  const controller = new AbortController();
  process.once('SIGINT', () => {
    process.stderr.write('\nStopping after the requests under way (Ctrl-C again to quit at once)…\n');
    controller.abort();
    process.once('SIGINT', () => process.exit(130));
  });
  return controller.signal;
}
