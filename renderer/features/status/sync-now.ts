// Syncing the shown account, the user's (Sync now, S, a connect) or the app's own (useAutoSync.ts): the outcome goes
// to the status line in words (status-words.ts), and an automatic one speaks only when there is news (auto-sync.ts).
import { RpcCode, RpcError } from '../../../core/rpc.ts';
import { ApiErrorCode } from '../../../core/api-codes.ts';
import type { AppApi } from '../../backend.ts';
import { say, set, useApp } from '../../store.ts';
import { refreshAccount } from '../../account.ts';
import { heldMessage, labelOf, needsYouMessage, notAnsweringMessage, offlineMessage, othersMessage, syncedMessage } from './status-words.ts';
import { noteHeld } from './held-store.ts';
import { blockedPointer } from '../../blocked-words.ts';
import { keyName } from '../../keymap.ts';
import { announce, type SyncOutcome } from './auto-sync.ts';

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** How long a sync waits for another one to end (a second tab's, an automatic one of every account, the CLI's). */
const BUSY_WAIT_MS = 30_000;
const BUSY_POLL_MS = 1_000;

/**
 * api.sync, waiting for another sync to end first when one is running: a tab opened while another tab's automatic
 * sync of every account went on got "busy" and said nothing, its status stale until the next minute.
 */
export async function syncWhenFree(api: AppApi, args: Parameters<AppApi['sync']>[0], auto: boolean): ReturnType<AppApi['sync']> {
  const until = Date.now() + BUSY_WAIT_MS;
  for (let told = false; ;) {
    try {
      return await api.sync(args);
    } catch (err) {
      if (!(err instanceof RpcError && err.code === ApiErrorCode.busy) || Date.now() >= until) throw err;
      if (!auto && !told) say('A sync is already running: this one follows when it ends.');
      told = true;
      await new Promise((r) => setTimeout(r, BUSY_POLL_MS));
    }
  }
}

/** The last message an automatic sync put in the status line: the same one again is not news. */
let lastAuto: string | null = null;

/**
 * The user asked to sync while a sync was running: one more runs when it ends. That sync may have sent its changes
 * before the user's last edit was saved; dropping the request left the edit waiting for the next minute's timer.
 */
let again = false;

/**
 * Pushes and pulls the account; its progress comes as the host's sync events (App.tsx), whoever started it. `auto`:
 * the app's own timer or reconnect (useAutoSync.ts), which speaks only when there is news.
 */
export async function syncNow(api: AppApi, { auto = false, acceptRemoteDeletions = false } = {}): Promise<void> {
  const { account, syncing, connection: before } = useApp.getState();
  if (!account) return;
  if (syncing) {
    if (!auto && !again) {
      again = true;
      say('A sync is running: yours follows when it ends.');
    }
    return;
  }
  set({ syncing: true });
  const tell = (outcome: SyncOutcome) => {
    set({ connection: outcome.connection });
    if (!announce(auto, before, outcome, lastAuto)) return;
    const back = outcome.connection === 'online' && (before === 'offline' || before === 'silent');
    say(back ? `Back online. ${outcome.text}` : outcome.text, outcome.error);
    lastAuto = auto ? outcome.text : null;
  };
  try {
    // The app's own syncs cover every connected account, each in its own queue (the engine runs a few side by side):
    // another account's edits must not wait for its Sync button. The user's Sync now is the shown account's.
    const results = await syncWhenFree(api, auto ? {} : { account: account.id, ...(acceptRemoteDeletions ? { acceptRemoteDeletions } : {}) }, auto);
    noteHeld(results);
    const r = results.find((x) => x.account === account.id);
    if (!r) return;
    const others = othersMessage(results.filter((x) => x !== r), labelOf(useApp.getState().accounts));
    const also = others.text ? ` ${others.text}` : '';
    if (r.unreachable) {
      // What the user needs first (their work is safe), the technical reason last: the line is cut at the window's
      // width, the whole text is in its tooltip. The changes kept count every account's.
      const left = results.reduce((n, x) => n + x.left, 0);
      tell({ connection: 'offline', text: offlineMessage(left, r.unreachable), error: true, news: true });
    } else if (r.notAnswering) {
      // Connected, and no answer within the client's timeout: neither offline nor online.
      const left = results.reduce((n, x) => n + x.left, 0);
      tell({ connection: 'silent', text: notAnsweringMessage(left, r.notAnswering), error: true, news: true });
    } else if (r.blocked) {
      tell({ connection: 'online', text: needsYouMessage(null, r.blocked, r.blockedCode ? blockedPointer(r.blockedCode, keyName('accounts')) : null, others.text), error: true, news: true });
    } else if (r.error) {
      tell({ connection: before, text: `Sync failed: ${r.error.replace(/[.\s]+$/, '')}.${also}`, error: true, news: true });
    } else if (r.deletionsHeld.length) {
      // Deletions made on the service that the sync did not apply: the map still shows them until the user decides.
      tell({ connection: 'online', text: `${heldMessage(r.deletionsHeld, keyName('cockpit'))}${also}`, error: true, news: true });
    } else {
      // Changes the service turned away for now (its disk full, say) are news too, and said as a problem.
      const refusedForNow = r.left > 0 && r.waitingWhy !== null;
      const news = r.committed + r.received + r.removed + r.plantsChanged + r.rejected + r.conflicts > 0 || refusedForNow || others.news;
      tell({ connection: 'online', text: `${syncedMessage(r)}${also}`, error: r.rejected + r.conflicts > 0 || refusedForNow || others.error, news });
    }
  } catch (err) {
    // Still busy after waiting (another sync, the CLI's say, going on for long): the timer's own try says nothing.
    if (err instanceof RpcError && err.code === ApiErrorCode.busy) {
      if (!auto) say('A sync is already running.');
    } else if (err instanceof RpcError && err.code === RpcCode.disconnected) {
      // The app itself stopped: the status line says so already (StatusBar), in words, not as a failed sync.
    } else tell({ connection: before, text: `Sync failed: ${why(err)}`, error: true, news: true });
  } finally {
    set({ syncing: false, sync: null });
    await refreshAccount(api).catch(() => {});
    if (again) {
      again = false;
      void syncNow(api);
    }
  }
}
