import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { Mirror } from '../db/mirror.ts';
import { importFile } from '../db/import/index.ts';
import { ImportError } from '../db/import/errors.ts';
import { exportFile } from '../db/export.ts';
import { EditError } from '../db/writer.ts';
import { SyncEngine, type SyncReport } from './engine.ts';
import { clientFactory } from './client-factory.ts';
import { furrowHome, loadCredentials, saveCredentials, type AccountCredentials } from './credentials.ts';
import { resolveConflict } from './conflicts.ts';
import { progressPrinter } from './cli-output.ts';
import { errorMessage, type ServiceClient } from './http.ts';
import { tokenExpiry } from './tokens.ts';

const USAGE = `Usage: npm run -s cli -- <command> [options]      (mirror and settings in FURROW_HOME)

  connect --service URL --api-key KEY --account ACC [--account-header NAME] [--bearer] [--label L]
  connect --service URL --token JWT [--token-command CMD]
                                   add an account (several accounts can be connected)
  accounts                         connected accounts and whether they are blocked
  import FILE --farm NAME [--skip-invalid] [--account ACC]
                                   GeoJSON, KML or zipped Shapefile into a farm (created when missing)
  sync [--account ACC]             push local changes, then pull; exit 0 all synced, 2 items need you, 1 error
  push | pull [--account ACC]      one direction only
  status [--json]                  counts: pending, uncertain, synced, rejected, conflicts, blocked
  problems [--json]                every rejected, conflicting or blocked item with its reason
  resolve ID --keep mine|theirs    settle a conflict
  retry [--account ACC]            send rejected items again (after the limit or the data changed)
  farms [--account ACC]            farms in the mirror
  export FILE [--account ACC] [--farm NAME]   GeoJSON (.geojson/.json) or CSV with WKT (.csv)
  set-parcel-limit --account ACC --hectares N   the account's agreed maximum parcel size
  undo | redo                      the last local edit (persists across restarts)`;

class UsageError extends Error {}
type Values = Record<string, string | boolean | undefined>;

