// Account management, organization mode (core/api-accounts.ts): the organization's API key, held in the credential
// store and never answered to anyone, lists its accounts on the service, creates one by e-mail and deactivates one —
// after a preview of the farms that would stay there, billed and out of reach, and optionally deleting them first.
// Account mode: a bearer account's token expiry, a pasted token, a token provider address (backend/account-tokens.ts).
import { AccountNotRemoved } from '../db/accounts.ts';
import { isOrgEntry, OrgRefused, organizationId, organizationsOf, type OrgKey } from '../sync/organization.ts';
import type { OrgClient, ServiceAccountRow } from '../sync/org-client.ts';
import { RpcCode, RpcError, type CallContext, type HandlersOf } from '../core/rpc.ts';
import type { Api, DeactivationPreview, OrgAccount, Organization } from '../core/api.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import { emailProblem } from '../core/accounts/email.ts';
import { serviceAddress } from '../core/accounts/service-address.ts';
import type { HostContext } from './context.ts';
import { removeHere } from './remove-account.ts';

type Handlers = HandlersOf<Api>;


const why = (err: unknown) => (err instanceof Error ? err.message : String(err));
const round = (hectares: number) => Math.round(hectares * 1e6) / 1e6;
const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** A service's failure as the app's refusal: its own codes kept, anything else (no answer) service_unavailable. */
function refused(err: unknown, what: string): RpcError {
  if (err instanceof RpcError) return err;
  if (err instanceof OrgRefused) {
    const code = err.code === 'email_taken' ? ApiErrorCode.emailTaken : err.code === 'invalid_email' ? ApiErrorCode.invalidEmail
      : err.code === 'account_not_found' ? ApiErrorCode.notFound : ApiErrorCode.serviceUnavailable;
    return new RpcError(code, `${what}: ${err.message}`);
  }
  return new RpcError(ApiErrorCode.serviceUnavailable, `${what}: the service could not be reached (${why(err)})`);
}

/** The service address as connect keeps it, or a refusal (core/accounts/service-address.ts: the same rule). */
function serviceUrl(text: string): string {
  const a = serviceAddress(text);
  if ('problem' in a) throw new RpcError(ApiErrorCode.connectRefused, a.problem, { reason: 'bad_input' });
  return a.service;
}

