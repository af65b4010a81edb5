// What the toolbar and its shortcuts do: calls to the backend whose outcome lands in the store as plain data.
import { RpcError } from '../core/rpc.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import type { AppApi } from './backend.ts';
import { largestFarm, say, set, useApp } from './store.ts';

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Reads the account's farms and undo history again (after a change event, a sync, a start). */
export async function refreshAccount(api: AppApi): Promise<void> {
  const account = useApp.getState().account;
  if (!account) return;
  const [farms, history, accounts] = await Promise.all([api.farms({ account: account.id }), api.history({ account: account.id }), api.accounts({})]);
  const farmId = useApp.getState().farmId;
  set({
    farms, history, accounts, account: accounts.find((a) => a.id === account.id) ?? account,
    farmId: farms.some((f) => f.id === farmId) ? farmId : largestFarm(farms),
  });
}

export async function undo(api: AppApi): Promise<void> {
  const account = useApp.getState().account;
  if (!account) return;
  try {
    const label = await api.undo({ account: account.id });
    say(label ? `Undone: ${label}` : 'Nothing to undo');
  } catch (err) {
    say(`Undo failed: ${why(err)}`, true);
  }
}

export async function redo(api: AppApi): Promise<void> {
  const account = useApp.getState().account;
  if (!account) return;
  try {
    const label = await api.redo({ account: account.id });
    say(label ? `Redone: ${label}` : 'Nothing to redo');
  } catch (err) {
    say(`Redo failed: ${why(err)}`, true);
  }
}

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
      const problems = r.rejected + r.conflicts;
      say(`Synced: ${r.committed} sent, ${r.pulled} pulled${problems ? `, ${r.rejected} rejected, ${r.conflicts} in conflict` : ''}${r.left ? `, ${r.left} waiting` : ''}.`, problems > 0);
    }
  } catch (err) {
    if (err instanceof RpcError && err.code === ApiErrorCode.busy) say('A sync is already running.');
    else say(`Sync failed: ${why(err)}`, true);
  } finally {
    set({ syncing: false, sync: null });
    await refreshAccount(api).catch(() => {});
  }
}