const str = (v: Values, k: string): string | undefined => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
function need(v: Values, k: string): string {
  const s = str(v, k);
  if (!s) throw new UsageError(`--${k} is required`);
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

function engine(m: Mirror, home: string, printer?: ReturnType<typeof progressPrinter>): SyncEngine {
  const settle = Number(process.env.FURROW_SETTLE_MS ?? '');
  const maxWait = Number(process.env.FURROW_MAX_WAIT_MS ?? '');
  return new SyncEngine(m, clientFactory(loadCredentials(home), { timeoutMs: Number(process.env.FURROW_HTTP_TIMEOUT_MS ?? '') || undefined }), {
    onProgress: printer?.onProgress,
    ...(Number.isFinite(settle) && settle > 0 ? { settleMs: settle } : {}),
    ...(Number.isFinite(maxWait) && maxWait > 0 ? { maxWaitMs: maxWait } : {}),
  });
}

function problems(m: Mirror): { kind: string; id: number | string; entity: string; name: string; reason: string }[] {
  const out: { kind: string; id: number | string; entity: string; name: string; reason: string }[] = [];
  const nameOf = (entity: string, localId: string) => {
    const r = entity === 'farm' ? m.read.farm(localId) : entity === 'parcel' ? m.read.parcel(localId) : m.read.crop(localId);
    return (r && 'name' in r && r.name) || localId;
  };
  for (const o of m.read.outbox()) {
    if (o.state === 'rejected' || o.state === 'blocked') out.push({ kind: o.state, id: o.id, entity: o.entity, name: nameOf(o.entity, o.local_id), reason: o.last_error ?? '' });
  }
  for (const c of m.read.conflicts()) out.push({ kind: `conflict:${c.kind}`, id: c.id, entity: c.entity, name: nameOf(c.entity, c.local_id), reason: (JSON.parse(c.fields) as string[]).join(', ') });
  return out;
}

function printReport(r: SyncReport, m: Mirror): number {
  let exit = 0;
  for (const a of r.accounts) {
    const head = `${a.account}: sent ${a.sent}, committed ${a.committed}, pulled ${a.pulled}`;
    if (a.error) { process.stderr.write(`${head} — error: ${a.error}\n`); exit = 1; continue; }
    if (a.blocked) process.stdout.write(`${head} — blocked: ${a.blocked}\n`);
    else process.stdout.write(`${head}${a.left ? `, ${a.left} still waiting` : ''}\n`);
    if (a.left && !a.blocked) exit = 1;
  }
  const list = problems(m);
  for (const p of list) process.stdout.write(`  ${p.kind} #${p.id} ${p.entity} '${p.name}': ${p.reason}\n`);
  if (exit === 0 && list.length) exit = 2;
  return exit;
}

async function connect(m: Mirror, home: string, v: Values): Promise<unknown> {
  const service = need(v, 'service').replace(/\/+$/, '');
  const token = str(v, 'token');
  let accountId: string;
  let creds: AccountCredentials;
  if (token) {
    const payload = token.split('.')[1];
    const sub = payload ? (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub?: unknown }).sub : undefined;
    if (typeof sub !== 'string') throw new UsageError('--token is not an account_access token');
    accountId = sub;
    creds = { method: 'bearer', token, ...(str(v, 'token-command') ? { tokenCommand: str(v, 'token-command') } : {}) };
  } else {
    accountId = need(v, 'account');
    creds = { method: v.bearer ? 'bearer' : 'api_key', apiKey: need(v, 'api-key'), ...(str(v, 'account-header') ? { accountHeader: str(v, 'account-header') } : {}) };
  }
  // Prove the credentials work before keeping them.
  const client = clientFactory({ [accountId]: creds })({ id: accountId, service_url: service, mode: creds.method, label: '', blocked: null, blocked_code: null, last_pull: null, created: '' });
  try {
    const res = await client.send('GET', '/api/farms/');
    if (res.status !== 200) throw new Error(`The service refused the credentials: ${errorMessage(res)}`);
  } finally {
    await client.close();
  }
  saveCredentials(home, accountId, creds);
  const a = m.write.addAccount({ id: accountId, service_url: service, mode: creds.method, label: str(v, 'label') });
  const exp = token ? tokenExpiry(token) : null;
  return { connected: a.id, service, method: creds.method, ...(exp ? { token_expires: new Date(exp * 1000).toISOString() } : {}) };
}

