import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { configFromEnv, type ServiceConfig } from './config.ts';
import { openStore } from './store/open.ts';
import type { Store } from './store/store.ts';
import { ErrorCode } from '../core/errors.ts';
import { ApiError } from './errors.ts';
import { embeddedUrl, summarize } from './store/accounts.ts';
import { createAdmin } from './store/admins.ts';
import { signAccountAccess } from './store/tokens.ts';
import { runDemo } from './demo.ts';

const USAGE = `Usage: npm run -s service -- <command> [options]   (data in DATA_DIR, default ./data)

  serve                                         listen on HOST:PORT (default 127.0.0.1:8080); the default command
  demo [--serve]                                load the demo organization, account, farms, crops and orchard; its API key
                                                and admin password are kept in DATA_DIR/demo-credentials.json (0600)
  create-org --name NAME                        new organization; prints its id and API key (shown once)
  create-api-key --org ORG [--label L]          another API key (shown once)
  list-api-keys --org ORG                       prefixes, labels, creation and revocation dates
  revoke-api-key --org ORG --prefix PREFIX
  create-account --org ORG --email EMAIL        connected account with its embedded_url and account_access
  list-accounts --org ORG
  token --account ACC                           fresh account_access (3 hours; bound to no API key)
  revoke-tokens --account ACC                   refuse every account_access issued to the account so far
  revoke-tokens --org ORG                       refuse every account_access of the organization at once (new signing key)
  rotate-signing-key --org ORG                  new signing key; tokens of the previous one work until they expire (<= 3 h)
  list-signing-keys --org ORG                   key ids (kid), creation and retirement dates
  set-parcel-limit --account ACC --hectares N   agreed maximum parcel size ('default' restores 100 ha)
  deactivate-account --account ACC              soft delete, as DELETE /api/accounts/{id}/
  reactivate-account --account ACC              a deactivated account back to active, data intact
  purge-account --account ACC                   permanently delete a deactivated account and all its data
  rotate-auth-id --account ACC                  revoke the account's embedded_url and issue a new one
  list-farms --org ORG [--account ACC]          farms linked to accounts (any state), the ones unlink-farm takes
  unlink-farm --farm ID                         detach a farm from its account (it becomes an orphan)
  list-orphans --org ORG                        orphan farms with their hectares
  delete-orphan --farm ID
  import-plants --account ACC --file FILE [--parcel ID]   import a plant FeatureCollection
  billing --org ORG                             billable hectares, per account and orphans
  create-admin --org ORG --email E --password P   admin of the panel at /admin/ ('--password -' reads it from stdin)
  list-admins --org ORG
  delete-admin --org ORG --email E              removes the admin and signs out their sessions`;

type Opts = Record<string, string | boolean | undefined>;

/** Commands whose output holds an embedded_url. */
const LINKS = new Set(['create-account', 'list-accounts', 'set-parcel-limit', 'deactivate-account', 'reactivate-account', 'rotate-auth-id']);

