// The words and the exit code of a sync run, for the CLI (and whatever else shows a run's outcome).
// Exit: 0 everything synced; 2 something needs the user (a blocked account, a refused item, a conflict);
// 1 an error, or changes still waiting (the service unreachable, retries used up) — 1 wins over 2.

import type { Mirror } from '../db/mirror.ts';
import type { AccountReport, SyncReport } from './engine.ts';
import { wayOut } from './blocked.ts';
import { problemLine, problems } from './status.ts';

export interface RunSummary { out: string[]; err: string[]; exit: number }

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** What happened for one account, in one line; and whether it goes to stderr (an error). */
export function accountLine(a: AccountReport, mirror?: Mirror): { line: string; error: boolean } {
  const acked = `${plural(a.committed, 'change')} acknowledged by the service`;
  const refused = a.rejected ? `, ${a.rejected} refused` : '';
  const conflicts = a.conflicts ? `, ${plural(a.conflicts, 'conflict')}` : '';
  const pull = a.pullNotDone ? ` Pull not done: ${a.pullNotDone}.` : a.pulled ? `, ${plural(a.pulled, 'parcel')} pulled` : '';
  const waiting = a.left ? ` ${plural(a.left, 'change')} still waiting, none lost.` : '';
  if (a.blocked) {
    const account = mirror?.read.account(a.account);
    const out = account ? wayOut(a.blockedCode, account) : 'connect the account again';
    return { line: `${a.account}: BLOCKED — ${a.blocked}. Way out: ${out}. ${acked}${refused}${conflicts}.${pull}`, error: false };
  }
  if (a.unreachable) {
    // Plainly: nothing of what is left reached the service.
    return { line: `${a.account}: ${a.unreachable}. ${acked}${refused}.${waiting}${pull}`, error: true };
  }
  if (a.error) return { line: `${a.account}: ${acked}${refused}${conflicts} — error: ${a.error}.${waiting}${pull}`, error: true };
  return { line: `${a.account}: ${acked}${refused}${conflicts}${a.pullNotDone ? '.' : ''}${pull}${a.left ? `.${waiting}` : ''}`, error: false };
}

export function summarizeRun(r: SyncReport, mirror: Mirror): RunSummary {
  const s: RunSummary = { out: [], err: [], exit: 0 };
  let failed = false;
  let needsUser = false;
  for (const a of r.accounts) {
    const { line, error } = accountLine(a, mirror);
    (error ? s.err : s.out).push(line);
    if (error || (a.left > 0 && !a.blocked)) failed = true;
    if (a.blocked) needsUser = true;
  }
  // The account lines already say which accounts are blocked.
  const list = r.accounts.flatMap((a) => problems(mirror, a.account)).filter((p) => p.kind !== 'account_blocked');
  for (const p of list) s.out.push(`  ${problemLine(p)}`);
  if (list.length) needsUser = true;
  s.exit = failed ? 1 : needsUser ? 2 : 0;
  return s;
}