export function organizationHandlers(ctx: HostContext): Pick<Handlers, 'organizations' | 'addOrganization' | 'forgetOrganization' | 'createAccount' | 'connectOrgAccount' | 'deactivation' | 'deactivateAccount'> {
  const orgs = () => organizationsOf(ctx.credentials.load(), ctx.mirror.read.accounts());
  const orgOf = (id: string): OrgKey => {
    const o = orgs().get(id);
    if (!o) throw new RpcError(ApiErrorCode.noOrganization, `No organization ${id} on this computer: connect with its API key first`);
    return o;
  };
  // Loaded with the first request: the CLI's other commands do not pay for the HTTP client.
  const client = async (o: Pick<OrgKey, 'service' | 'apiKey' | 'accountHeader'>) => {
    const { OrgClient } = await import('../sync/org-client.ts');
    return new OrgClient(o, { timeoutMs: ctx.durations().timeoutMs, deadlineMs: ctx.durations().deadlineMs });
  };
  const here = (o: OrgKey, account: string) => ctx.mirror.read.account(account)?.service_url === o.service;

  /** The organization with its accounts as the service lists them, and the ones connected here it no longer knows. */
  async function organization(o: OrgKey): Promise<Organization> {
    const base = { id: o.id, service: o.service, method: o.method, name: o.known?.name ?? null, remoteId: o.known?.id ?? null, stale: false };
    const c = await client(o);
    const missing = (ids: readonly string[]) => ids.map((id): OrgAccount => ({
      id, email: ctx.mirror.read.account(id)?.label ?? '', state: 'missing', deactivated: null, connected: true,
    }));
    try {
      const listed = await c.accounts();
      // Who the key speaks for, remembered: shown by name, and told apart from another at the same address later.
      const who = await c.organization().catch(() => null);
      if (who) remember(o, who);
      const known = new Set(listed.map((a) => a.id));
      const row = (a: ServiceAccountRow): OrgAccount => ({ ...a, connected: here(o, a.id) });
      const gone = missing(o.via.filter((id) => !known.has(id)));
      return { ...base, ...(who ? { name: who.name, remoteId: who.id } : {}), accounts: [...listed.map(row), ...gone], problem: null };
    } catch (err) {
      if (err instanceof OrgRefused && err.code === 'unknown_key') {
        return { ...base, stale: true, accounts: missing(o.via), problem: staleWords(o, null) };
      }
      return { ...base, accounts: null, problem: refused(err, `The accounts of ${o.service} could not be listed`).message };
    } finally {
      await c.close();
    }
  }

  /** The service's word for who the key speaks for, kept with each credential entry holding the key when it changed. */
  function remember(o: OrgKey, who: { id: string; name: string }) {
    if (o.known?.id === who.id && o.known.name === who.name) return;
    const all = ctx.credentials.load();
    for (const name of [...(o.entry ? [o.entry] : []), ...o.via]) {
      const c = all[name];
      if (c) ctx.credentials.save(name, { ...c, organization: who });
    }
  }

  /** Why the key is refused, for people: the service reset, or another organization's service at the address (`now`). */
  function staleWords(o: OrgKey, now: string | null): string {
    const was = o.known ? `${o.known.name}'s API key` : "this organization's API key";
    const instead = now ? ` It now answers for ${now}.` : '';
    return `The service at ${o.service} no longer knows ${was} (its data was reset, or another service now answers at this address).${instead} The ${plural(o.via.length, 'account')} connected with it here cannot sync any more: export what was not sent, then remove them.`;
  }

  /** What deactivating would do, read from the service now (another organization's account is not found). */
  async function preview(o: OrgKey, account: string, c: OrgClient): Promise<DeactivationPreview> {
    let a: ServiceAccountRow;
    let farms;
    try {
      a = await c.account(account);
      if (a.state !== 'active') throw new RpcError(ApiErrorCode.notFound, `${a.email} is already deactivated on the service`);
      farms = await c.farms(account);
    } catch (err) {
      if (err instanceof OrgRefused && err.code === 'account_not_found') throw new RpcError(ApiErrorCode.notFound, `No account ${account} in this organization on ${o.service}`);
      throw refused(err, 'What deactivating would do could not be read');
    }
    const connectedHere = here(o, account);
    const work = connectedHere ? ctx.mirror.read.unsyncedWork(account) : null;
    return {
      organization: o.id, account, email: a.email, farms, connectedHere,
      parcels: farms.reduce((s, f) => s + f.parcels, 0), hectares: round(farms.reduce((s, f) => s + f.hectares, 0)),
      unsynced: work ? work.total + work.conflicts : 0,
    };
  }

  async function connectHere(o: OrgKey, account: string, label: string | undefined): Promise<void> {
    const { connectAccount, ConnectRefused } = await import('../sync/connect.ts');
    try {
      await connectAccount(ctx.mirror, ctx.credentials, {
        service: o.service, apiKey: o.apiKey, account, ...(o.accountHeader ? { accountHeader: o.accountHeader } : {}), bearer: o.method === 'bearer', label,
      }, ctx.durations());
    } catch (err) {
      if (err instanceof ConnectRefused) throw new RpcError(ApiErrorCode.connectRefused, err.message, { reason: err.code });
      throw refused(err, `Connecting ${account} here failed`);
    }
    ctx.emit('accounts', {});
  }

  async function deactivate(args: Parameters<Handlers['deactivateAccount']>[0], call: CallContext<{ done: number; total: number }>) {
    const { account, deleteFarms, seen, discardUnsynced = false } = args;
    const o = orgOf(args.organization);
    const c = await client(o);
    try {
      const p = await preview(o, account, c);
      if (p.farms.length !== seen.farms || p.parcels !== seen.parcels) {
        throw new RpcError(ApiErrorCode.previewChanged, `${p.email} now has ${plural(p.farms.length, 'farm')} with ${plural(p.parcels, 'parcel')} on the service, not the ${plural(seen.farms, 'farm')} with ${plural(seen.parcels, 'parcel')} you confirmed: nothing was done, look again`, p);
      }
      if (p.unsynced > 0 && !discardUnsynced) {
        throw new RpcError(ApiErrorCode.unsyncedWork, `${p.email} has ${plural(p.unsynced, 'change')} made here that the service does not have: they would be lost. Sync them first, or discard them. Nothing was done.`, ctx.mirror.read.unsyncedWork(account));
      }
      const deleted = { farms: 0, parcels: 0, hectares: 0 };
      if (deleteFarms) {
        call.progress({ done: 0, total: p.farms.length });
        for (const f of p.farms) {
          const so = `${plural(deleted.farms, 'farm')} of ${p.farms.length} deleted; the account is still active`;
          if (call.signal.aborted) throw new RpcError(RpcCode.cancelled, `Stopped: ${so}`, { deleted });
          try {
            await c.deleteFarm(account, f.id);
          } catch (err) {
            throw new RpcError(ApiErrorCode.serviceUnavailable, `Farm ${f.name} could not be deleted (${refused(err, 'deleting').message}): ${so}. Try again.`, { deleted });
          }
          deleted.farms++;
          deleted.parcels += f.parcels;
          deleted.hectares = round(deleted.hectares + f.hectares);
          call.progress({ done: deleted.farms, total: p.farms.length });
        }
      }
      try {
        await c.deactivate(account);
      } catch (err) {
        throw refused(err, `${p.email} was not deactivated${deleted.farms ? ` (its ${plural(deleted.farms, 'farm')} were deleted)` : ''}`);
      }
      const kept = deleteFarms ? { farms: 0, parcels: 0, hectares: 0 } : { farms: p.farms.length, parcels: p.parcels, hectares: p.hectares };
      // Of no use here any more: every request for it is refused from now on. A change made meanwhile is kept (and
      // the account with it, blocked) unless the user said to discard.
      let removedHere = false;
      if (p.connectedHere) {
        try {
          await removeHere(ctx, account, discardUnsynced);
          removedHere = true;
        } catch (err) {
          if (!(err instanceof AccountNotRemoved)) throw err;
        }
      }
      ctx.emit('accounts', {});
      return { account, deleted, kept, removedHere };
    } finally {
      await c.close();
    }
  }

  return {
    organizations: async () => {
      const all = [...orgs().values()].sort((a, b) => a.service.localeCompare(b.service) || a.id.localeCompare(b.id));
      const listed = await Promise.all(all.map(organization));
      // A stale key's service answering another key held here says whom it answers for now.
      return listed.map((x, i) => {
        const now = x.stale ? listed.find((y) => y.service === x.service && !y.stale && y.name && y.remoteId !== x.remoteId) : undefined;
        const named = now && (now.name === x.name ? `${now.name!} (…${(now.remoteId ?? '').slice(-6)})` : now.name);
        return named ? { ...x, problem: staleWords(all[i]!, named) } : x;
      });
    },

    addOrganization: async ({ service, apiKey, accountHeader, bearer = false }) => {
      const url = serviceUrl(service);
      const key = { service: url, apiKey: apiKey.trim(), accountHeader };
      const c = await client(key);
      try {
        await c.accounts();
      } catch (err) {
        if (err instanceof OrgRefused && (err.code === 'refused' || err.code === 'unknown_key')) throw new RpcError(ApiErrorCode.connectRefused, err.message, { reason: 'refused' });
        throw refused(err, `${url} could not list the organization's accounts`);
      } finally {
        await c.close();
      }
      const id = organizationId(url, key.apiKey);
      ctx.credentials.save(id, { method: bearer ? 'bearer' : 'api_key', apiKey: key.apiKey, service: url, ...(accountHeader ? { accountHeader } : {}) });
      ctx.emit('accounts', {});
      return organization(orgOf(id));
    },

    forgetOrganization: ({ organization: id }) => {
      const o = orgOf(id);
      if (!o.entry || !isOrgEntry(o.entry)) {
        throw new RpcError(ApiErrorCode.noOrganization, `This key came with the accounts connected by it (${o.via.join(', ')}): disconnect them to forget it`);
      }
      ctx.credentials.forget(o.entry);
      ctx.emit('accounts', {});
      return null;
    },

    createAccount: async ({ organization: id, email, label }) => {
      const o = orgOf(id);
      const problem = emailProblem(email);
      if (problem) throw new RpcError(ApiErrorCode.invalidEmail, problem);
      const c = await client(o);
      let created: { id: string; email: string };
      try {
        created = await c.create(email.trim());
      } catch (err) {
        throw refused(err, `${email.trim()} was not created`);
      } finally {
        await c.close();
      }
      try {
        await connectHere(o, created.id, label?.trim() || created.email);
      } catch (err) {
        throw new RpcError(ApiErrorCode.serviceUnavailable, `${created.email} was created on the service (${created.id}), but connecting it here failed: ${why(err)}. Connect it from the list.`, { account: created.id });
      }
      return { account: created.id, email: created.email };
    },

    connectOrgAccount: async ({ organization: id, account, label }) => {
      const o = orgOf(id);
      const c = await client(o);
      let a: ServiceAccountRow;
      try {
        a = await c.account(account);
      } catch (err) {
        if (err instanceof OrgRefused && err.code === 'account_not_found') throw new RpcError(ApiErrorCode.notFound, `No account ${account} in this organization on ${o.service}`);
        throw refused(err, `${account} could not be read`);
      } finally {
        await c.close();
      }
      if (a.state !== 'active') throw new RpcError(ApiErrorCode.notFound, `${a.email} is deactivated: the organization reactivates it in the service's admin panel (Settings > Members)`);
      await connectHere(o, account, label?.trim() || a.email);
      return { account };
    },

    deactivation: async ({ organization: id, account }) => {
      const o = orgOf(id);
      const c = await client(o);
      try {
        return await preview(o, account, c);
      } finally {
        await c.close();
      }
    },

    deactivateAccount: (args, call) => ctx.jobs.exclusive(() => deactivate(args, call)).catch((err: unknown) => {
      if (err instanceof RpcError && err.code === ApiErrorCode.busy) throw new RpcError(ApiErrorCode.busy, 'A sync is running: deactivate once it ends');
      throw err;
    }),
  };
}
