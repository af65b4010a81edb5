// What the mirror's sync state asks of the user: the counts, the blocked accounts (with their code and reason) and
// every item that needs a decision — plain data in the app's contract's own shapes (core/api.ts StatusCounts,
// BlockedAccount, Problem), which the backend answers as they are. What to do about a block is worded by whoever
// shows it: the CLI (cli/way-out.ts, also its snake_case `status --json`), the app (renderer/blocked-words.ts).

import type { Mirror } from '../db/mirror.ts';
import { waitingWhileBlocked } from '../db/sync-state.ts';
import { blockedCodeOf } from '../core/accounts/blocked.ts';
import type { BlockedAccount, StatusCounts } from '../core/api-schemas.ts';
import type { Problem } from '../core/api-sync.ts';

/** Accounts the last sync could not go on with, optionally only one. */
export function blockedAccounts(m: Mirror, accountId?: string): BlockedAccount[] {
  return m.read.accounts()
    .filter((a) => a.blocked !== null && (accountId === undefined || a.id === accountId))
    .map((a) => ({
      account: a.id, service: a.service_url, code: blockedCodeOf(a.blocked_code), reason: a.blocked!,
      waiting: waitingWhileBlocked(m.syncDb, a.id),
    }));
}

/** The counts and the blocked accounts, over one account or all (the API's `status`). */
export function statusReport(m: Mirror, accountId?: string): { counts: StatusCounts; blocked: BlockedAccount[] } {
  return { counts: m.read.status(accountId), blocked: blockedAccounts(m, accountId) };
}

/** Every blocked account (its reason), rejected or blocked item and open conflict, with its reason. */
export function problems(m: Mirror, accountId?: string): Problem[] {
  const out: Problem[] = [];
  const nameOf = (entity: string, localId: string) => {
    const r = entity === 'farm' ? m.read.farm(localId) : entity === 'parcel' ? m.read.parcel(localId) : m.read.crop(localId);
    return (r && 'name' in r && r.name) || localId;
  };
  for (const b of blockedAccounts(m, accountId)) out.push({ kind: 'account_blocked', id: b.account, entity: 'account', name: b.account, reason: b.reason });
  for (const o of m.read.outbox(accountId)) {
    if (o.state === 'rejected' || o.state === 'blocked') out.push({ kind: o.state, id: o.id, entity: o.entity, name: nameOf(o.entity, o.local_id), reason: o.last_error ?? '' });
  }
  for (const h of m.read.heldDeletions(accountId)) {
    const what = [h.farms ? `${h.farms} farm${h.farms === 1 ? '' : 's'}` : '', h.parcels ? `${h.parcels} parcel${h.parcels === 1 ? '' : 's'}` : ''].filter(Boolean).join(' and ');
    const label = m.read.account(h.account_id)?.label;
    out.push({ kind: 'deletions_held', id: h.account_id, entity: 'account', name: label || h.account_id,
      reason: `the service deleted ${what} that the last pull held back (more than a sync applies by itself): nothing was deleted here; if that is right, run sync --accept-remote-deletions` });
  }
  for (const c of m.read.conflicts()) {
    if (accountId !== undefined && c.account_id !== accountId) continue;
    out.push({ kind: `conflict:${c.kind}`, id: c.id, entity: c.entity, name: nameOf(c.entity, c.local_id), reason: (JSON.parse(c.fields) as string[]).join(', ') });
  }
  return out;
}