async function run(cmd: string, v: Values): Promise<number> {
  const home = furrowHome();
  const m = Mirror.open(join(home, 'mirror.db'));
  const out = (x: unknown) => process.stdout.write(`${typeof x === 'string' ? x : JSON.stringify(x)}\n`);
  try {
    switch (cmd) {
      case 'connect': out(await connect(m, home, v)); return 0;
      case 'accounts': out(m.read.accounts().map((a) => ({ id: a.id, service: a.service_url, method: a.mode, blocked: a.blocked, last_pull: a.last_pull }))); return 0;
      case 'import': {
        const file = need(v, 'file');
        const accountId = pickAccount(m, v);
        const printer = progressPrinter();
        const r = await importFile(m, file, {
          accountId, farmName: need(v, 'farm'), skipInvalid: Boolean(v['skip-invalid']),
          onProgress: (done, total) => printer.onProgress({ account: accountId, phase: 'parcels', done, total, bytes: 0, message: 'imported' }),
        });
        printer.done();
        out(`Imported ${r.imported} parcel(s) into '${r.farm.name}'${r.parts ? ` (${r.parts} from split multipolygons)` : ''}.`);
        for (const s of r.skipped) out(`  skipped feature ${s.index}${s.part ? ` part ${s.part}` : ''}: ${s.message}`);
        return 0;
      }
      case 'sync': case 'push': case 'pull': {
        const printer = progressPrinter();
        const accounts = str(v, 'account') ? [pickAccount(m, v)] : undefined;
        const r = await engine(m, home, printer).sync({ accounts, push: cmd !== 'pull', pull: cmd !== 'push' });
        printer.done();
        return printReport(r, m);
      }
      case 'status': {
        const s = m.read.status(str(v, 'account'));
        if (v.json) out(s);
        else out(Object.entries(s).map(([k, n]) => `${k}: ${n}`).join('\n'));
        return 0;
      }
      case 'problems': {
        const list = problems(m);
        if (v.json) out(list);
        else out(list.length ? list.map((p) => `${p.kind} #${p.id} ${p.entity} '${p.name}': ${p.reason}`).join('\n') : 'Nothing needs you.');
        return 0;
      }
      case 'resolve': {
        const id = Number(need(v, 'id'));
        const keep = need(v, 'keep');
        if (keep !== 'mine' && keep !== 'theirs') throw new UsageError('--keep is mine or theirs');
        const { deleteOnService } = resolveConflict(m.syncDb, id, keep);
        if (deleteOnService.length) {
          const c = m.syncDb.prepare('SELECT account_id, entity, theirs FROM conflicts WHERE id = ?').get(id) as { account_id: string; entity: string };
          const account = m.read.account(c.account_id)!;
          const client: ServiceClient = clientFactory(loadCredentials(home))(account);
          try {
            for (const sid of deleteOnService) {
              const path = c.entity === 'farm' ? `/api/farms/${sid}/` : c.entity === 'crop' ? `/api/crops/${sid}/` : `/api/parcels/${sid}/`;
              const res = await client.send('DELETE', path);
              out(`deleted duplicate ${c.entity} ${sid} on the service: HTTP ${res.status}`);
            }
          } finally {
            await client.close();
          }
        }
        out(`Conflict #${id} resolved: kept ${keep}.`);
        return 0;
      }
      case 'retry': {
        const acc = str(v, 'account') ?? null;
        const n = m.syncDb.prepare("UPDATE outbox SET state = 'queued', attempts = 0, next_attempt_at = NULL, last_error = NULL WHERE state = 'rejected' AND (? IS NULL OR account_id = ?)").run(acc, acc).changes;
        out(`${n} rejected item(s) queued again; run sync.`);
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
        const r = await exportFile(m, need(v, 'file'), { accountId: str(v, 'account'), farmLocalId });
        out(`Exported ${r.parcels} parcel(s) as ${r.format}.`);
        return 0;
      }
      case 'set-parcel-limit': {
        const h = need(v, 'hectares');
        m.write.setParcelLimit(pickAccount(m, v), h === 'default' ? null : Number(h));
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

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      service: { type: 'string' }, 'api-key': { type: 'string' }, account: { type: 'string' }, 'account-header': { type: 'string' },
      bearer: { type: 'boolean' }, label: { type: 'string' }, token: { type: 'string' }, 'token-command': { type: 'string' },
      farm: { type: 'string' }, 'skip-invalid': { type: 'boolean' }, json: { type: 'boolean' }, keep: { type: 'string' },
      hectares: { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
  });
  const [cmd, arg] = positionals;
  if (values.help || !cmd) {
    process.stdout.write(`${USAGE}\n`);
    process.exitCode = cmd || values.help ? 0 : 2;
    return;
  }
  const v: Values = { ...values };
  if (arg !== undefined) v[cmd === 'resolve' ? 'id' : 'file'] = arg;
  process.exitCode = await run(cmd, v);
}

main().catch((err: unknown) => {
  if (err instanceof UsageError) {
    process.stderr.write(`${err.message}\n\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  if (err instanceof ImportError || err instanceof EditError) {
    process.stderr.write(`${err.message}\n`);
    for (const p of err.problems) {
      const where = 'index' in p ? `feature ${p.index}${'part' in p && p.part ? ` part ${p.part}` : ''}` : p.path;
      process.stderr.write(`  ${where}: ${p.message}\n`);
    }
    process.exitCode = 1;
    return;
  }
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
