// The status line's words: what a sync did, without counts of nothing, and where the connection stands when this
// session has not synced yet but the account has before. Pure, tested beside it.
import type { AccountSync, SyncProgress } from '../../../core/api.ts';
import { accountNames } from '../accounts/account-words.ts';
import type { Connection } from '../../store.ts';

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** A finished sync that reached the service: only what happened ("Synced: 2 sent, 14 received."), or that nothing changed. */
export function syncedMessage(r: Pick<AccountSync, 'committed' | 'received' | 'removed' | 'rejected' | 'conflicts' | 'left' | 'plantsChanged'> & { waitingWhy?: string | null }): string {
  const parts: string[] = [];
  if (r.committed) parts.push(`${r.committed.toLocaleString('en-US')} sent`);
  // What came in and changed something here, not every parcel listed (a sync of an unchanged account received nothing);
  // what the service deleted said apart, since the map loses it (a farm with its parcels).
  if (r.received) parts.push(`${r.received.toLocaleString('en-US')} received`);
  if (r.removed) parts.push(`${r.removed.toLocaleString('en-US')} removed (deleted on the service)`);
  if (r.plantsChanged) parts.push(`${plural(r.plantsChanged, 'plant')} updated`);
  if (r.rejected) parts.push(`${r.rejected.toLocaleString('en-US')} rejected`);
  if (r.conflicts) parts.push(`${r.conflicts.toLocaleString('en-US')} in conflict`);
  if (r.left) parts.push(`${r.left.toLocaleString('en-US')} waiting`);
  // Why changes still wait, when the service said (its disk full, say): they go again by themselves.
  const why = r.left && r.waitingWhy ? ` Waiting because: ${r.waitingWhy}` : '';
  return parts.length ? `Synced: ${parts.join(', ')}.${why}` : 'Synced: up to date, nothing changed.';
}

/**
 * A sync that could not reach the service: what the user needs first (their work is safe: `left` changes of every
 * account kept), the technical reason last — the line may wrap, the whole text is in its tooltip.
 */
export function offlineMessage(left: number, unreachable: string): string {
  return `Offline: ${keptWords(left)} once the service answers. It could not be reached (${unreachable}).`;
}

/** What happens to the changes not sent: kept, and sent by themselves. */
function keptWords(left: number): string {
  return left === 0 ? 'nothing is waiting to be sent; syncing resumes by itself'
    : left === 1 ? 'your change is kept here and sent by itself'
    : `your ${left.toLocaleString('en-US')} changes are kept here and sent by themselves`;
}

/** A sync whose service accepts connections and does not answer (`why`: the engine's words, with its address). */
export function notAnsweringMessage(left: number, why: string): string {
  return `Not answering: ${keptWords(left)} once the service answers: ${why}.`;
}

/**
 * The connection as a sync's progress says it: a request of the run got no answer within the client's timeout, and
 * the service is not answering from then on (the run goes on retrying, for minutes, and "Online" was a lie meanwhile).
 * The run's end says where it stands after.
 */
export const connectionOnProgress = (now: Connection, p: SyncProgress): Connection => (p.notAnswering ? 'silent' : now);

/**
 * The connection's label before this session's first sync answers: "Not synced yet" only for an account never
 * pulled; otherwise when it last was (time today, else the date).
 */
export function connectionLabel(connection: Connection, lastPull: string | null, now = new Date()): string {
  if (connection === 'online') return 'Online';
  if (connection === 'offline') return 'Offline';
  if (connection === 'silent') return 'Not answering';
  if (!lastPull) return 'Not synced yet';
  const t = new Date(lastPull);
  if (Number.isNaN(t.getTime())) return 'Checking the service…';
  const sameDay = t.toDateString() === now.toDateString();
  const when = sameDay ? t.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' }) : t.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
  return `Last synced ${when}`;
}

/** While the account has open conflicts, whatever the last message was: where to settle them (none: nothing to say). */
export function conflictsNote(conflicts: number): string | null {
  if (!conflicts) return null;
  return conflicts === 1 ? '1 conflict — select the parcel marked ! (purple, cross-hatched) to settle it'
    : `${conflicts.toLocaleString('en-US')} conflicts — select each parcel marked ! (purple, cross-hatched) to settle it`;
}

