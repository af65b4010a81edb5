// What the toolbar and its shortcuts do: calls to the backend whose outcome lands in the store as plain data.
import { RpcError } from '../core/rpc.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import type { AppApi } from './backend.ts';
import type { AccountSummary } from '../core/api.ts';
import { largestFarm, say, set, useApp } from './store.ts';
import { syncedMessage } from './features/status/status-words.ts';

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

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

/** Undo or redo the account's last edit; the map follows from the host's change event. */
async function step(api: AppApi, which: 'undo' | 'redo'): Promise<void> {
  const account = useApp.getState().account;
  if (!account) return;
  const [Done, Which] = which === 'undo' ? ['Undone', 'Undo'] : ['Redone', 'Redo'];
  try {
    const label = await api[which]({ account: account.id });
    say(label ? `${Done}: ${label}` : `Nothing to ${which}`);
  } catch (err) {
    say(`${Which} failed: ${why(err)}`, true);
  }
}
export const undo = (api: AppApi): Promise<void> => step(api, 'undo');
export const redo = (api: AppApi): Promise<void> => step(api, 'redo');

/** Pushes and pulls the account; its progress comes as the host's sync events (App.tsx), whoever started it. */
export async function syncNow(api: AppApi): Promise<void> {
  const { account, syncing } = useApp.getState();
  if (!account || syncing) return;
  set({ syncing: true });
  try {
    const [r] = await api.sync({ account: account.id });
    if (!r) return;
    if (r.unreachable) {
      set({ connection: 'offline' });
      say(`Offline: the service could not be reached (${r.unreachable}). Your ${r.left} change(s) are kept and sent at the next sync.`, true);
    } else if (r.blocked) {
      set({ connection: 'online' });
      say(`Sync needs you: ${r.blocked}`, true);
    } else if (r.error) {
      say(`Sync failed: ${r.error}`, true);
    } else {
      set({ connection: 'online' });
      say(syncedMessage(r), r.rejected + r.conflicts > 0);
    }
  } catch (err) {
    if (err instanceof RpcError && err.code === ApiErrorCode.busy) say('A sync is already running.');
    else say(`Sync failed: ${why(err)}`, true);
  } finally {
    set({ syncing: false, sync: null });
    await refreshAccount(api).catch(() => {});
  }
}
