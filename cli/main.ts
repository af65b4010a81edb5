import { parseArgs } from 'node:util';
import { realpathSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Mirror } from '../db/mirror.ts';
import { ImportError } from '../db/import/errors.ts';
import { EditError } from '../db/writer.ts';
import type { SyncEngine } from '../sync/engine.ts';
import { forgetCredentials, furrowHome, loadCredentials } from '../sync/credentials.ts';
import { AccountNotRemoved, removeAccount } from '../db/accounts.ts';
import { importPrinter, progressPrinter, type OutStream } from './output.ts';
import type { ServiceClient } from '../sync/http.ts';
import { UsageError, durationsFromEnv, parseHectares, parseWhole } from '../sync/cli-args.ts';
import { needsUser, problemLine, problems, statusLines, statusReport } from '../sync/status.ts';
import { importErrorLines, importReportLines } from './import-report.ts';

// The engine, the HTTP client, import, export and conflict resolution are loaded by the commands that use them: a
// status does not pay for them (built, `accounts` started in 0.24–0.26 s and 80 MB with them, 0.13–0.16 s and 61 MB without).
const engineModule = () => import('../sync/engine.ts');
const clientModule = () => import('../sync/client-factory.ts');
const connectModule = () => import('../sync/connect.ts');

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
  export FILE [--account ACC] [--farm NAME]   GeoJSON (.geojson/.json) or CSV with WKT (.csv)
  set-parcel-limit --account ACC --hectares N|default   the account's agreed maximum parcel size
  undo | redo                      the last local edit (persists across restarts)

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
}

type Values = Record<string, string | boolean | undefined>;

