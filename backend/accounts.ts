// Accounts (core/api-accounts.ts): the accounts connected on this computer — connecting one once the service accepts
// its credentials (kept in the credential store, never answered), removing one with its data, its parcel limit, its
// embedded map's address — with the organization's accounts (backend/organizations.ts) and account mode's tokens
// (backend/account-tokens.ts).
import { AccountNotRemoved } from '../db/accounts.ts';
import type { ConnectInput } from '../sync/connect.ts';
import { RpcError, type HandlersOf } from '../core/rpc.ts';
import type { ACCOUNTS_API } from '../core/api-accounts.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import { embeddedMapUrl } from '../core/parcels/metadata-filter.ts';
import { accountSummary } from './views.ts';
import { organizationHandlers } from './organizations.ts';
import { tokenHandlers } from './account-tokens.ts';
import { removeHere } from './remove-account.ts';
import type { HostContext } from './context.ts';

const syncJobs = () => import('./sync-jobs.ts');

export function accountHandlers(ctx: HostContext): HandlersOf<typeof ACCOUNTS_API> {
  async function connect(input: ConnectInput) {
    const { connectAccount, ConnectRefused } = await import('../sync/connect.ts');
    const { NetworkError } = await import('../sync/transport.ts');
    const { TokenUnavailable } = await import('../sync/tokens.ts');
    try {
      const { account, tokenExpires } = await connectAccount(ctx.mirror, ctx.credentials, input, ctx.durations());
      ctx.emit('accounts', {});
      return { account: accountSummary(ctx.mirror, account.id), tokenExpires };
    } catch (err) {
      if (err instanceof ConnectRefused) throw new RpcError(ApiErrorCode.connectRefused, err.message, { reason: err.code });
      // Said as they are (a method, a path and the transport's reason; the token the service would not give): a page
      // is told an internal error only in general (backend/host.ts).
      if (err instanceof TokenUnavailable) throw new RpcError(ApiErrorCode.connectRefused, err.message, { reason: 'refused' });
      if (err instanceof NetworkError) throw new RpcError(ApiErrorCode.serviceUnavailable, err.message);
      throw err;
    }
  }

  return {
    accounts: () => ctx.mirror.read.accounts().map((a) => accountSummary(ctx.mirror, a.id)),

    connect,
    connectWithCommand: connect,

    disconnect: async ({ account, discardUnsynced = false }) => {
      if (ctx.jobs.running === 'sync') throw new RpcError(ApiErrorCode.busy, 'A sync is running: disconnect once it ends');
      const r = await removeHere(ctx, account, discardUnsynced).catch((err: unknown) => {
        if (err instanceof AccountNotRemoved) {
          const code = err.code === 'unsynced' ? ApiErrorCode.unsyncedWork : err.code === 'unknown_account' ? ApiErrorCode.noAccount : ApiErrorCode.busy;
          throw new RpcError(code, err.message, err.unsynced);
        }
        throw err;
      });
      ctx.emit('accounts', {});
      return { farms: r.farms, parcels: r.parcels, crops: r.crops, plants: r.plants, discarded: r.discarded.total + r.discarded.conflicts };
    },

    setParcelLimit: ({ account, hectares }) => {
      ctx.account(account);
      return ctx.jobs.write(() => {
        ctx.mirror.write.setParcelLimit(account, hectares);
        return { hectares: ctx.mirror.write.parcelLimit(account) };
      });
    },

    embeddedMap: async ({ account, metadata = {} }) => {
      const a = ctx.account(account);
      const { embeddedUrl } = await syncJobs();
      try {
        const url = embeddedMapUrl(await embeddedUrl(ctx.mirror, ctx.credentials, account), metadata);
        // The service answers the address, and a page may have connected a service of its own: main opens an address
        // off the service's origin only once the user said so (electron/external-links.ts).
        ctx.externalLink(url, a.service_url);
        return { url };
      } catch (err) {
        if (err instanceof RpcError) throw err;
        throw new RpcError(ApiErrorCode.serviceUnavailable, `The embedded map's address needs the service: ${err instanceof Error ? err.message : String(err)}`);
      }
    },

    ...organizationHandlers(ctx),
    ...tokenHandlers(ctx),
  };
}
