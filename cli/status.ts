// The CLI's `status` and `problems`: the backend's answers (core/api.ts StatusCounts, BlockedAccount, Problem) as the
// CLI prints them — its snake_case JSON (`blocked_accounts`, each with its `way_out`) and its lines — with the way out
// of each blocked account worded for the command line (cli/way-out.ts).

import type { Mirror } from '../db/mirror.ts';
import type { BlockedAccount, Problem, StatusCounts } from '../core/api.ts';
import { blockedCodeOf } from '../core/accounts/blocked.ts';
import { wayOut, type BlockedAccountRow } from './way-out.ts';

/** `status --json`: the counts, then each blocked account with its way out. */
export type StatusJson = StatusCounts & {
  blocked_accounts: { account: string; service: string; code: BlockedAccount['code']; reason: string; way_out: string; waiting: number }[];
};

/** The account as the way out names it: the mirror's row, or what the answer says of it. */
const rowOf = (m: Mirror, b: Pick<BlockedAccount, 'account' | 'service'>): BlockedAccountRow => m.read.account(b.account) ?? { id: b.account, service_url: b.service, mode: 'api_key' };

export function statusJson(m: Mirror, s: { counts: StatusCounts; blocked: readonly BlockedAccount[] }): StatusJson {
  return {
    ...s.counts,
    blocked_accounts: s.blocked.map((b) => ({ account: b.account, service: b.service, code: b.code, reason: b.reason, way_out: wayOut(b.code, rowOf(m, b)), waiting: b.waiting })),
  };
}

/** Whether anything waits for the user: a blocked account, a refused item, a conflict. */
export const needsUser = (s: StatusJson): boolean => s.blocked_accounts.length > 0 || s.rejected > 0 || s.conflicts > 0 || s.blocked > 0;

/** `status` as text: the counts, then each blocked account with its way out. */
export function statusLines(s: StatusJson): string[] {
  const { blocked_accounts: blocked, ...counts } = s;
  const lines = Object.entries(counts).map(([k, n]) => `${k}: ${n}`);
  lines.push(`blocked accounts: ${blocked.length}`);
  for (const b of blocked) {
    lines.push(`account ${b.account} is blocked — ${b.reason}. Way out: ${b.way_out}.${b.waiting ? ` ${b.waiting} change(s) wait for it, none lost.` : ''}`);
  }
  return lines;
}

/** The problems as `problems` prints them: a blocked account's reason followed by its way out. */
export function problemsWithWayOut(m: Mirror, list: readonly Problem[]): Problem[] {
  return list.map((p) => {
    if (p.kind !== 'account_blocked') return p;
    const row = m.read.account(String(p.id));
    return row ? { ...p, reason: `${p.reason}: ${wayOut(blockedCodeOf(row.blocked_code), row)}` } : p;
  });
}

export const problemLine = (p: Problem): string =>
  p.kind === 'account_blocked' ? `account ${p.id} is blocked — ${p.reason}`
    : p.kind === 'deletions_held' ? `account ${p.id}: ${p.reason}`
    : `${p.kind} #${p.id} ${p.entity} '${p.name}': ${p.reason}`;
