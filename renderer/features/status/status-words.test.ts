import { describe, expect, it } from 'vitest';
import { conflictsNote, connectionLabel, labelOf, othersMessage, syncedMessage } from './status-words.ts';

const none = { committed: 0, received: 0, rejected: 0, conflicts: 0, left: 0, plantsChanged: 0 };

describe('the status line', () => {
  it('says only what a sync did', () => {
    expect(syncedMessage(none)).toBe('Synced: up to date, nothing changed.');
    expect(syncedMessage({ ...none, committed: 1 })).toBe('Synced: 1 sent.');
    expect(syncedMessage({ ...none, received: 1200, rejected: 1, left: 2 })).toBe('Synced: 1,200 received, 1 rejected, 2 waiting.');
    expect(syncedMessage({ ...none, plantsChanged: 3, conflicts: 1 })).toBe('Synced: 3 plants updated, 1 in conflict.');
    // The service turned changes away for now: said why (they go again by themselves).
    expect(syncedMessage({ ...none, left: 12, waitingWhy: "The service's disk is full: nothing of this request was written. Try again later" }))
      .toBe("Synced: 12 waiting. Waiting because: The service's disk is full: nothing of this request was written. Try again later");
  });
  it('says "Not synced yet" only for an account never synced', () => {
    const now = new Date(2026, 10, 25, 16, 30);
    expect(connectionLabel('unknown', null, now)).toBe('Not synced yet');
    expect(connectionLabel('unknown', new Date(2026, 10, 25, 9, 5).toISOString(), now)).toBe('Last synced 09:05');
    expect(connectionLabel('unknown', new Date(2026, 10, 20, 9, 5).toISOString(), now)).toBe('Last synced 20 Nov 2026');
    expect(connectionLabel('online', null, now)).toBe('Online');
    expect(connectionLabel('offline', '2026-11-25T09:05:00Z', now)).toBe('Offline');
  });
  it('keeps naming open conflicts until they are settled', () => {
    expect(conflictsNote(0)).toBeNull();
    expect(conflictsNote(1)).toBe('1 conflict — select the parcel marked ! (purple, cross-hatched) to settle it');
    expect(conflictsNote(1200)).toBe('1,200 conflicts — select each parcel marked ! (purple, cross-hatched) to settle it');
  });
});

describe('othersMessage', () => {
  const base = { service: 's', synced: true, cancelled: false, error: null, blocked: null, blockedCode: null, unreachable: null, sent: 0, committed: 0, rejected: 0, conflicts: 0, pulled: 0, received: 0, plantsChanged: 0, left: 0, waitingWhy: null, pullNotDone: null, pullStopped: null, deletionsHeld: [] };
  const label = labelOf([{ id: 'acc-b', label: 'Grower B' }, { id: 'acc-c', label: 'Grower C' }]);

  it("says what an automatic sync did for the accounts not on show, by their labels, and nothing when nothing happened", () => {
    expect(othersMessage([{ ...base, account: 'acc-b' }], label)).toEqual({ text: '', news: false, error: false });
    expect(othersMessage([{ ...base, account: 'acc-b', committed: 1 }, { ...base, account: 'acc-c', blocked: 'Invalid token', blockedCode: 'invalid_token' }], label))
      .toEqual({ text: 'Also: Grower B 1 sent; Grower C needs you (Invalid token).', news: true, error: true });
    expect(othersMessage([{ ...base, account: 'acc-x', unreachable: 'could not reach …', left: 2 }], label)).toEqual({ text: 'Also: acc-x 2 waiting (offline).', news: false, error: false });
  });
});
