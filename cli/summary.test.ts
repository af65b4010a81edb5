// The pull's part of a sync run's words: how the pull went (the changes since the last pull, or listed in full), the
// bytes that came over the wire, and why a kept cursor was not used. A real mirror file (the problems it lists).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mirror } from '../db/mirror.ts';
import type { AccountSync } from '../core/api.ts';
import { accountLine, byteSize, summarizeRun } from './summary.ts';

let dir: string;
let mirror: Mirror;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'furrow-summary-'));
  mirror = Mirror.open(join(dir, 'mirror.db'));
});
afterAll(() => {
  mirror.close();
  rmSync(dir, { recursive: true, force: true });
});

const synced = (over: Partial<AccountSync>): AccountSync => ({
  account: 'acc-1', service: 'http://s', synced: true, cancelled: false, error: null, blocked: null, blockedCode: null, unreachable: null,
  sent: 0, committed: 0, rejected: 0, conflicts: 0, pulled: 0, received: 0, removed: 0, plantsChanged: 0, left: 0, waitingWhy: null, pullNotDone: null,
  pullStopped: null, deletionsHeld: [], ...over,
});

describe('the pull in the run summary', () => {
  it('says how the pull went and the bytes on the wire; nothing of it when there was no pull', () => {
    expect(accountLine(synced({ pulled: 50000, pullKind: 'full', bytesReceived: 17_300_000 })).line)
      .toBe('acc-1: 0 changes acknowledged by the service, 50000 parcels pulled (listed in full, 16.5 MB on the wire)');
    expect(accountLine(synced({ pulled: 0, pullKind: 'changes', bytesReceived: 1203 })).line)
      .toBe('acc-1: 0 changes acknowledged by the service (changes since the last pull, 1203 B on the wire)');
    expect(accountLine(synced({ committed: 3, pullKind: null, bytesReceived: 900 })).line).toBe('acc-1: 3 changes acknowledged by the service');
    // A pull's line: what it brought, not what the service acknowledged (it sent nothing).
    expect(accountLine(synced({ pulled: 4, removed: 6, pullKind: 'changes', bytesReceived: 900 }), undefined, false).line)
      .toBe('acc-1: 4 parcels pulled, 6 removed (deleted on the service) (changes since the last pull, 900 B on the wire)');
    expect(accountLine(synced({ pullKind: 'changes', bytesReceived: 900 }), undefined, false).line).toBe('acc-1: nothing new (changes since the last pull, 900 B on the wire)');
    // What the service deleted is said apart (a farm of 2,000 parcels deleted there: 2,001 removed here).
    expect(accountLine(synced({ pulled: 4, removed: 2001, pullKind: 'changes', bytesReceived: 4548 })).line)
      .toBe('acc-1: 0 changes acknowledged by the service, 4 parcels pulled, 2,001 removed (deleted on the service) (changes since the last pull, 4548 B on the wire)');
  });

  it('a refused cursor is said on a line of its own', () => {
    const s = summarizeRun({ accounts: [synced({ pulled: 12, pullKind: 'full', bytesReceived: 40_000, pullNote: 'the change feed no longer goes back to the last pull (cursor_expired): listing everything again' })] }, mirror);
    expect(s.out).toEqual([
      'acc-1: 0 changes acknowledged by the service, 12 parcels pulled (listed in full, 39 KB on the wire)',
      '  pull: the change feed no longer goes back to the last pull (cursor_expired): listing everything again.',
    ]);
    expect(s.exit).toBe(0);
  });

  it('sizes read at a glance', () => {
    expect([byteSize(0), byteSize(10_239), byteSize(10_240), byteSize(10_485_760)]).toEqual(['0 B', '10239 B', '10 KB', '10.0 MB']);
  });
});

describe('the exit code of a pull', () => {
  it('is not 1 for changes waiting here, which a pull never sends; a sync is', () => {
    const waiting = { accounts: [synced({ left: 5, pullKind: 'changes', bytesReceived: 900 })] };
    expect(summarizeRun(waiting, mirror).exit).toBe(1);
    expect(summarizeRun(waiting, mirror, { pushed: false }).exit).toBe(0);
  });
});
