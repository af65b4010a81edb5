// What the toolbar and its shortcuts do: calls to the backend whose outcome lands in the store as plain data.
import { RpcError } from '../core/rpc.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import type { AppApi } from './backend.ts';
import type { AccountSummary } from '../core/api.ts';
import { largestFarm, say, set, useApp } from './store.ts';
import { syncedMessage } from './features/status/status-words.ts';
import { announce, type SyncOutcome } from './features/status/auto-sync.ts';

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

/** The last message an automatic sync put in the status line: the same one again is not news. */
let lastAuto: string | null = null;

/**
 * Pushes and pulls the account; its progress comes as the host's sync events (App.tsx), whoever started it. `auto`:
 * the app's own timer or reconnect (features/status/useAutoSync.ts), which speaks only when there is news.
 */
export async function syncNow(api: AppApi, { auto = false } = {}): Promise<void> {
  const { account, syncing, connection: before } = useApp.getState();
  if (!account || syncing) return;
  set({ syncing: true });
  const tell = (outcome: SyncOutcome) => {
    set({ connection: outcome.connection });
    if (!announce(auto, before, outcome, lastAuto)) return;
    const back = outcome.connection === 'online' && before === 'offline';
    say(back ? `Back online. ${outcome.text}` : outcome.text, outcome.error);
    lastAuto = auto ? outcome.text : null;
  };
  try {
    const [r] = await api.sync({ account: account.id });
    if (!r) return;
    if (r.unreachable) {
      // What the user needs first (their work is safe), the technical reason last: the line is cut at the window's
      // width, the whole text is in its tooltip.
      const kept = r.left ? `your ${r.left === 1 ? 'change is' : `${r.left.toLocaleString('en-US')} changes are`} kept here and sent by themselves` : 'nothing is waiting to be sent; syncing resumes by itself';
      tell({ connection: 'offline', text: `Offline: ${kept} once the service answers. It could not be reached (${r.unreachable}).`, error: true, news: true });
    } else if (r.blocked) {
      tell({ connection: 'online', text: `Sync needs you: ${r.blocked}`, error: true, news: true });
    } else if (r.error) {
      tell({ connection: before, text: `Sync failed: ${r.error}`, error: true, news: true });
    } else {
      const news = r.committed + r.received + r.plantsChanged + r.rejected + r.conflicts > 0;
      tell({ connection: 'online', text: syncedMessage(r), error: r.rejected + r.conflicts > 0, news });
    }
  } catch (err) {
    // Busy: another sync (the launcher's, the CLI's) is on it; the timer's own try has nothing to say then.
    if (err instanceof RpcError && err.code === ApiErrorCode.busy) {
      if (!auto) say('A sync is already running.');
    } else tell({ connection: before, text: `Sync failed: ${why(err)}`, error: true, news: true });
  } finally {
    set({ syncing: false, sync: null });
    await refreshAccount(api).catch(() => {});
  }
}
