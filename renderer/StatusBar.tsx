// Online or offline (as the service answered the last sync), and the app's last message.
import { useApi } from './context.ts';
import { refreshAccount } from './account.ts';
import { syncNow } from './features/status/sync-now.ts';
import { chooseAccount, useApp } from './store.ts';
import { conflictsNote, connectionLabel, namedIds } from './features/status/status-words.ts';
import { SyncProgress } from './features/status/SyncProgress.tsx';
import { toggleCockpit, useCockpit } from './features/cockpit/SyncCockpit.tsx';
import { AccountsButton } from './features/accounts/AccountsButton.tsx';
import { accountChoices } from './features/accounts/account-words.ts';
import { keyHint, useKeyName } from './keymap.ts';

export function StatusBar() {
  const connection = useApp((s) => s.connection);
  const message = useApp((s) => s.message);
  const lost = useApp((s) => s.backendLost);
  const account = useApp((s) => s.account);
  const accounts = useApp((s) => s.accounts);
  const conflicts = conflictsNote(account?.counts.conflicts ?? 0);
  const cockpitOpen = useCockpit((s) => s.open);
  const cockpitKey = useKeyName('cockpit');
  const attention = accounts.reduce((n, a) => n + a.counts.rejected + a.counts.conflicts + a.counts.blocked + a.counts.uncertain, 0);
  const api = useApi();
  const choose = (id: string) => {
    chooseAccount(accounts.find((a) => a.id === id) ?? null);
    void refreshAccount(api).then(() => syncNow(api)).catch(() => {});
  };
  const choices = accountChoices(accounts);
  // An account's raw id in a refusal the service or the engine worded is said with its name.
  const said = message ? namedIds(message.text, accounts) : '';
  return (
    <footer className="statusbar">
      {/* Without its backend the page knows nothing of the service: it says so rather than a stale Online. */}
      <span className={`connection ${lost ? 'offline' : connection}`} role="status" aria-label="Connection">{lost ? 'Disconnected' : connectionLabel(connection, account?.lastPull ?? null)}</span>
      <SyncProgress />
      {accounts.length > 1 ? (
        <label className="account">Account{' '}
          <select value={account?.id ?? ''} onChange={(e) => choose(e.target.value)}>
            {accounts.map((a) => <option key={a.id} value={a.id}>{choices.get(a.id)}</option>)}
          </select>
        </label>
      ) : account ? <span className="account">{account.label || account.id} · {account.service}</span> : null}
      {lost ? (
        <span className="error stopped" role="alert" title={lost.reason}>
          {lost.reconnecting
            ? 'The app stopped. Nothing saved is lost: start it again and this page reconnects by itself.'
            : `The app stopped (${lost.reason}): start it again and open the address it prints. Nothing saved is lost.`}
        </span>
      ) : null}
      {/* A line, or two when long (styles.css): never cut mid-sentence at 1280 px; the full text also in its tooltip. */}
      {/* Not beside the app's stop: what it said before (the last sync's outcome) no longer holds, and squeezed there
          it was cut to a few words; the stop's own sentence is the one to read. */}
      {message && !lost ? <span className={message.error ? 'message error' : 'message'} role="status" aria-label="Message" title={said}>{said}</span> : null}
      {/* From the account's counts, so it stays said after other messages until the last conflict is settled. */}
      {conflicts ? <span className="conflicts-note error" role="status" aria-label="Conflicts">· {conflicts}</span> : null}
      {account ? (
        <button type="button" className={attention ? 'details cockpit-button attention' : 'details cockpit-button'} aria-keyshortcuts={cockpitKey ?? undefined} title={`Every account's queue, what the next sync sends, and what needs you${keyHint(cockpitKey)}`}
          aria-pressed={cockpitOpen} onClick={toggleCockpit}>Sync details{attention ? ` (${attention} need you)` : ''}</button>
      ) : null}
      <AccountsButton />
    </footer>
  );
}