function need(opts: Opts, name: string): string {
  const v = opts[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}
class UsageError extends Error {}

async function accountOrg(store: Store, id: string): Promise<string> {
  const a = await store.accounts.get(id);
  if (!a) throw new ApiError(ErrorCode.accountNotFound, `Account ${id} not found`);
  return a.organization_id;
}
async function farmOrg(store: Store, id: string): Promise<{ org: string; id: number }> {
  const farmId = Number(id);
  const org = await store.farms.organizationOf(farmId);
  if (!org) throw new ApiError(ErrorCode.notFound, `Farm ${id} not found`);
  return { org, id: farmId };
}

/**
 * The service's addresses for what admin commands print (embedded_url, the demo's links). The environment when it
 * names them (PUBLIC_URL, EMBED_URL, HOST or PORT); else what the service last served with on this DATA_DIR (it
 * records them when it starts listening); else the default, said on stderr with how to change it.
 */
async function adminUrls(store: Store, config: ServiceConfig, env: NodeJS.ProcessEnv = process.env): Promise<ServiceConfig> {
  if (env.PUBLIC_URL || env.EMBED_URL || env.HOST || env.PORT) return config;
  const served = await store.servedUrls.get();
  if (served) return { ...config, publicUrl: served.public_url, embedUrl: served.embed_url };
  process.stderr.write(`note: embedded_url assumes the service at ${config.publicUrl}, the default: the service records its address in ` +
    `${config.dataDir} when it starts, and none has yet. Set PUBLIC_URL (or PORT, or EMBED_URL) to the address clients reach it at, or start the service once.\n`);
  return config;
}

async function run(command: string, opts: Opts): Promise<unknown> {
  let config = configFromEnv();
  if (command === 'serve') {
    // Loaded only to serve: the HTTP stack (fastify, the routes, the embed bundler) is most of a command's start-up.
    await (await import('./server.ts')).serve();
    return undefined;
  }
  if (command === 'demo') {
    // demo --serve serves with the environment's addresses (and records them); demo alone prints what clients use.
    if (!opts.serve) {
      const store = await openStore(config);
      try {
        config = await adminUrls(store, config);
      } finally {
        await store.close();
      }
    }
    const result = await runDemo(config);
    if (opts.serve) {
      process.stderr.write(`${result.banner}\n`);
      await (await import('./server.ts')).serve();
      return undefined;
    }
    return result.credentials;
  }
  const store = await openStore(config);
  try {
    // Only commands that print an embedded_url need the service's address (and a note when it is a guess).
    if (LINKS.has(command)) config = await adminUrls(store, config);
    switch (command) {
      case 'create-org': return await store.organizations.create(need(opts, 'name'));
      case 'create-api-key': return await store.apiKeys.create(need(opts, 'org'), typeof opts.label === 'string' ? opts.label : '');
      case 'list-api-keys': return await store.apiKeys.list(need(opts, 'org'));
      case 'revoke-api-key': await store.apiKeys.revoke(need(opts, 'org'), need(opts, 'prefix')); return { revoked: opts.prefix };
      case 'create-account': {
        const org = need(opts, 'org');
        const a = await store.accounts.create(org, need(opts, 'email'));
        const { token } = await signAccountAccess(store, a.id);
        return { id: a.id, account_email: a.account_email, embedded_url: embeddedUrl(config.embedUrl, a.auth_id), account_access: token };
      }
      case 'list-accounts': return (await store.accounts.list(need(opts, 'org'))).map((a) => summarize(a, config.embedUrl));
      case 'token': {
        const id = need(opts, 'account');
        const a = await store.accounts.get(id);
        if (!a || a.state !== 'active') throw new ApiError(ErrorCode.accountNotFound, 'Account not found');
        const { token, expiresAt } = await signAccountAccess(store, a.id);
        return { account_access: token, expires_at: expiresAt };
      }
      case 'revoke-tokens': {
        if (typeof opts.account === 'string' && opts.account !== '') {
          const a = await store.accounts.revokeTokens(await accountOrg(store, opts.account), opts.account);
          return { account: a.id, tokens_revoked: true };
        }
        const org = need(opts, 'org');
        if (!(await store.organizations.get(org))) throw new ApiError(ErrorCode.notFound, `Organization ${org} not found`);
        const { kid } = await store.signingKeys.rotate(org, { revoke: true });
        return { organization_id: org, tokens_revoked: true, kid };
      }
      case 'rotate-signing-key': {
        const org = need(opts, 'org');
        if (!(await store.organizations.get(org))) throw new ApiError(ErrorCode.notFound, `Organization ${org} not found`);
        const { kid } = await store.signingKeys.rotate(org);
        return { organization_id: org, kid, previous: (await store.signingKeys.list(org)).filter((k) => k.kid !== kid) };
      }
      case 'list-signing-keys': return await store.signingKeys.list(need(opts, 'org'));
      case 'set-parcel-limit': {
        const raw = need(opts, 'hectares');
        const a = await store.accounts.setParcelLimit(need(opts, 'account'), raw === 'default' ? null : Number(raw));
        return summarize(a, config.embedUrl);
      }
      case 'deactivate-account': { const id = need(opts, 'account'); return summarize(await store.accounts.deactivate(await accountOrg(store, id), id), config.embedUrl); }
      case 'reactivate-account': { const id = need(opts, 'account'); return summarize(await store.accounts.reactivate(await accountOrg(store, id), id), config.embedUrl); }
      case 'purge-account': { const id = need(opts, 'account'); return { deleted: id, ...(await store.accounts.purge(await accountOrg(store, id), id)) }; }
      case 'rotate-auth-id': { const id = need(opts, 'account'); return summarize(await store.accounts.rotateAuthId(await accountOrg(store, id), id), config.embedUrl); }
      case 'unlink-farm': { const f = await farmOrg(store, need(opts, 'farm')); await store.farms.unlink(f.org, f.id); return { unlinked: f.id }; }
      case 'list-orphans': return await store.farms.listOrphans(need(opts, 'org'));
      case 'delete-orphan': { const f = await farmOrg(store, need(opts, 'farm')); await store.farms.deleteOrphan(f.org, f.id); return { deleted: f.id }; }
      case 'import-plants': {
        const id = need(opts, 'account');
        const parcel = typeof opts.parcel === 'string' ? Number(opts.parcel) : null;
        let collection: unknown;
        try {
          collection = JSON.parse(readFileSync(need(opts, 'file'), 'utf8'));
        } catch (err) {
          throw new UsageError(`Cannot read ${String(opts.file)} as JSON: ${(err as Error).message}`);
        }
        return await store.plants.import(await accountOrg(store, id), id, collection, parcel);
      }
      case 'billing': return await store.billing.of(need(opts, 'org'));
      case 'list-farms': return await store.farms.listLinked(need(opts, 'org'), typeof opts.account === 'string' ? opts.account : undefined);
      case 'create-admin': {
        const raw = need(opts, 'password');
        // '-' keeps the password out of the shell history and the process list.
        const password = raw === '-' ? readFileSync(0, 'utf8').replace(/\r?\n$/, '') : raw;
        return await createAdmin(store, need(opts, 'org'), need(opts, 'email'), password);
      }
      case 'list-admins': return await store.admins.list(need(opts, 'org'));
      case 'delete-admin': await store.admins.delete(need(opts, 'org'), need(opts, 'email')); return { deleted: opts.email };
      default: throw new UsageError(`Unknown command '${command}'`);
    }
  } finally {
    // Every case awaits its answer (`return await`): the store must not close under a call still running.
    await store.close();
  }
}

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string' }, org: { type: 'string' }, label: { type: 'string' }, prefix: { type: 'string' }, email: { type: 'string' },
      account: { type: 'string' }, hectares: { type: 'string' }, farm: { type: 'string' }, file: { type: 'string' }, parcel: { type: 'string' },
      password: { type: 'string' },
      serve: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const out = await run(positionals[0] ?? 'serve', values);
  if (out !== undefined) process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((err: unknown) => {
  if (err instanceof UsageError) {
    process.stderr.write(`${err.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (err instanceof ApiError) {
    const errors = err.errors?.map((e) => `  - ${e.index !== undefined ? `#${e.index} ` : ''}${e.message}`).join('\n');
    process.stderr.write(`error (${err.code}): ${err.message}${errors ? `\n${errors}` : ''}\n`);
    process.exit(1);
  }
  if ((err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
