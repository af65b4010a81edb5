// The sync cockpit, for consultants who sync many accounts: every connected account with its counts (pending, in
// flight, uncertain, rejected, conflicts, blocked), a Sync button each and its progress; for the account shown, what
// the next sync sends and the billable hectares it adds, and the work that needs a look — uncertain items with what
// the engine found, rejected ones with the service's reason (Show on map, Fix, Send again), open conflicts (Keep mine,
// Keep theirs, Show) and a blocked account's reason and way out. C or the status line's Sync details opens it.
import { useEffect, useState } from 'react';
import { create } from 'zustand';
import type { AccountSummary, SyncDetails, SyncItem } from '../../../core/api.ts';
import { useApi } from '../../context.ts';
import type { AppApi } from '../../backend.ts';
import { refreshAccount } from '../../account.ts';
import { syncNow } from '../status/sync-now.ts';
import { ConflictSides, type Side } from '../conflicts/ConflictSides.tsx';
import { resolvedFieldsMessage } from '../conflicts/conflict-words.ts';
import { chooseAccount, say, set, useApp } from '../../store.ts';
import { startModify } from '../edit/actions.ts';
import { useDialogFocus } from '../focus/useDialogFocus.ts';
import { wayOutHere } from '../../blocked-words.ts';
import { billableLine, evidence, previewLines } from './sync-words.ts';
import { heldMessage, labelOf, needsYouMessage, syncedMessage } from '../status/status-words.ts';
import { noteHeld, useHeld } from '../status/held-store.ts';
import { blockedPointer } from '../../blocked-words.ts';
import { keyName } from '../../keymap.ts';
import './cockpit.css';
import { accountNames } from '../accounts/account-words.ts';

export const useCockpit = create<{ open: boolean; syncing: string[] }>(() => ({ open: false, syncing: [] }));
export const toggleCockpit = () => useCockpit.setState((s) => ({ open: !s.open }));
const close = () => useCockpit.setState({ open: false });
const why = (err: unknown) => (err instanceof Error ? err.message : String(err));
const NONE: readonly string[] = [];

const COUNTS: [keyof AccountSummary['counts'], string][] = [
  ['pending', 'Pending'], ['in_flight', 'In flight'], ['uncertain', 'Uncertain'], ['rejected', 'Rejected'], ['conflicts', 'Conflicts'], ['blocked', 'Blocked'],
];

/**
 * Syncs one account, shown or not; the shown one goes through the app's own Sync now (its messages and state). What
 * it did is said with the account's name (never its raw id), and a block with where to go about it.
 */
async function syncAccount(api: AppApi, id: string): Promise<void> {
  if (useApp.getState().account?.id === id) return syncNow(api);
  useCockpit.setState((s) => ({ syncing: [...s.syncing, id] }));
  const name = labelOf(useApp.getState().accounts)(id);
  try {
    const results = await api.sync({ account: id });
    noteHeld(results);
    const [r] = results;
    if (r) {
      say(r.unreachable ? `${name}: the service could not be reached; nothing is lost.`
        : r.blocked ? needsYouMessage(name, r.blocked, r.blockedCode ? blockedPointer(r.blockedCode, keyName('accounts')) : null)
        : r.error ? `${name}: sync failed: ${r.error}`
        : r.deletionsHeld.length ? `${name}: ${heldMessage(r.deletionsHeld, null)}` : `${name}: ${syncedMessage(r)}`, Boolean(r.unreachable || r.blocked || r.error || r.deletionsHeld.length));
    }
  } catch (err) {
    say(`Sync of ${name} failed: ${why(err)}`, true);
  } finally {
    useCockpit.setState((s) => ({ syncing: s.syncing.filter((a) => a !== id) }));
    await refreshAccount(api).catch(() => {});
  }
}

