// Syncing the shown account, the user's (Sync now, S, a connect) or the app's own (useAutoSync.ts): the outcome goes
// to the status line in words (status-words.ts), and an automatic one speaks only when there is news (auto-sync.ts).
import { RpcError } from '../../../core/rpc.ts';
import { ApiErrorCode } from '../../../core/api-codes.ts';
import type { AppApi } from '../../backend.ts';
import { say, set, useApp } from '../../store.ts';
import { refreshAccount } from '../../account.ts';
import { labelOf, othersMessage, syncedMessage } from './status-words.ts';
import { announce, type SyncOutcome } from './auto-sync.ts';

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The last message an automatic sync put in the status line: the same one again is not news. */
let lastAuto: string | null = null;

/**
 * Pushes and pulls the account; its progress comes as the host's sync events (App.tsx), whoever started it. `auto`:
 * the app's own timer or reconnect (useAutoSync.ts), which speaks only when there is news.
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
    // The app's own syncs cover every connected account, each in its own queue (the engine runs a few side by side):
    // another account's edits must not wait for its Sync button. The user's Sync now is the shown account's.
    const results = await api.sync(auto ? {} : { account: account.id });
    const r = results.find((x) => x.account === account.id);
    if (!r) return;
    const others = othersMessage(results.filter((x) => x !== r), labelOf(useApp.getState().accounts));
    const also = others.text ? ` ${others.text}` : '';
    if (r.unreachable) {
      // What the user needs first (their work is safe), the technical reason last: the line is cut at the window's
      // width, the whole text is in its tooltip. The changes kept count every account's.
      const left = results.reduce((n, x) => n + x.left, 0);
      const kept = left ? `your ${left === 1 ? 'change is' : `${left.toLocaleString('en-US')} changes are`} kept here and sent by themselves` : 'nothing is waiting to be sent; syncing resumes by itself';
      tell({ connection: 'offline', text: `Offline: ${kept} once the service answers. It could not be reached (${r.unreachable}).`, error: true, news: true });
    } else if (r.blocked) {
      tell({ connection: 'online', text: `Sync needs you: ${r.blocked}${also}`, error: true, news: true });
    } else if (r.error) {
      tell({ connection: before, text: `Sync failed: ${r.error}${also}`, error: true, news: true });
    } else {
      // Changes the service turned away for now (its disk full, say) are news too, and said as a problem.
      const refusedForNow = r.left > 0 && r.waitingWhy !== null;
      const news = r.committed + r.received + r.plantsChanged + r.rejected + r.conflicts > 0 || refusedForNow || others.news;
      tell({ connection: 'online', text: `${syncedMessage(r)}${also}`, error: r.rejected + r.conflicts > 0 || refusedForNow || others.error, news });
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
