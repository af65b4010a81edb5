// An organization whose key the service at its address no longer knows (its data was reset, or another service now
// answers there: backend/organizations.ts `stale`). Its accounts here can never sync again: each is listed with what
// it holds that the service never got, with an export of just those parcels, and the user may remove them all from
// this computer — asked once more, naming the changes that would be lost (or saying they were exported), when there
// are any. Removed, the app shows another account at once if one of them was on show.
import { useState } from 'react';
import type { Organization } from '../../../core/api.ts';
import { useApi } from '../../context.ts';
import { say, useApp } from '../../store.ts';
import { ExportButtons } from '../export/ExportButtons.tsx';
import { accountsRemoved } from '../settings/account-actions.ts';
import { focusSoon } from '../focus/focus-soon.ts';
import { accountsChanged } from './accounts-store.ts';
import { accountNames, plural, unsentExportWords, unsentWords } from './account-words.ts';

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * What the confirmation says of the work the service never got: lost, or kept in the files exported (`exported`: the
 * accounts exported, with how many of their changes no file of parcels holds).
 */
export function lossWords(unsent: readonly string[], exported: ReadonlyMap<string, number>, names: ReadonlyMap<string, string>): { text: string; loses: boolean } {
  if (!unsent.length) return { text: 'Nothing unsent is lost: the service never had their changes to lose.', loses: false };
  const saved = unsent.filter((id) => exported.has(id));
  const lost = unsent.filter((id) => !exported.has(id));
  const others = saved.reduce((n, id) => n + exported.get(id)!, 0);
  const list = (ids: readonly string[]) => ids.map((id) => names.get(id) ?? id).join(', ');
  const notParcels = others ? ` ${plural(others, 'change that is not a parcel', 'changes that are not parcels')} (a farm's, a crop's or a deletion) ${others === 1 ? 'is' : 'are'} lost.` : '';
  if (!lost.length) {
    return { text: `The unsent parcels of ${list(saved)} were exported above: removing ${saved.length === 1 ? 'it' : 'them'} here leaves them in the file${saved.length === 1 ? '' : 's'} saved.${notParcels}`, loses: others > 0 };
  }
  const has = `${plural(lost.length, 'account')} (${list(lost)}) ${lost.length === 1 ? 'has' : 'have'} changes the service never got: they are lost unless exported above first.`;
  return { text: saved.length ? `${has} The unsent parcels of ${list(saved)} were exported.${notParcels}` : has, loses: true };
}

export function StaleOrganization({ org, title }: { org: Organization; title: string }) {
  const api = useApi();
  const all = useApp((s) => s.accounts);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [exported, setExported] = useState<ReadonlyMap<string, number>>(new Map());
  const names = accountNames(all);
  const here = (org.accounts ?? []).map((l) => ({ listed: l, summary: all.find((a) => a.id === l.id) ?? null })).filter((x) => x.summary);
  const unsent = here.filter((x) => unsentWords(x.summary!.counts)).map((x) => x.summary!.id);
  const loss = lossWords(unsent, exported, names);
  const remove = async () => {
    setBusy(true);
    const shownBefore = useApp.getState().account?.id;
    const removed: string[] = [];
    try {
      for (const { summary } of here) {
        await api.disconnect({ account: summary!.id, discardUnsynced: true });
        removed.push(summary!.id);
      }
      // A key kept alone (added in this screen) goes too: it opens nothing on that service any more. One that came
      // only with the accounts went with them (the call is then refused, which is fine).
      await api.forgetOrganization({ organization: org.id }).catch(() => {});
      // Its data reset or another service at its address: it had these accounts once, it no longer knows them.
      const words = `Removed ${plural(removed.length, 'stale account')} from this computer: the service at ${org.service} no longer knows ${removed.length === 1 ? 'it' : 'them'}.`;
      // The one on show among them: another is shown at once (before the message: showing one clears the status line).
      // The host's accounts event may have switched already (App.tsx): the account shown now is said either way.
      await accountsRemoved(api, removed);
      const now = useApp.getState().account;
      say(shownBefore && removed.includes(shownBefore) && now ? `${words} Showing ${names.get(now.id) ?? (now.label || now.id)} now.` : words);
    } catch (err) {
      await accountsRemoved(api, removed).catch(() => null);
      say(`${plural(removed.length, 'account')} removed, then: ${why(err)}`, true);
    } finally {
      setBusy(false);
      setConfirming(false);
      await accountsChanged(api).catch(() => {});
      // Its section is gone with the button that had the focus: the screen keeps it, not the page's body.
      focusSoon('.accounts-panel');
    }
  };
  return (
    <section className="org stale" aria-label={title}>
      <h3>{title} <span className="stale-mark">· no longer known there</span></h3>
      <p className="error" role="alert">{org.problem}</p>
      {here.length ? (
        <ul className="stale-accounts" aria-label={`Accounts of ${title} on this computer`}>
          {here.map(({ listed, summary }) => {
            const id = summary!.id;
            const name = names.get(id) ?? (summary!.label || listed.email || id);
            const words = unsentWords(summary!.counts);
            return (
              <li key={id} data-account={id}>
                <span className="name">{summary!.label || listed.email || id}</span> <span className="muted">…{id.slice(-6)}</span>
                {' — '}<span className={words ? 'unsent' : 'muted'}>{words ?? 'nothing unsent'}</span>
                {exported.has(id) ? <span className="exported"> · exported</span> : null}
                {/* Only what the service never got: the rest it has, or had, and the export said otherwise. */}
                {words ? (
                  <ExportButtons account={id} unsent named prefix="Export unsent" label={`the unsent work of ${name}`}
                    onExported={(r) => {
                      say(unsentExportWords(name, r));
                      if (r.parcels > 0) setExported((s) => new Map([...s, [id, r.otherUnsent ?? 0]]));
                    }} />
                ) : null}
              </li>
            );
          })}
        </ul>
      ) : null}
      {here.length && !confirming ? (
        <button type="button" className="warn" aria-disabled={busy || undefined} onClick={() => { if (!busy) setConfirming(true); }}>Remove {plural(here.length, 'stale account')} from this computer…</button>
      ) : null}
      {confirming ? (
        <div className="confirm" role="group" aria-label="Confirm removing the stale accounts">
          <p>{loss.text}</p>
          <button type="button" aria-disabled={busy || undefined} onClick={() => { if (!busy) setConfirming(false); }} autoFocus>Cancel</button>{' '}
          <button type="button" className="warn" aria-disabled={busy || undefined} onClick={() => { if (!busy) void remove(); }}>
            {busy ? 'Removing…' : loss.loses ? 'Remove, losing what was not sent' : 'Remove'}
          </button>
        </div>
      ) : null}
    </section>
  );
}