function AccountRow({ a, shown, name }: { a: AccountSummary; shown: boolean; name: string }) {
  const api = useApi();
  const appSyncing = useApp((s) => s.syncing);
  const busy = useCockpit((s) => s.syncing.includes(a.id)) || (shown && appSyncing);
  const progress = useApp((s) => (s.sync?.account === a.id ? s.sync : null));
  const held = useHeld((s) => s.byAccount[a.id] ?? NONE);
  return (
    <tr className={shown ? 'shown' : undefined}>
      <th scope="row">{name}<div className="muted service">{a.service}{a.blocked ? '' : a.lastPull ? ` · pulled ${a.lastPull.slice(0, 16).replace('T', ' ')}` : ' · never pulled'}</div>
        {a.blocked ? <div className="error">Blocked: {a.blocked.reason}</div> : null}
        {held.length ? <div className="error">Deletions held: {shown ? 'see below' : 'Show the account to look at them'}</div> : null}
        <div className="actions">
          {/* aria-disabled while busy: the button keeps the keyboard's focus through the sync. */}
          <button type="button" aria-disabled={busy || undefined} onClick={() => { if (!busy) void syncAccount(api, a.id); }} aria-label={`Sync ${name}`}>{busy ? 'Syncing…' : 'Sync'}</button>
          {!shown ? <button type="button" onClick={() => { chooseAccount(a); void refreshAccount(api); }} aria-label={`Show ${name}`}>Show</button> : null}
          {progress && progress.total > 0 ? <progress max={progress.total} value={progress.done} aria-label={`Syncing ${name}: ${progress.phase}`} /> : null}
        </div>
      </th>
      {COUNTS.map(([k]) => <td key={k} data-count={k} className={a.counts[k] && k !== 'pending' && k !== 'in_flight' ? 'attention' : undefined}>{a.counts[k].toLocaleString('en-US')}</td>)}
    </tr>
  );
}

function Item({ item, onRetry }: { item: SyncItem; onRetry?: () => void }) {
  const api = useApi();
  const parcel = item.entity === 'parcel' && item.kind !== 'delete';
  const show = () => { set({ selectedId: item.localId }); close(); };
  const fix = async () => { set({ selectedId: item.localId }); close(); await startModify(api); };
  return (
    <li data-item={item.op}>
      <strong>{item.name ?? item.localId}</strong> <span className="muted">({item.entity} {item.kind})</span>
      <div className={item.state === 'rejected' ? 'error' : 'muted'}>{item.state === 'uncertain' || item.state === 'in_flight' ? evidence(item) : item.reason ?? 'No reason given'}</div>
      {parcel && item.state !== 'uncertain' && item.state !== 'in_flight' ? (
        <div className="buttons">
          <button type="button" onClick={show}>Show on map</button>
          {item.state === 'rejected' ? <button type="button" onClick={() => void fix()} title="Modify its shape; a fixed parcel is sent again">Fix</button> : null}
          {onRetry ? <button type="button" onClick={onRetry} title="Queue it again as it is (after the service's limit changed, say)">Send again</button> : null}
        </div>
      ) : null}
    </li>
  );
}

