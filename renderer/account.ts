// The shown account read again into the store: its farms, its undo history and the accounts list. After a change
// event, a sync, a connect, an import or a new farm: the app and its features all call it, so it sits here, below
// them, beside the store it fills.
import type { AccountSummary } from '../core/api.ts';
import type { AppApi } from './backend.ts';
import { chooseAccount, largestFarm, set, useApp } from './store.ts';

/**
 * Reads the account's farms and undo history again (after a change event, a sync, a start); the accounts too, unless
 * the caller has just read them (the start). An account shown that is no longer connected (removed here, in this tab
 * or another) gives way at once to the first one left, or to none: its farms and parcels must not stay on the page,
 * where every click on them would fail.
 */
export async function refreshAccount(api: AppApi, known?: AccountSummary[]): Promise<void> {
  const account = useApp.getState().account;
  if (!account) return;
  const [farms, history, accounts] = await Promise.allSettled([api.farms({ account: account.id }), api.history({ account: account.id }), known ?? api.accounts({})]);
  if (accounts.status === 'rejected') throw accounts.reason;
  // Another account was chosen meanwhile: what was read is no longer the one shown.
  if (useApp.getState().account?.id !== account.id) return;
  const now = accounts.value.find((a) => a.id === account.id);
  if (!now) {
    set({ accounts: accounts.value });
    chooseAccount(accounts.value[0] ?? null);
    return refreshAccount(api, accounts.value);
  }
  if (farms.status === 'rejected') throw farms.reason;
  if (history.status === 'rejected') throw history.reason;
  const farmId = useApp.getState().farmId;
  set({
    farms: farms.value, history: history.value, accounts: accounts.value, account: now,
    farmId: farms.value.some((f) => f.id === farmId) ? farmId : largestFarm(farms.value),
  });
}