const OPTIONS = {
  service: { type: 'string' }, 'api-key': { type: 'string' }, account: { type: 'string' }, 'account-header': { type: 'string' },
  bearer: { type: 'boolean' }, label: { type: 'string' }, token: { type: 'string' }, 'token-command': { type: 'string' },
  farm: { type: 'string' }, 'skip-invalid': { type: 'boolean' }, json: { type: 'boolean' }, keep: { type: 'string' },
  hectares: { type: 'string' }, 'accept-remote-deletions': { type: 'boolean' }, 'discard-unsynced': { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
} as const;

/** Commands taking one positional argument, and what it is. */
const POSITIONAL: Record<string, string> = { import: 'file', export: 'file', resolve: 'id' };

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

async function engine(m: Mirror, home: string, env: NodeJS.ProcessEnv, printer?: ReturnType<typeof progressPrinter>, acceptRemoteDeletions = false, signal?: AbortSignal): Promise<SyncEngine> {
  const { timeoutMs, deadlineMs, maxAnswerBytes, ...waits } = durationsFromEnv(env);
  const [{ SyncEngine }, { clientFactory }] = await Promise.all([engineModule(), clientModule()]);
  return new SyncEngine(m, clientFactory(loadCredentials(home), { timeoutMs, deadlineMs, maxAnswerBytes }), { onProgress: printer?.onProgress, acceptRemoteDeletions, signal, ...waits });
}

async function connect(m: Mirror, home: string, v: Values, env: NodeJS.ProcessEnv): Promise<unknown> {
  const token = str(v, 'token');
  const input = token
    ? { service: need(v, 'service'), token, tokenCommand: str(v, 'token-command'), label: str(v, 'label') }
    : { service: need(v, 'service'), account: need(v, 'account'), apiKey: need(v, 'api-key'), accountHeader: str(v, 'account-header'), bearer: Boolean(v.bearer), label: str(v, 'label') };
  const { connectAccount, ConnectRefused } = await connectModule();
  try {
    const { account, tokenExpires } = await connectAccount(m, home, input, durationsFromEnv(env));
    return { connected: account.id, service: account.service_url, method: account.mode, ...(tokenExpires ? { token_expires: tokenExpires } : {}) };
  } catch (err) {
    if (err instanceof ConnectRefused && err.code === 'bad_input') throw new UsageError(token ? '--token is not an account_access token' : err.message);
    throw err;
  }
}

/** Deletes on the service the duplicates a resolved conflict leaves there. */
async function deleteDuplicates(m: Mirror, home: string, id: number, ids: readonly number[], out: (s: string) => void): Promise<void> {
  const c = m.syncDb.prepare('SELECT account_id, entity FROM conflicts WHERE id = ?').get(id) as { account_id: string; entity: string };
  const { clientFactory } = await clientModule();
  const client: ServiceClient = clientFactory(loadCredentials(home))(m.read.account(c.account_id)!);
  try {
    for (const sid of ids) {
      const path = c.entity === 'farm' ? `/api/farms/${sid}/` : c.entity === 'crop' ? `/api/crops/${sid}/` : `/api/parcels/${sid}/`;
      const res = await client.send('DELETE', path);
      out(`deleted duplicate ${c.entity} ${sid} on the service: HTTP ${res.status}`);
    }
  } finally {
    await client.close();
  }
}

async function run(cmd: string, v: Values, io: CliIo): Promise<number> {
  const home = furrowHome(io.env);
  // Checked before anything is opened or sent: a bad duration is a usage error, not a silent default.
  if (cmd === 'sync' || cmd === 'push' || cmd === 'pull') durationsFromEnv(io.env);
  const hectares = cmd === 'set-parcel-limit' ? need(v, 'hectares') : undefined;
  const limit = hectares === undefined || hectares === 'default' ? null : parseHectares(hectares, '--hectares');
  const conflictId = cmd === 'resolve' ? parseWhole(need(v, 'id', 'The conflict ID'), 'The conflict ID', 1, Number.MAX_SAFE_INTEGER) : 0;
  const m = Mirror.open(join(home, 'mirror.db'));
  const out = (x: unknown) => io.stdout.write(`${typeof x === 'string' ? x : JSON.stringify(x)}\n`);
  try {
    switch (cmd) {
      case 'connect': out(await connect(m, home, v, io.env)); return 0;
      case 'disconnect': {
        const accountId = need(v, 'account');
        const r = removeAccount(m.syncDb, accountId, { discardUnsynced: Boolean(v['discard-unsynced']) });
        forgetCredentials(home, accountId);
        const lost = r.discarded.total + r.discarded.conflicts;
        out(`Disconnected ${accountId}: removed ${r.farms} farm(s), ${r.parcels} parcel(s), ${r.crops} crop(s) and ${r.plants} plant(s) from this computer` +
          `${lost ? `, discarding ${r.discarded.total} unsynced change(s) and ${r.discarded.conflicts} open conflict(s)` : ''}; the service keeps its data.`);
        return 0;
      }
      case 'accounts': out(m.read.accounts().map((a) => ({ id: a.id, service: a.service_url, method: a.mode, blocked: a.blocked, last_pull: a.last_pull }))); return 0;
      case 'import': {
        const file = need(v, 'file', 'The FILE to import');
        const accountId = pickAccount(m, v);
        const printer = importPrinter(io.stderr, basename(file));
        const { importFile } = await import('../db/import/index.ts');
        let r;
        try {
          r = await importFile(m, file, { accountId, farmName: need(v, 'farm'), skipInvalid: Boolean(v['skip-invalid']), onProgress: printer.onProgress });
        } finally {
          printer.done();
        }
        for (const line of importReportLines(r)) out(line);
        return 0;
      }
      case 'sync': case 'push': case 'pull': {
        const printer = progressPrinter(io.stderr);
        const accounts = str(v, 'account') ? [pickAccount(m, v)] : undefined;
        const r = await (await engine(m, home, io.env, printer, Boolean(v['accept-remote-deletions']), io.signal ?? io.interrupt?.())).sync({ accounts, push: cmd !== 'pull', pull: cmd !== 'push' });
        printer.done();
        const { summarizeRun } = await import('./summary.ts');
        const s = summarizeRun(r, m);
        for (const line of s.out) out(line);
        for (const line of s.err) io.stderr.write(`${line}\n`);
        return s.exit;
      }
      case 'status': {
        const s = statusReport(m, str(v, 'account'));
        out(v.json ? s : statusLines(s).join('\n'));
        return needsUser(s) ? 2 : 0;
      }
      case 'problems': {
        const list = problems(m, str(v, 'account'));
        if (v.json) out(list);
        else out(list.length ? list.map(problemLine).join('\n') : 'Nothing needs you.');
        return list.length ? 2 : 0;
      }
      case 'resolve': {
        const keep = need(v, 'keep');
        if (keep !== 'mine' && keep !== 'theirs') throw new UsageError('--keep is mine or theirs');
        const { resolveConflict } = await import('../sync/conflicts.ts');
        const { deleteOnService, effect } = resolveConflict(m.syncDb, conflictId, keep);
        if (deleteOnService.length) await deleteDuplicates(m, home, conflictId, deleteOnService, out);
        out(`Conflict #${conflictId} resolved: kept ${keep}${effect ? `: ${effect}` : ''}.`);
        return 0;
      }
      case 'retry': {
        const acc = str(v, 'account') ?? null;
        const n = m.syncDb.prepare("UPDATE outbox SET state = 'queued', attempts = 0, next_attempt_at = NULL, last_error = NULL WHERE state = 'rejected' AND (? IS NULL OR account_id = ?)").run(acc, acc).changes;
        // Work waiting on a backoff or a Retry-After goes at the next sync; uncertain work only gets its check
        // sooner (it is reconciled, never resent, before its settle time).
        const w = m.syncDb.prepare("UPDATE outbox SET next_attempt_at = NULL WHERE state IN ('queued', 'uncertain') AND next_attempt_at IS NOT NULL AND (? IS NULL OR account_id = ?)").run(acc, acc).changes;
        out(`${n} rejected item(s) queued again, ${w} waiting item(s) released; run sync.`);
        return 0;
      }
      case 'farms': out(m.read.farms(str(v, 'account')).map((f) => ({ local_id: f.local_id, server_id: f.server_id, name: f.name, parcels: m.read.parcels(f.local_id).length }))); return 0;
      case 'export': {
        const farmName = str(v, 'farm');
        let farmLocalId: string | undefined;
        if (farmName) {
          const f = m.read.farmByName(pickAccount(m, v), farmName);
          if (!f) throw new UsageError(`No farm named '${farmName}'`);
          farmLocalId = f.local_id;
        }
        const { exportFile } = await import('../db/export.ts');
        const r = await exportFile(m, need(v, 'file', 'The FILE to export to'), { accountId: str(v, 'account'), farmLocalId });
        out(`Exported ${r.parcels} parcel(s) as ${r.format}.`);
        return 0;
      }
      case 'set-parcel-limit': {
        const accountId = pickAccount(m, v);
        m.write.setParcelLimit(accountId, limit);
        out(`Parcel limit of ${accountId}: ${m.write.parcelLimit(accountId)} ha${limit === null ? ' (the default)' : ''}.`);
        return 0;
      }
      case 'undo': case 'redo': {
        const label = cmd === 'undo' ? m.write.undo() : m.write.redo();
        out(label ? `${cmd === 'undo' ? 'Undid' : 'Redid'}: ${label}` : `Nothing to ${cmd}.`);
        return 0;
      }
      default: throw new UsageError(`Unknown command '${cmd}'`);
    }
  } finally {
    m.close();
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
  const slot = cmd === undefined ? undefined : POSITIONAL[cmd];
  if (rest.length > (slot ? 1 : 0)) throw new UsageError(`Unexpected argument '${rest[slot ? 1 : 0]}'`);
  if (slot && rest[0] !== undefined) v[slot] = rest[0];
  return { cmd, v };
}

/**
 * Runs one CLI command and returns its exit code: 0 done, 1 error, 2 bad usage or something needs the user.
 * In-process callers (tests, a backend) pass their own environment and output streams.
 */
export async function runCli(argv: readonly string[], io: Partial<CliIo> = {}): Promise<number> {
  const full: CliIo = { env: io.env ?? process.env, stdout: io.stdout ?? process.stdout, stderr: io.stderr ?? process.stderr, signal: io.signal, interrupt: io.interrupt };
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
    return await run(cmd, v, full);
  } catch (err) {
    if (err instanceof UsageError) {
      full.stderr.write(`${err.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (err instanceof ImportError) {
      for (const line of importErrorLines(err)) full.stderr.write(`${line}\n`);
      return 1;
    }
    if (err instanceof AccountNotRemoved) {
      full.stderr.write(`${err.message}\n`);
      return 2;
    }
    if (err instanceof EditError) {
      full.stderr.write(`${err.message}\n`);
      for (const p of err.problems) full.stderr.write(`  ${'path' in p ? `${p.path}: ` : ''}${p.message}\n`);
      return 1;
    }
    full.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
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
if (isMain) process.exitCode = await runCli(process.argv.slice(2), { interrupt: stopOnInterrupt });

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
