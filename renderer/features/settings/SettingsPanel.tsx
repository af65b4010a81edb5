// Settings: the connected accounts (show one, disconnect one) and the form to connect another service. A
// disconnect the backend refuses because the account has unsynced work says how much, and offers the explicit
// discard; nothing is ever discarded without that second click.
import { useState } from 'react';
import { RpcError } from '../../../core/rpc.ts';
import { ApiErrorCode } from '../../../core/api-codes.ts';
import type { AccountSummary } from '../../../core/api.ts';
import { useApi } from '../../context.ts';
import { say, useApp } from '../../store.ts';
import { ConnectForm } from './ConnectForm.tsx';
import { ShortcutSettings } from './ShortcutSettings.tsx';
import { disconnected, showAccount } from './account-actions.ts';
import { unsyncedSummary } from './connect-errors.ts';
import { closeSettings } from './settings-store.ts';
import { useDialogFocus } from '../focus/useDialogFocus.ts';
import { wayOutHere } from '../../blocked-words.ts';
import './settings.css';

/** A disconnect refused for unsynced work: which account and what would be lost. */
interface Refusal { account: string; what: string }

function AccountRow({ a, current, onRefused, refusal }: { a: AccountSummary; current: boolean; onRefused(r: Refusal | null): void; refusal: Refusal | null }) {
  const api = useApi();
  const [busy, setBusy] = useState(false);
  const name = a.label || a.id;
  const disconnect = async (discardUnsynced: boolean) => {
    setBusy(true);
    try {
      const r = await api.disconnect({ account: a.id, ...(discardUnsynced ? { discardUnsynced } : {}) });
      onRefused(null);
      await disconnected(api, a.id); // first: showing another account clears the status line's message
      say(`Disconnected ${name}: ${r.parcels} parcel(s) of ${r.farms} farm(s) removed from this computer${r.discarded ? `, ${r.discarded} unsynced change(s) discarded` : ''}. The service keeps its data.`);
    } catch (err) {
      if (err instanceof RpcError && err.code === ApiErrorCode.unsyncedWork) onRefused({ account: a.id, what: unsyncedSummary(err.details) });
      else say(`Could not disconnect ${name}: ${err instanceof Error ? err.message : String(err)}`, true);
    } finally {
      setBusy(false);
    }
  };
  return (
    <li className={current ? 'account-row current' : 'account-row'} aria-label={`Account ${name}`}>
      <div>
        <strong>{name}</strong>{current ? <span className="muted"> (shown)</span> : null}
        <div className="muted">{a.service} · {a.method === 'bearer' ? 'token' : 'API key'}{a.lastPull ? ` · last pull ${a.lastPull.slice(0, 16).replace('T', ' ')}` : ''}</div>
        {a.blocked ? <div className="error">{a.blocked.reason} — {wayOutHere(a.blocked)}</div> : null}
      </div>
      <div className="buttons">
        {!current ? <button type="button" aria-label={`Show ${name}`} disabled={busy} onClick={() => { closeSettings(); void showAccount(api, a); }}>Show</button> : null}
        <button type="button" aria-label={`Disconnect ${name}`} disabled={busy} onClick={() => void disconnect(false)}>Disconnect</button>
      </div>
      {refusal?.account === a.id ? (
        <div className="refusal" role="alert">
          <p>{name} has work not yet on the service ({refusal.what}). Sync it first{/conflict/.test(refusal.what) ? ' and settle its conflicts (select each parcel marked !: Keep mine or Keep theirs)' : ''}, or discard it: discarding removes it from this computer for good.</p>
          <div className="buttons">
            <button type="button" disabled={busy} onClick={() => void disconnect(true)}>Discard unsynced work and disconnect</button>
            <button type="button" onClick={() => onRefused(null)}>Keep the account</button>
          </div>
        </div>
      ) : null}
    </li>
  );
}

export function SettingsPanel() {
  const accounts = useApp((s) => s.accounts);
  const current = useApp((s) => s.account?.id);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  // Modal over the side panel: focus inside while open, then back to the toolbar's Settings button.
  const panel = useDialogFocus(closeSettings, { opener: '.settings-button' });
  const service = accounts.find((a) => a.id === current)?.service ?? '';
  return (
    <section className="settings" role="dialog" aria-label="Settings" tabIndex={-1} ref={panel}>
      <div className="settings-head">
        <h2>Settings</h2>
        <button type="button" aria-label="Close settings" title="Close settings (Esc)" aria-keyshortcuts="Escape" onClick={closeSettings}>✕</button>
      </div>
      <h3>Connected accounts</h3>
      {accounts.length ? (
        <ul className="accounts" aria-label="Connected accounts">
          {accounts.map((a) => <AccountRow key={a.id} a={a} current={a.id === current} refusal={refusal} onRefused={setRefusal} />)}
        </ul>
      ) : <p className="muted">No account is connected.</p>}
      <ConnectForm heading="Connect another service" service={service} onConnected={closeSettings} />
      <ShortcutSettings />
    </section>
  );
}