/**
 * An account's name by its id, as the app shows it: its label, with its id's end where two read alike (a stale twin
 * left from an earlier service); never the raw id where it has a label.
 */
export function labelOf(accounts: readonly { id: string; label: string }[]): (id: string) => string {
  const names = accountNames(accounts);
  return (id) => names.get(id) ?? id;
}

/**
 * A message with every connected account's raw id in it (a refusal the service or the engine worded with the id:
 * "The service refused a token for acc-…", "Account acc-… is not connected") said with that account's name instead:
 * the status line never shows an id where the account has a name.
 */
export function namedIds(text: string, accounts: readonly { id: string; label: string }[]): string {
  const name = labelOf(accounts);
  let out = text;
  for (const a of accounts) if (a.label && out.includes(a.id)) out = out.split(a.id).join(name(a.id));
  return out;
}

/**
 * A sync the account's block stopped, for the status line: its reason, then where to go about it (blocked-words.ts
 * blockedPointer), then what the other accounts' syncs did. `who`: the account's name when it is not the one shown.
 */
export function needsYouMessage(who: string | null, blocked: string, pointer: string | null, also = ''): string {
  const reason = blocked.replace(/[.\s]+$/, '');
  return `${who ? `${who} needs you` : 'Sync needs you'}: ${reason}${pointer ? ` — ${pointer}` : '.'}${also ? ` ${also}` : ''}`;
}

/**
 * What an automatic sync did for the accounts not on show, when anything: "Also: Grower B 1 sent; Grower C needs you
 * (Invalid token)." `news`: something changed or needs the user; `error`: something needs the user or failed.
 */
export function othersMessage(others: readonly AccountSync[], label: (id: string) => string): { text: string; news: boolean; error: boolean } {
  const parts: string[] = [];
  let news = false;
  let error = false;
  for (const o of others) {
    const name = label(o.account);
    if (o.blocked) {
      parts.push(`${name} needs you (${o.blocked})`);
      news = error = true;
    } else if (o.unreachable) {
      if (o.left) parts.push(`${name} ${o.left.toLocaleString('en-US')} waiting (offline)`);
    } else if (o.error) {
      parts.push(`${name} failed (${o.error})`);
      news = error = true;
    } else {
      const done = syncedMessage(o);
      const changed = o.committed + o.received + o.removed + o.plantsChanged + o.rejected + o.conflicts > 0;
      if (changed || o.left) parts.push(`${name} ${done.replace(/^Synced: /, '').replace(/\.$/, '')}`);
      if (changed) news = true;
      if (o.rejected + o.conflicts > 0) error = true;
    }
  }
  return { text: parts.length ? `Also: ${parts.join('; ')}.` : '', news, error };
}

/**
 * The status line's sync bar: its words, and its share done (null: a bar that only says work goes on); null for no bar
 * at all. A finished sync ('done') has none: its outcome is the status line's message, and its last event, which may
 * come after the call's answer, showed a stray "done 0/0" (during an import preview, among others). Counts only when
 * there are some: a phase of unknown length says its name, or why it waits.
 */
export function syncBar(p: SyncProgress | null, syncing: boolean): { text: string; share: number | null } | null {
  if (!p) return syncing ? { text: 'starting', share: null } : null;
  if (p.phase === 'done') return null;
  if (p.total <= 0) return { text: p.phase === 'waiting' && p.message ? `waiting: ${p.message}` : p.phase, share: null };
  return { text: `${p.phase} ${p.done.toLocaleString('en-US')}/${p.total.toLocaleString('en-US')}`, share: Math.min(1, p.done / p.total) };
}

/**
 * A sync that held back deletions the service made (deletionsHeld): what it found, that nothing was deleted here, and
 * where to apply them if they are right. One line: the first of them, and how many more.
 */
export function heldMessage(held: readonly string[], detailsKey: string | null): string {
  const more = held.length > 1 ? ` (and ${held.length - 1} more)` : '';
  return `Held: ${held[0]!.replace(/[.\s]+$/, '')}${more}. If the service is right, apply them in Sync details${detailsKey ? ` (${detailsKey})` : ''}.`;
}
