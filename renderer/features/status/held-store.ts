// Remote deletions the last sync of each account held back (AccountSync.deletionsHeld: the service deleted more than
// a fifth of a farm, or of the account, at once; nothing was deleted here). Kept per account for the status line and
// Sync details, which offers to apply them; plain words, as the engine says them.
import { create } from 'zustand';

export const useHeld = create<{ byAccount: Record<string, readonly string[]> }>(() => ({ byAccount: {} }));

/** What a sync's results say is held now, account by account (a sync that held nothing clears its account's). */
export function noteHeld(results: readonly { account: string; deletionsHeld: readonly string[]; pullNotDone?: string | null }[]): void {
  useHeld.setState((s) => {
    const byAccount = { ...s.byAccount };
    // A pull that did not end says nothing new about what the service deleted: the account's stays as it was.
    for (const r of results) if (!r.pullNotDone) byAccount[r.account] = r.deletionsHeld;
    return { byAccount };
  });
}
