// The Accounts screen (A, or the status line's Accounts): for consultants syncing many customer accounts. Each
// organization whose API key the backend holds, with its accounts as its service lists them (connected here or not):
// create one by e-mail, connect one here, deactivate one after being told what happens to its farms; then the
// accounts connected with their own token, with the token's expiry, a pasted token or a token provider address.
// Show switches the map to an account at once (each account keeps its own queue: one blocked never stalls another).
import { useEffect, useState } from 'react';
import type { AccountSummary, Organization } from '../../../core/api.ts';
import { useApi } from '../../context.ts';
import { say, useApp } from '../../store.ts';
import { useDialogFocus } from '../focus/useDialogFocus.ts';
import { accountsChanged, closeAccounts, loadOrganizations, loadTokens, useAccounts } from './accounts-store.ts';
import { AccountRow } from './AccountRow.tsx';
import { CreateAccountForm } from './CreateAccountForm.tsx';
import { DeactivateDialog, type Deactivating } from './DeactivateDialog.tsx';
import { AddOrganizationForm } from './AddOrganizationForm.tsx';
import { StaleOrganization } from './StaleOrganization.tsx';
import { orgTitles } from './account-words.ts';
import './accounts.css';

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The clock the expiries are said against, moving every 30 s. */
function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(t);
  }, []);
  return now;
}

function Head() {
  return (
    <thead>
      <tr><th scope="col">Account</th><th scope="col">On the service</th><th scope="col">Here</th><th scope="col">Token</th><th scope="col">Actions</th></tr>
    </thead>
  );
}

function OrgSection({ org, title, now, onDeactivate }: { org: Organization; title: string; now: number; onDeactivate(d: Deactivating): void }) {
  const api = useApi();
  const accounts = useApp((s) => s.accounts);
  const tokens = useAccounts((s) => s.tokens);
  const [connecting, setConnecting] = useState<string | null>(null);
  const connect = async (id: string, email: string) => {
    setConnecting(id);
    try {
      await api.connectOrgAccount({ organization: org.id, account: id });
      say(`Connected ${email} here: Show it to work on it.`);
      await accountsChanged(api);
    } catch (err) {
      say(`${email} was not connected: ${why(err)}`, true);
    } finally {
      setConnecting(null);
    }
  };
  if (org.stale) return <StaleOrganization org={org} title={title} />;
  return (
    <section className="org" aria-label={title}>
      <h3>{title} <span className="muted">({org.method === 'bearer' ? 'its key fetches each account a bearer token' : 'its key with the account header'})</span></h3>
      {org.problem ? <p className="error" role="alert">{org.problem}</p> : null}
      {org.accounts ? (
        <table className="accounts-list" aria-label={`Accounts of ${title}`}>
          <Head />
          <tbody>
            {org.accounts.map((l) => (
              <AccountRow key={l.id} listed={l} summary={l.connected ? accounts.find((a) => a.id === l.id) ?? null : null} token={tokens.find((t) => t.account === l.id) ?? null} now={now}
                busy={connecting === l.id}
                onConnect={l.state === 'active' ? () => void connect(l.id, l.email) : undefined}
                onDeactivate={l.state === 'active' ? () => onDeactivate({ organization: org.id, account: l.id, email: l.email }) : undefined} />
            ))}
          </tbody>
        </table>
      ) : null}
      {org.accounts && !org.accounts.length ? <p className="muted">No account yet: create the first one.</p> : null}
      <CreateAccountForm org={org} title={title} />
    </section>
  );
}

export function AccountsPanel() {
  const api = useApi();
  const [deactivating, setDeactivating] = useState<Deactivating | null>(null);
  // Esc inside the deactivation dialog is the dialog's (it keeps the account); elsewhere it closes the screen.
  const panel = useDialogFocus<HTMLElement>(() => { if (!deactivating) closeAccounts(); }, { opener: '.accounts-button' });
  const accounts = useApp((s) => s.accounts);
  const { orgs, loading, error, tokens } = useAccounts();
  const now = useNow();

  useEffect(() => { void loadOrganizations(api); }, [api]);
  useEffect(() => { void loadTokens(api).catch(() => {}); }, [api, accounts]);

  const titles = orgTitles(orgs ?? []);
  const listed = new Set((orgs ?? []).flatMap((o) => (o.accounts ?? []).map((a) => a.id)));
  // Only once the organizations have answered: an account listed by one would otherwise show here first, then move.
  const others: AccountSummary[] = orgs === null && !error ? [] : accounts.filter((a) => !listed.has(a.id));
  return (
    <section className="accounts-panel" role="dialog" aria-label="Accounts" tabIndex={-1} ref={panel}>
      <div className="accounts-head">
        <h2>Accounts</h2>
        <div className="buttons">
          <button type="button" disabled={loading} onClick={() => void loadOrganizations(api)} title="Ask the services for their accounts again">{loading ? 'Reading…' : 'Refresh'}</button>
          <button type="button" aria-label="Close accounts" title="Close (Esc)" aria-keyshortcuts="Escape" onClick={closeAccounts}>✕</button>
        </div>
      </div>
      {error ? <p className="error" role="alert">{error}</p> : null}
      {orgs === null && !error ? <p className="muted" role="status">Reading the organizations' accounts from their services…</p> : null}
      {(orgs ?? []).map((o) => <OrgSection key={o.id} org={o} title={titles.get(o.id)!} now={now} onDeactivate={setDeactivating} />)}
      {others.length ? (
        <section className="org" aria-label="Accounts connected with their own token">
          <h3>Connected with their own token{orgs?.length ? ' or outside these organizations' : ''}</h3>
          <table className="accounts-list" aria-label="Other accounts connected here">
            <Head />
            <tbody>
              {others.map((a) => <AccountRow key={a.id} summary={a} listed={null} token={tokens.find((t) => t.account === a.id) ?? null} now={now} />)}
            </tbody>
          </table>
        </section>
      ) : null}
      {orgs !== null && !orgs.length && !others.length ? <p className="muted">No account is connected, and no organization's key is kept here.</p> : null}
      <AddOrganizationForm />
      {deactivating ? <DeactivateDialog target={deactivating} onClose={() => setDeactivating(null)} /> : null}
    </section>
  );
}
