// Removing an account from this computer — disconnecting it (backend/accounts.ts), or after deactivating it on the
// service (backend/organizations.ts): its rows in the mirror, its secrets, and the files dropped for it, so nothing of
// it is left in FURROW_HOME. The service keeps its data.
import type { RemovedAccount } from '../db/accounts.ts';
import type { HostContext } from './context.ts';

/** Refused with db/accounts.ts AccountNotRemoved (its unsynced work counted) unless `discardUnsynced`; then nothing is removed. */
export async function removeHere(ctx: HostContext, account: string, discardUnsynced: boolean): Promise<RemovedAccount> {
  const removed = await ctx.jobs.write(() => ctx.mirror.write.removeAccount(account, { discardUnsynced }));
  ctx.credentials.forget(account);
  ctx.previews.removeAccount(account);
  return removed;
}
