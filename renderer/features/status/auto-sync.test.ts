import { describe, expect, it } from 'vitest';
import { AUTO_SYNC_MS, OFFLINE_RETRY_CAP_MS, announce, nextAutoSyncMs, type SyncOutcome } from './auto-sync.ts';

const mid = () => 0.5; // no jitter

describe('when the app syncs by itself', () => {
  it('every minute online; offline sooner at first, then twice as long each time up to the cap', () => {
    expect(nextAutoSyncMs(0, mid)).toBe(AUTO_SYNC_MS);
    expect([1, 2, 3, 4, 5, 9].map((n) => nextAutoSyncMs(n, mid))).toEqual([5_000, 10_000, 20_000, 30_000, 30_000, 30_000]);
  });

  it('with jitter of ±20 % so that many apps coming back together do not knock at once', () => {
    expect(nextAutoSyncMs(1, () => 0)).toBe(4_000);
    expect(nextAutoSyncMs(1, () => 0.999999)).toBe(6_000);
    expect(nextAutoSyncMs(20, () => 0.999999)).toBeLessThanOrEqual(OFFLINE_RETRY_CAP_MS * 1.2);
  });
});

const offline: SyncOutcome = { connection: 'offline', text: 'Offline: the service could not be reached (x).', error: true, news: true };
const upToDate: SyncOutcome = { connection: 'online', text: 'Synced: up to date, nothing changed.', error: false, news: false };
const sent: SyncOutcome = { connection: 'online', text: 'Synced: 1 sent.', error: false, news: true };
const blocked: SyncOutcome = { connection: 'online', text: 'Sync needs you: token expired', error: true, news: true };

describe('what an automatic sync says', () => {
  it('a sync the user asked for always speaks', () => {
    expect(announce(false, 'online', upToDate, null)).toBe(true);
    expect(announce(false, 'offline', offline, offline.text)).toBe(true);
  });

  it('going offline is said once, not at every retry while the service stays away', () => {
    expect(announce(true, 'online', offline, null)).toBe(true);
    expect(announce(true, 'unknown', offline, null)).toBe(true);
    expect(announce(true, 'offline', offline, offline.text)).toBe(false);
    // Even after the user's own try said it: still offline is not news.
    expect(announce(true, 'offline', offline, null)).toBe(false);
  });

  it('a service not answering is said once, as going offline is', () => {
    const silent: SyncOutcome = { connection: 'silent', text: 'Not answering: …', error: true, news: true };
    expect(announce(true, 'online', silent, null)).toBe(true);
    expect(announce(true, 'silent', silent, null)).toBe(false);
    expect(announce(true, 'silent', upToDate, silent.text)).toBe(true);
  });

  it('coming back is said, even with nothing to send', () => {
    expect(announce(true, 'offline', upToDate, offline.text)).toBe(true);
  });

  it('online, only news: something sent or received, a new problem; never an "up to date" over the message being read', () => {
    expect(announce(true, 'online', upToDate, null)).toBe(false);
    expect(announce(true, 'unknown', upToDate, null)).toBe(false);
    expect(announce(true, 'online', sent, null)).toBe(true);
    expect(announce(true, 'online', blocked, null)).toBe(true);
    expect(announce(true, 'online', blocked, blocked.text)).toBe(false);
  });
});
