// What connecting and disconnecting do to the rest of the app: the account list read again, the account shown
// chosen, the map and farms following (renderer/account.ts). The secrets only pass through `connect`'s arguments.
import type { AccountSummary } from '../../../core/api.ts';
import type { AppApi } from '../../backend.ts';
import { refreshAccount } from '../../account.ts';
import { syncNow } from '../status/sync-now.ts';
import { chooseAccount, say, set, useApp } from '../../store.ts';

/** Shows `account` (the map, farms, undo history) and pulls it. */
export async function showAccount(api: AppApi, account: AccountSummary): Promise<void> {
  chooseAccount(account);
  await refreshAccount(api);
  await syncNow(api);
}

/** After a connect: the new account listed and shown, its data pulled. */
export async function connected(api: AppApi, account: AccountSummary): Promise<void> {
  set({ accounts: await api.accounts({}) });
  say(`Connected ${account.label || account.id} at ${account.service}: pulling its parcels…`);
  await showAccount(api, account);
}

/** After a disconnect: the list read again; when the account shown was removed, another is shown (or none: the Connect form). */
export async function disconnected(api: AppApi, removed: string): Promise<void> {
  await accountsRemoved(api, [removed]);
}

/**
 * After accounts were removed from this computer (a disconnect, a deactivation, the stale ones of an organization):
 * the list read again, and when the account shown was one of them, the first one left is shown at once (or none: the
 * Connect form), so nothing of a removed account stays on the page. Answers the account shown instead, if any.
 */
export async function accountsRemoved(api: AppApi, removed: readonly string[]): Promise<AccountSummary | null> {
  const accounts = await api.accounts({});
  set({ accounts });
  const shown = useApp.getState().account?.id;
  if (shown === undefined || !removed.includes(shown)) return null;
  const next = accounts[0] ?? null;
  if (next) await showAccount(api, next);
  else chooseAccount(null);
  return next;
}
