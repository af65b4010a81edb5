// What the mirror's sync state asks of the user: counts, blocked accounts (with the reason and the way out), and
// every item that needs a decision. Plain data, for the CLI's `status` and `problems` and, later, the app.

import type { Mirror } from '../db/mirror.ts';
import type { StatusCounts } from '../db/types.ts';
import { waitingWhileBlocked } from '../db/sync-state.ts';
import { wayOut, type BlockedCode } from './blocked.ts';

export interface BlockedAccount {
  account: string;
  service: string;
  code: BlockedCode | null;
  reason: string;
  /** What to do about it, with the command to run. */
  way_out: string;
  /** Its changes waiting (kept, not lost) until it is unblocked. */
  waiting: number;
}

export interface Problem { kind: string; id: number | string; entity: string; name: string; reason: string }

export interface StatusReport extends StatusCounts {
  blocked_accounts: BlockedAccount[];
}

/** Accounts the last sync could not go on with, optionally only one. */
export function blockedAccounts(m: Mirror, accountId?: string): BlockedAccount[] {
  return m.read.accounts()
    .filter((a) => a.blocked !== null && (accountId === undefined || a.id === accountId))
    .map((a) => {
      const code = a.blocked_code as BlockedCode | null;
      return {
        account: a.id, service: a.service_url, code, reason: a.blocked!, way_out: wayOut(code, a),
        waiting: waitingWhileBlocked(m.syncDb, a.id),
      };
    });
}

export function statusReport(m: Mirror, accountId?: string): StatusReport {
  return { ...m.read.status(accountId), blocked_accounts: blockedAccounts(m, accountId) };
}

/** Whether anything waits for the user: a blocked account, a refused item, a conflict. */
export const needsUser = (s: StatusReport): boolean => s.blocked_accounts.length > 0 || s.rejected > 0 || s.conflicts > 0 || s.blocked > 0;

/** Every blocked account, rejected or blocked item and open conflict, with its reason. */
export function problems(m: Mirror, accountId?: string): Problem[] {
  const out: Problem[] = [];
  const nameOf = (entity: string, localId: string) => {
    const r = entity === 'farm' ? m.read.farm(localId) : entity === 'parcel' ? m.read.parcel(localId) : m.read.crop(localId);
    return (r && 'name' in r && r.name) || localId;
  };
  for (const b of blockedAccounts(m, accountId)) out.push({ kind: 'account_blocked', id: b.account, entity: 'account', name: b.account, reason: `${b.reason}: ${b.way_out}` });
  for (const o of m.read.outbox(accountId)) {
    if (o.state === 'rejected' || o.state === 'blocked') out.push({ kind: o.state, id: o.id, entity: o.entity, name: nameOf(o.entity, o.local_id), reason: o.last_error ?? '' });
  }
  for (const c of m.read.conflicts()) {
    if (accountId !== undefined && c.account_id !== accountId) continue;
    out.push({ kind: `conflict:${c.kind}`, id: c.id, entity: c.entity, name: nameOf(c.entity, c.local_id), reason: (JSON.parse(c.fields) as string[]).join(', ') });
  }
  return out;
}

export const problemLine = (p: Problem): string =>
  p.kind === 'account_blocked' ? `account ${p.id} is blocked — ${p.reason}` : `${p.kind} #${p.id} ${p.entity} '${p.name}': ${p.reason}`;

/** `status` as text: the counts, then each blocked account with its way out. */
export function statusLines(s: StatusReport): string[] {
  const { blocked_accounts: blocked, ...counts } = s;
  const lines = Object.entries(counts).map(([k, n]) => `${k}: ${n}`);
  lines.push(`blocked accounts: ${blocked.length}`);
  for (const b of blocked) {
    lines.push(`account ${b.account} is blocked — ${b.reason}. Way out: ${b.way_out}.${b.waiting ? ` ${b.waiting} change(s) wait for it, none lost.` : ''}`);
  }
  return lines;
}
