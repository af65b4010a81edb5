import { describe, expect, it } from 'vitest';
import { afterRound, type OpenOp } from './rounds.ts';

const T = Date.parse('2026-11-29T12:00:00.000Z');
const at = (ms: number) => new Date(T + ms).toISOString();
const uncertain = (dueMs: number): OpenOp => ({ state: 'uncertain', next_attempt_at: at(dueMs) });
const waiting: OpenOp = { state: 'queued', next_attempt_at: null }; // a crop whose parcel has no id yet

describe('after a push round', () => {
  it('nothing open: the run ends', () => {
    expect(afterRound([], T, T + 10, T + 20_000, () => true)).toEqual({ kind: 'stop' });
  });

  it('a batch that fell due while the round ran is looked at in another round, even when the round moved nothing', () => {
    // The round began at T, the batch fell due at T+300, the round ended at T+350 (a loaded machine).
    expect(afterRound([uncertain(300), waiting], T, T + 350, T + 20_000, () => false)).toEqual({ kind: 'again' });
  });

  it('due before the round began and still open after a round that moved nothing: wait for what is due later, or stop', () => {
    expect(afterRound([uncertain(-5), waiting], T, T + 50, T + 20_000, () => false)).toEqual({ kind: 'stop' });
    expect(afterRound([uncertain(1000), waiting], T, T + 50, T + 20_000, () => false)).toEqual({ kind: 'wait', until: T + 1000 });
  });

  it('something due and the last round moved something: another round', () => {
    expect(afterRound([waiting], T, T + 50, T + 20_000, () => true)).toEqual({ kind: 'again' });
  });

  it('what is due after the deadline is not waited for', () => {
    expect(afterRound([uncertain(30_000)], T, T + 50, T + 20_000, () => true)).toEqual({ kind: 'stop' });
  });
});
