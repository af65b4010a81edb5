// The store's time source. Every timestamp the store writes (created, modified, revoked, deleted…) comes from
// now(), so a test sets the time it needs instead of sleeping until the millisecond changes.
import { randomUUID } from 'node:crypto';

/** Milliseconds since the epoch, like Date.now. */
export type Clock = () => number;

// Module-level rather than threaded through AppContext: store functions take only the database, time is the same
// for the whole process, and only tests ever replace it (each test file runs in its own process).
let clock: Clock = Date.now;

export const now = (): string => new Date(clock()).toISOString();
/** The same time in milliseconds (the change feed's horizon). */
export const nowMs = (): number => clock();
export const uuid = (): string => randomUUID();

/** Replaces the store's clock; returns the function that puts the previous one back. */
export function setClock(next: Clock): () => void {
  const previous = clock;
  clock = next;
  return () => {
    clock = previous;
  };
}
