// The shown account read again into the store: its farms, its undo history and the accounts list. After a change
// event, a sync, a connect, an import or a new farm: the app and its features all call it, so it sits here, below
// them, beside the store it fills.
import type { AccountSummary } from '../core/api.ts';
import type { AppApi } from './backend.ts';
import { largestFarm, set, useApp } from './store.ts';

/**
 * Reads the account's farms and undo history again (after a change event, a sync, a start); the accounts too, unless
 * the caller has just read them (the start).
 */
export async function refreshAccount(api: AppApi, known?: AccountSummary[]): Promise<void> {
  const account = useApp.getState().account;
  if (!account) return;
  const [farms, history, accounts] = await Promise.all([api.farms({ account: account.id }), api.history({ account: account.id }), known ?? api.accounts({})]);
  const farmId = useApp.getState().farmId;
  set({
    farms, history, accounts, account: accounts.find((a) => a.id === account.id) ?? account,
    farmId: farms.some((f) => f.id === farmId) ? farmId : largestFarm(farms),
  });
}
