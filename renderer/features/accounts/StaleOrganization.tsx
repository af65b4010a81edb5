// An organization whose key the service at its address no longer knows (its data was reset, or another service now
// answers there: backend/organizations.ts `stale`). Its accounts here can never sync again: each is listed with what
// it holds that the service never got, with an export of its parcels, and the user may remove them all from this
// computer — asked once more, naming the changes that would be lost, when there are any.
import { useState } from 'react';
import type { Organization } from '../../../core/api.ts';
import { useApi } from '../../context.ts';
import { say, useApp } from '../../store.ts';
import { ExportButtons } from '../export/ExportButtons.tsx';
import { accountsChanged } from './accounts-store.ts';
import { plural, unsentWords } from './account-words.ts';

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function StaleOrganization({ org, title }: { org: Organization; title: string }) {
  const api = useApi();
  const all = useApp((s) => s.accounts);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const here = (org.accounts ?? []).map((l) => ({ listed: l, summary: all.find((a) => a.id === l.id) ?? null })).filter((x) => x.summary);
  const unsent = here.reduce((n, x) => n + (unsentWords(x.summary!.counts) ? 1 : 0), 0);
  const remove = async () => {
    setBusy(true);
    let removed = 0;
    try {
      for (const { summary } of here) {
        await api.disconnect({ account: summary!.id, discardUnsynced: true });
        removed++;
      }
      // A key kept alone (added in this screen) goes too: it opens nothing on that service any more. One that came
      // only with the accounts went with them (the call is then refused, which is fine).
      await api.forgetOrganization({ organization: org.id }).catch(() => {});
      say(`Removed ${plural(removed, 'stale account')} from this computer: the service at ${org.service} never had them.`);
    } catch (err) {
      say(`${plural(removed, 'account')} removed, then: ${why(err)}`, true);
    } finally {
      setBusy(false);
      setConfirming(false);
      await accountsChanged(api);
    }
  };
  return (
    <section className="org stale" aria-label={title}>
      <h3>{title} <span className="stale-mark">· no longer known there</span></h3>
      <p className="error" role="alert">{org.problem}</p>
      {here.length ? (
        <ul className="stale-accounts" aria-label={`Accounts of ${title} on this computer`}>
          {here.map(({ listed, summary }) => {
            const name = summary!.label || listed.email || summary!.id;
            const words = unsentWords(summary!.counts);
            return (
              <li key={summary!.id} data-account={summary!.id}>
                <span className="name">{name}</span> <span className="muted">…{summary!.id.slice(-6)}</span>
                {' — '}<span className={words ? 'unsent' : 'muted'}>{words ?? 'nothing unsent'}</span>
                <ExportButtons account={summary!.id} label={`all parcels of ${name}`} />
              </li>
            );
          })}
        </ul>
      ) : null}
      {here.length && !confirming ? (
        <button type="button" className="warn" disabled={busy} onClick={() => setConfirming(true)}>Remove {plural(here.length, 'stale account')} from this computer…</button>
      ) : null}
      {confirming ? (
        <div className="confirm" role="group" aria-label="Confirm removing the stale accounts">
          <p>{unsent
            ? `${plural(unsent, 'account')} ${unsent === 1 ? 'has' : 'have'} changes the service never got: they are lost unless exported above first.`
            : 'Nothing unsent is lost: the service never had these accounts.'}</p>
          <button type="button" disabled={busy} onClick={() => setConfirming(false)} autoFocus>Cancel</button>{' '}
          <button type="button" className="warn" disabled={busy} onClick={() => void remove()}>{busy ? 'Removing…' : unsent ? 'Remove, losing what was not sent' : 'Remove'}</button>
        </div>
      ) : null}
    </section>
  );
}
