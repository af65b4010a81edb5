// The words and the exit code of a sync run, for the CLI (and whatever else shows a run's outcome).
// Exit: 0 everything synced; 2 something needs the user (a blocked account, a refused item, a conflict);
// 1 an error, or changes still waiting (the service unreachable, retries used up) — 1 wins over 2; 130 stopped
// by the user (SyncOptions.signal: Ctrl-C in the CLI).

import type { Mirror } from '../db/mirror.ts';
import type { AccountSync } from '../core/api.ts';
import { problems } from '../sync/status.ts';
import { problemLine } from './status.ts';
import { wayOut } from './way-out.ts';
import { pullStoppedAt } from '../sync/pull.ts';
import type { PullProgress } from '../sync/context.ts';

export interface RunSummary { out: string[]; err: string[]; exit: number }

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Bytes in a unit a person reads at a glance. */
export const byteSize = (n: number): string => (n < 10_240 ? `${n} B` : n < 10_485_760 ? `${Math.round(n / 1024)} KB` : `${(n / 1048576).toFixed(1)} MB`);

/** How a finished pull went: " (changes since the last pull, 3 KB on the wire)" or " (listed in full, 41.2 MB on the wire)". */
function pullHow(a: AccountSync): string {
  if (!a.pullKind) return '';
  return ` (${a.pullKind === 'changes' ? 'changes since the last pull' : 'listed in full'}, ${byteSize(a.bytesReceived ?? 0)} on the wire)`;
}

/** What happened for one account, in one line; and whether it goes to stderr (an error). */
export function accountLine(a: AccountSync, mirror?: Mirror, pushed = true): { line: string; error: boolean } {
  const refused = a.rejected ? `, ${a.rejected} refused` : '';
  const conflicts = a.conflicts ? `, ${plural(a.conflicts, 'conflict')}` : '';
  // What the service deleted is said apart: it is gone from the mirror (a farm with its parcels).
  const brought = [a.pulled ? `${plural(a.pulled, 'parcel')} pulled` : '', a.removed ? `${a.removed.toLocaleString('en-US')} removed (deleted on the service)` : ''].filter(Boolean);
  // A pull sends nothing: its line says what it brought first, not that the service acknowledged nothing.
  const acked = pushed ? `${plural(a.committed, 'change')} acknowledged by the service${refused}${conflicts}` : `${brought.length ? brought.join(', ') : 'nothing new'}${conflicts}`;
  const pulled = `${pushed ? brought.map((b) => `, ${b}`).join('') : ''}${pullHow(a)}`;
  // A pull that stopped partway says where ("Pull stopped after 9 of 15 farms: …"), one that never got going why not.
  const at = a.pullStopped ? pullStoppedAt(a.pullStopped as PullProgress) : null;
  const pull = !a.pullNotDone ? '' : at ? ` Pull ${a.pullNotDone}.` : ` Pull not done: ${a.pullNotDone}.`;
  const waitingPlain = a.left ? ` ${plural(a.left, 'change')} still waiting, none lost.` : '';
  // Why they wait, in the service's words (its disk full, say), unless the line already says it could not be reached.
  const waiting = a.left && a.waitingWhy ? ` ${plural(a.left, 'change')} still waiting, none lost (${a.waitingWhy}).` : waitingPlain;
  // Where the pull stands, for the lines that say a reason first (stopped, unreachable, not answering).
  const where = !a.pullNotDone ? '' : at ? ` Pull stopped ${at}.` : ' Pull not done.';
  if (a.blocked) {
    const account = mirror?.read.account(a.account);
    const out = account ? wayOut(a.blockedCode ?? 'refused', account) : 'connect the account again';
    return { line: `${a.account}: BLOCKED — ${a.blocked}. Way out: ${out}. ${acked}${pulled}.${pull}`, error: false };
  }
  if (a.cancelled) {
    return { line: `${a.account}: stopped as asked. ${acked}${pulled}.${waiting}${where} Run sync again to go on.`, error: true };
  }
  if (a.unreachable) {
    // Plainly: nothing of what is left reached the service. The reason is said once, first.
    return { line: `${a.account}: ${a.unreachable}. ${acked}${pulled}.${waitingPlain}${where} Run sync again once the service can be reached.`, error: true };
  }
  if (a.notAnswering) {
    // A hung service: its timeouts are not the run's error but the service's state, said once, first, like unreachable.
    return { line: `${a.account}: ${a.notAnswering}. ${acked}${pulled}.${waitingPlain}${where} Run sync again once it answers.`, error: true };
  }
  // An error in the pull is the reason the pull line gives; one in the push stopped the run before the pull.
  if (a.error && a.pullStopped) return { line: `${a.account}: ${acked}${pulled}.${waiting}${pull}`, error: true };
  if (a.error) return { line: `${a.account}: ${acked} — error: ${a.error}.${waiting}${pull}`, error: true };
  if (a.pullNotDone) return { line: `${a.account}: ${acked}${pulled}.${waiting}${pull}`, error: false };
  return { line: `${a.account}: ${acked}${pulled}${a.left ? `.${waiting}` : ''}`, error: false };
}

/**
 * The run's lines and exit code. `pushed` false (a `pull`): changes waiting here are not the run's business — it never
 * sends them — so they make no exit 1, and no account line counts what the service acknowledged.
 */
export function summarizeRun(r: { accounts: readonly AccountSync[] }, mirror: Mirror, { pushed = true } = {}): RunSummary {
  const s: RunSummary = { out: [], err: [], exit: 0 };
  let failed = false;
  let needsUser = false;
  for (const a of r.accounts) {
    const { line, error } = accountLine(a, mirror, pushed);
    (error ? s.err : s.out).push(line);
    if (error || (pushed && a.left > 0 && !a.blocked)) failed = true;
    if (a.blocked) needsUser = true;
    if (a.pullNote) s.out.push(`  pull: ${a.pullNote}.`);
    for (const h of a.deletionsHeld) {
      s.out.push(`  held: ${h}. If that is right, run sync --accept-remote-deletions.`);
      needsUser = true;
    }
  }
  // Blocked accounts and held deletions are said by their account's lines already.
  const list = r.accounts.flatMap((a) => problems(mirror, a.account)).filter((p) => p.kind !== 'account_blocked' && p.kind !== 'deletions_held');
  for (const p of list) s.out.push(`  ${problemLine(p)}`);
  if (list.length) needsUser = true;
  // Stopped by the user (Ctrl-C): the shell's convention for an interrupted command.
  s.exit = r.accounts.some((a) => a.cancelled) ? 130 : failed ? 1 : needsUser ? 2 : 0;
  return s;
}
