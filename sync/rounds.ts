// What the engine does after a push round (sync/engine.ts pushAccount): another round, a wait, or the end of the run.
// Pure, so the decision that once ended runs early on a slow machine is tested on its own (sync/rounds.test.ts).

/** An op still open after a round: queued or uncertain, and when it is next due (null: at once). */
export interface OpenOp {
  state: string;
  next_attempt_at: string | null;
}

export type AfterRound = { kind: 'again' } | { kind: 'wait'; until: number } | { kind: 'stop' };

/**
 * `roundAt`: the time the round began; `now`: the time it ended. `progressed()` says whether another round could move
 * something (called only when something is due, as it remembers what it was asked).
 */
export function afterRound(open: readonly OpenOp[], roundAt: number, now: number, deadline: number, progressed: () => boolean): AfterRound {
  if (!open.length) return { kind: 'stop' };
  const dueAt = (o: OpenOp) => (o.next_attempt_at === null ? null : Date.parse(o.next_attempt_at));
  // Fell due while the round ran, after it had looked for due work: the round never saw them, so whatever it moved or
  // did not move says nothing about them. A slow round (a loaded machine) otherwise ended the run with an uncertain
  // batch that had just settled, since nothing was left "later" to wait for.
  if (open.some((o) => { const t = dueAt(o); return t !== null && t > roundAt && t <= now; })) return { kind: 'again' };
  const ready = open.some((o) => { const t = dueAt(o); return t === null || t <= now; });
  // Ready but not sent: each waits on something that did not happen this round (a parent still uncertain). Another
  // round only if the last one moved something; otherwise wait for what is due later (settling, retries).
  if (ready && progressed()) return { kind: 'again' };
  const later = open.map(dueAt).filter((t): t is number => t !== null && t > now);
  if (!later.length) return { kind: 'stop' };
  const until = Math.min(...later);
  return until > deadline ? { kind: 'stop' } : { kind: 'wait', until };
}
