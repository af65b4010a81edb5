// A store clock that moves only when a test says so (service/store/clock.ts), restored when the test ends.
import { onTestFinished } from 'vitest';
import { setClock } from '../../service/store/clock.ts';

export interface ManualClock {
  /** The current time as the store writes it. */
  iso(): string;
  advance(ms: number): void;
}

export function useManualClock(start: string): ManualClock {
  let t = Date.parse(start);
  if (Number.isNaN(t)) throw new Error(`not an ISO date: ${start}`);
  onTestFinished(setClock(() => t));
  return {
    iso: () => new Date(t).toISOString(),
    advance(ms) {
      t += ms;
    },
  };
}
