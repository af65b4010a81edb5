// One account in the Accounts screen's tables: who it is, where it stands on the service (or which service), its
// state here (synced, work to send, blocked with the way out), its token's expiry, and what can be done with it —
// Show (switch the map to it: the app's own account choice), Connect here, Deactivate…, and for an account connected
// with its own token the token's controls on a row of their own.
import { useState } from 'react';
import type { AccountSummary, OrgAccount, TokenState } from '../../../core/api.ts';
import { useApi } from '../../context.ts';
import { useApp } from '../../store.ts';
import { showAccount } from '../settings/account-actions.ts';
import { closeAccounts } from './accounts-store.ts';
import { hereWords, serviceState, tokenWords } from './account-words.ts';
import { wayOutHere } from '../../blocked-words.ts';
import { TokenControls } from './TokenControls.tsx';

export interface RowProps {
  /** The account connected here, if it is. */
  summary: AccountSummary | null;
  /** As the organization's service lists it, when it is one of its accounts. */
  listed: OrgAccount | null;
  token: TokenState | null;
  now: number;
  onConnect?: () => void;
  onDeactivate?: () => void;
  busy?: boolean;
}

const TOKEN_BLOCKS = new Set(['invalid_token', 'token_provider_failed']);

export function AccountRow({ summary, listed, token, now, onConnect, onDeactivate, busy = false }: RowProps) {
  const api = useApi();
  const shown = useApp((s) => s.account?.id === summary?.id);
  const id = summary?.id ?? listed!.id;
  const name = summary?.label || listed?.email || id;
  const ownToken = token !== null && token.source !== 'organization';
  const tw = token ? tokenWords(token, now) : null;
  const urgent = Boolean(ownToken && (tw?.level === 'expired' || (summary?.blocked?.code && TOKEN_BLOCKS.has(summary.blocked.code))));
  const [open, setOpen] = useState(urgent);
  const here = summary ? hereWords(summary) : null;
  return (
    <>
      <tr className={shown ? 'shown' : undefined} data-account={id}>
        <th scope="row">
          <span className="name">{name}</span>
          {listed && summary && listed.email !== name ? <div className="muted">{listed.email}</div> : null}
          <div className="muted id">{id}</div>
        </th>
        <td>{listed ? serviceState(listed) : <span className="service">{summary?.service}</span>}</td>
        <td className={here ? `here ${here.level}` : 'here'}>
          {here ? here.text : <span className="muted">Not connected here</span>}
          {summary?.blocked ? <div className="way-out">{wayOutHere(summary.blocked)}</div> : null}
        </td>
        <td className={tw ? `token ${tw.level}` : 'token'}>
          {tw ? <>{tw.level === 'expired' ? '✖ ' : tw.level === 'near' ? '⚠ ' : ''}{tw.text}</> : summary ? <span className="muted">API key: never expires</span> : '—'}
          {token?.provider ? <div className="muted">From {token.provider}</div> : null}
        </td>
        <td className="actions"><div className="row-actions">
          {summary && shown ? <span className="muted">Shown</span> : null}
          {summary && !shown ? (
            <button type="button" aria-label={`Show ${name}`} title="Switch the map to this account" onClick={() => { closeAccounts(); void showAccount(api, summary); }}>Show</button>
          ) : null}
          {!summary && onConnect ? <button type="button" aria-label={`Connect here: ${name}`} disabled={busy} onClick={onConnect}>Connect here</button> : null}
          {ownToken && summary ? (
            <button type="button" aria-label={`Token of ${name}`} aria-expanded={open} onClick={() => setOpen(!open)}>Token…</button>
          ) : null}
          {onDeactivate ? <button type="button" className="warn" aria-label={`Deactivate ${name}`} disabled={busy} onClick={onDeactivate}>Deactivate…</button> : null}
        </div></td>
      </tr>
      {ownToken && summary && open ? (
        <tr className="token-row">
          <td colSpan={5}><TokenControls a={summary} token={token} /></td>
        </tr>
      ) : null}
    </>
  );
}