export function SyncCockpit() {
  const api = useApi();
  const accounts = useApp((s) => s.accounts);
  const account = useApp((s) => s.account);
  const version = useApp((s) => s.version);
  const [details, setDetails] = useState<SyncDetails | null>(null);
  const [error, setError] = useState<string | null>(null);
  const panel = useDialogFocus(close, { opener: '.statusbar .cockpit-button' });

  useEffect(() => {
    if (!account) return;
    let live = true;
    api.syncDetails({ account: account.id }).then((d) => { if (live) { setDetails(d); setError(null); } }, (err: unknown) => { if (live) setError(why(err)); });
    return () => { live = false; };
    // The account's counts move with every sync and edit: its details are read again with them.
  }, [api, account, version]);

  const retry = async () => {
    if (!account) return;
    try {
      const r = await api.retry({ account: account.id });
      say(`${r.requeued} item(s) queued again; they are sent at the next sync.`);
      await refreshAccount(api);
    } catch (err) {
      say(`Not queued again: ${why(err)}`, true);
    }
  };
  const resolve = async (id: number, keep: Side, fields?: Record<string, Side>, name = '') => {
    try {
      await api.resolve({ conflict: id, keep, ...(fields ? { fields } : {}) });
      say(fields ? resolvedFieldsMessage(fields, name) : keep === 'mine' ? 'Kept yours: it is sent at the next sync.' : "Kept the service's.");
      await refreshAccount(api);
    } catch (err) {
      say(`Not settled: ${why(err)}`, true);
    }
  };

  // Deletions the service made that the last sync held back: applied only when the user says they are right.
  const held = useHeld((s) => (account ? s.byAccount[account.id] ?? NONE : NONE));
  const [applying, setApplying] = useState(false);
  const applyHeld = async () => {
    setApplying(true);
    try {
      await syncNow(api, { acceptRemoteDeletions: true });
    } finally {
      setApplying(false);
    }
  };

  const items = details?.items ?? [];
  const uncertain = items.filter((i) => i.state === 'uncertain' || i.state === 'in_flight');
  const rejected = items.filter((i) => i.state === 'rejected');
  const blocked = items.filter((i) => i.state === 'blocked');
  const lines = details ? previewLines(details.preview) : [];
  const names = accountNames(accounts);
  return (
    <section className="cockpit" role="dialog" aria-label="Sync details" tabIndex={-1} ref={panel}>
      <div className="cockpit-head">
        <h2>Sync details</h2>
        <button type="button" aria-label="Close sync details" title="Close (Esc)" onClick={close}>✕</button>
      </div>
      <table className="accounts-table">
        <thead><tr><th scope="col">Account</th>{COUNTS.map(([k, l]) => <th key={k} scope="col">{l}</th>)}</tr></thead>
        <tbody>{accounts.map((a) => <AccountRow key={a.id} a={a} shown={a.id === account?.id} name={names.get(a.id)!} />)}</tbody>
      </table>
      {error ? <p role="alert" className="error">{error}</p> : null}
      {account && details ? (
        <>
          <h3>Next sync of {account.label || account.id}</h3>
          {account.blocked ? <p className="error" role="alert">Blocked: {account.blocked.reason}. {wayOutHere(account.blocked)}</p> : null}
          <ul className="preview" aria-label="What the next sync sends">
            {lines.length ? lines.map((l) => <li key={l}>{l}</li>) : <li className="muted">Nothing waits to be sent.</li>}
            {lines.length ? <li>{billableLine(details.preview)}</li> : null}
            {details.preview.uncertain ? <li>{details.preview.uncertain} of unknown outcome, checked on the service first</li> : null}
          </ul>
          {uncertain.length ? (<><h3>Uncertain ({uncertain.length})</h3><ul className="items" aria-label="Uncertain">{uncertain.map((i) => <Item key={i.op} item={i} />)}</ul></>) : null}
          {rejected.length ? (
            <>
              <h3>Rejected by the service ({rejected.length}) <button type="button" className="small" onClick={() => void retry()}>Send all again</button></h3>
              <ul className="items" aria-label="Rejected">{rejected.map((i) => <Item key={i.op} item={i} onRetry={() => void retry()} />)}</ul>
            </>
          ) : null}
          {held.length ? (
            <>
              <h3>Deletions held ({held.length})</h3>
              <p className="muted">The service deleted more at once than a sync applies by itself, so nothing was deleted here. If the service is right (someone deleted them there), apply them; if not, leave them: the next syncs hold them again.</p>
              <ul className="items" aria-label="Deletions held">{held.map((h) => <li key={h}>{h}</li>)}</ul>
              <div className="buttons">
                <button type="button" aria-disabled={applying || undefined} onClick={() => { if (!applying) void applyHeld(); }}>{applying ? 'Applying…' : 'Apply these deletions'}</button>
              </div>
            </>
          ) : null}
          {blocked.length ? (<><h3>Blocked ({blocked.length})</h3><ul className="items" aria-label="Blocked">{blocked.map((i) => <Item key={i.op} item={i} />)}</ul></>) : null}
          {details.conflicts.length ? (
            <>
              <h3>Conflicts ({details.conflicts.length})</h3>
              <ul className="items" aria-label="Conflicts">
                {details.conflicts.map((c) => (
                  <li key={c.id} data-conflict={c.id}>
                    <strong>{c.name}</strong> <span className="muted">({c.entity}: {c.kind.replace(/_/g, ' ')})</span>
                    <div className="muted">{c.reason}</div>
                    {c.entity === 'crop' && c.differences.length ? (
                      // A crop has no panel of its own: its two sides are settled here, field by field.
                      <div className="conflict">
                        <ConflictSides conflict={c.id} differences={c.differences} byField={c.kind === 'edit'} busy={false}
                          settle={(keep, fields) => void resolve(c.id, keep, fields, c.name)} />
                      </div>
                    ) : (
                      <div className="buttons">
                        <button type="button" onClick={() => void resolve(c.id, 'mine')}>Keep mine</button>
                        <button type="button" onClick={() => void resolve(c.id, 'theirs')}>Keep theirs</button>
                        {c.entity === 'parcel' ? <button type="button" onClick={() => { set({ selectedId: c.localId }); close(); }} title="Both sides, field by field, in the parcel panel">Compare</button> : null}
                      </div>
                    )}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          {!uncertain.length && !rejected.length && !blocked.length && !details.conflicts.length && !account.blocked && !held.length ? <p className="muted">Nothing needs you.</p> : null}
        </>
      ) : null}
    </section>
  );
}
