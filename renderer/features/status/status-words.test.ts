import { describe, expect, it } from 'vitest';
import { conflictsNote, connectionLabel, connectionOnProgress, heldMessage, labelOf, notAnsweringMessage, namedIds, needsYouMessage, offlineMessage, othersMessage, syncBar, syncedMessage } from './status-words.ts';
import { noteHeld, useHeld } from './held-store.ts';

const none = { committed: 0, received: 0, removed: 0, rejected: 0, conflicts: 0, left: 0, plantsChanged: 0 };

describe('the status line', () => {
  it('says only what a sync did', () => {
    expect(syncedMessage(none)).toBe('Synced: up to date, nothing changed.');
    expect(syncedMessage({ ...none, committed: 1 })).toBe('Synced: 1 sent.');
    expect(syncedMessage({ ...none, received: 1200, rejected: 1, left: 2 })).toBe('Synced: 1,200 received, 1 rejected, 2 waiting.');
    expect(syncedMessage({ ...none, received: 4, removed: 2001 })).toBe('Synced: 4 received, 2,001 removed (deleted on the service).');
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
  it('says offline work is kept, in the singular for one change', () => {
    expect(offlineMessage(1, 'connection refused')).toBe('Offline: your change is kept here and sent by itself once the service answers. It could not be reached (connection refused).');
    expect(offlineMessage(3, 'timeout')).toBe('Offline: your 3 changes are kept here and sent by themselves once the service answers. It could not be reached (timeout).');
    expect(offlineMessage(1200, 'x')).toMatch(/^Offline: your 1,200 changes are kept here and sent by themselves/);
    expect(offlineMessage(0, 'x')).toBe('Offline: nothing is waiting to be sent; syncing resumes by itself once the service answers. It could not be reached (x).');
  });
  it('says a blocked sync with where to go about it, and what the others did after a full stop', () => {
    expect(needsYouMessage(null, 'Invalid API key', 'see Accounts (A).', 'Also: Grower B 1 sent.'))
      .toBe('Sync needs you: Invalid API key — see Accounts (A). Also: Grower B 1 sent.');
    expect(needsYouMessage('Cooperative north', 'Invalid token.', null)).toBe('Cooperative north needs you: Invalid token.');
  });
  it('keeps naming open conflicts until they are settled', () => {
    expect(conflictsNote(0)).toBeNull();
    expect(conflictsNote(1)).toBe('1 conflict — select the parcel marked ! (purple, cross-hatched) to settle it');
    expect(conflictsNote(1200)).toBe('1,200 conflicts — select each parcel marked ! (purple, cross-hatched) to settle it');
  });
});

describe('othersMessage', () => {
  const base = { service: 's', synced: true, cancelled: false, error: null, blocked: null, blockedCode: null, unreachable: null, sent: 0, committed: 0, rejected: 0, conflicts: 0, pulled: 0, received: 0, removed: 0, plantsChanged: 0, left: 0, waitingWhy: null, pullNotDone: null, pullStopped: null, deletionsHeld: [] };
  const label = labelOf([{ id: 'acc-b', label: 'Grower B' }, { id: 'acc-c', label: 'Grower C' }]);

  it("says what an automatic sync did for the accounts not on show, by their labels, and nothing when nothing happened", () => {
    expect(othersMessage([{ ...base, account: 'acc-b' }], label)).toEqual({ text: '', news: false, error: false });
    expect(othersMessage([{ ...base, account: 'acc-b', committed: 1 }, { ...base, account: 'acc-c', blocked: 'Invalid token', blockedCode: 'invalid_token' }], label))
      .toEqual({ text: 'Also: Grower B 1 sent; Grower C needs you (Invalid token).', news: true, error: true });
    expect(othersMessage([{ ...base, account: 'acc-x', unreachable: 'could not reach …', left: 2 }], label)).toEqual({ text: 'Also: acc-x 2 waiting (offline).', news: false, error: false });
  });

  it('names twins left from an earlier service apart, by their ids\' ends', () => {
    const twins = labelOf([{ id: 'acc-0594-621a12', label: 'Demo grower' }, { id: 'acc-4dcf-589d7b', label: 'Demo grower' }, { id: 'acc-e5ad-efb99f', label: 'Cooperative north' }]);
    expect([twins('acc-0594-621a12'), twins('acc-4dcf-589d7b'), twins('acc-e5ad-efb99f')]).toEqual(['Demo grower (…621a12)', 'Demo grower (…589d7b)', 'Cooperative north']);
  });

  it("says an account's name where a message names its raw id", () => {
    const accounts = [{ id: 'acc-e5adf763-d0c0-4cd5-9e06-8baeacefb99f', label: 'Cooperative north' }, { id: 'acc-2', label: '' }];
    expect(namedIds('Sync needs you: The service refused a token for acc-e5adf763-d0c0-4cd5-9e06-8baeacefb99f: expired', accounts))
      .toBe('Sync needs you: The service refused a token for Cooperative north: expired');
    // No name to say instead: the id stays.
    expect(namedIds('Account acc-2 is not connected', accounts)).toBe('Account acc-2 is not connected');
  });
  it("shows a sync's bar only while it runs, with counts only when there are some (never a stray \"done 0/0\")", () => {
    const p = { account: 'acc-1', bytes: 0, done: 0, total: 0 };
    expect(syncBar({ ...p, phase: 'done' }, false)).toBeNull();
    expect(syncBar({ ...p, phase: 'done', done: 3, total: 3 }, true)).toBeNull();
    expect(syncBar(null, false)).toBeNull();
    expect(syncBar(null, true)).toEqual({ text: 'starting', share: null });
    expect(syncBar({ ...p, phase: 'reconcile' }, true)).toEqual({ text: 'reconcile', share: null });
    expect(syncBar({ ...p, phase: 'waiting', message: 'retrying in 2 s' }, true)).toEqual({ text: 'waiting: retrying in 2 s', share: null });
    expect(syncBar({ ...p, phase: 'pull', done: 3, total: 12 }, true)).toEqual({ text: 'pull 3/12', share: 0.25 });
  });
  it('says a service that accepts connections and does not answer is not answering, from the progress of the run on', () => {
    expect(connectionLabel('silent', null)).toBe('Not answering');
    const p = { account: 'acc-1', phase: 'waiting', done: 0, total: 0, bytes: 0 };
    expect(connectionOnProgress('online', { ...p, notAnswering: 'http://h:1 accepts connections but is not answering (no answer in time)' })).toBe('silent');
    // Progress that does not say so leaves the connection as it was (the run's end decides).
    expect(connectionOnProgress('online', p)).toBe('online');
    expect(connectionOnProgress('silent', p)).toBe('silent');
    expect(notAnsweringMessage(2, 'http://h:1 accepts connections but is not answering (no answer in time)'))
      .toBe('Not answering: your 2 changes are kept here and sent by themselves once the service answers: http://h:1 accepts connections but is not answering (no answer in time).');
  });
});

describe('deletions held', () => {
  it('says the first held deletion, how many more, and where to apply them', () => {
    const one = "the service deleted 11 of the 12 parcels synced here in farm 'Hof': nothing was deleted here";
    expect(heldMessage([one], 'C')).toBe(`Held: ${one}. If the service is right, apply them in Sync details (C).`);
    expect(heldMessage([`${one}.`, 'another'], null)).toBe(`Held: ${one} (and 1 more). If the service is right, apply them in Sync details.`);
  });

  it('keeps what each account\'s last finished pull held; a sync that held nothing clears it, one whose pull stopped leaves it', () => {
    noteHeld([{ account: 'a', deletionsHeld: ['x'] }, { account: 'b', deletionsHeld: ['y'] }]);
    noteHeld([{ account: 'a', deletionsHeld: [] }, { account: 'b', deletionsHeld: [], pullNotDone: 'could not reach it' }]);
    expect(useHeld.getState().byAccount).toEqual({ a: [], b: ['y'] });
  });
});
