// What the toolbar's Undo and Redo (Ctrl+Z, Ctrl+Shift+Z) do: calls to the backend whose outcome lands in the store
// as plain data. Syncing is the status feature's (features/status/sync-now.ts); reading the account again is
// account.ts's, shared with the features.
import type { AppApi } from './backend.ts';
import { say, useApp } from './store.ts';

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

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
