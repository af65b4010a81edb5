import { describe, expect, it } from 'vitest';
import type { AccountSummary, DeactivationPreview } from '../../../core/api.ts';
import { accountChoices, accountNames, deactivationWords, duration, hereWords, orgTitles, tokenWords, unsentExportWords, unsentWords } from './account-words.ts';

const NOW = Date.parse('2026-05-01T12:00:00Z');
const token = (minutes: number | null, source: 'pasted' | 'url' | 'organization' = 'pasted') => ({
  account: 'acc-1', source, provider: null,
  expires: minutes === null ? null : new Date(NOW + minutes * 60_000).toISOString(), expired: minutes !== null && minutes <= 0,
});
const counts = { pending: 0, in_flight: 0, uncertain: 0, synced: 12, rejected: 0, conflicts: 0, blocked: 0 };
const account = (over: Partial<AccountSummary> = {}): AccountSummary => ({
  id: 'acc-1', label: 'g@example.com', service: 'http://s', method: 'bearer', blocked: null, lastPull: '2026-05-01T10:00:00Z', parcelLimit: 100, counts, ...over,
});

describe('the Accounts screen words', () => {
  it("says a token's expiry, warning when near and when over", () => {
    expect(tokenWords(token(179), NOW)).toMatchObject({ text: expect.stringMatching(/^Expires in 2 h 59 min \(\d\d:\d\d\)$/), level: 'ok' });
    expect(tokenWords(token(12), NOW)).toMatchObject({ text: expect.stringMatching(/^Expires in 12 min/), level: 'near' });
    expect(tokenWords(token(-5), NOW)).toMatchObject({ text: expect.stringMatching(/^Expired 5 min ago/), level: 'expired' });
    expect(tokenWords(token(null), NOW)).toEqual({ text: 'No expiry known', level: 'none' });
    expect(tokenWords(token(30, 'organization'), NOW).text).toBe("Renewed with the organization's key");
    expect([duration(30_000), duration(61 * 60_000), duration(3 * 24 * 3600_000)]).toEqual(['under a minute', '1 h 01 min', '3 days']);
  });

  it("says an account's state here", () => {
    expect(hereWords(account())).toEqual({ text: 'Synced (12 items)', level: 'ok' });
    expect(hereWords(account({ counts: { ...counts, pending: 3, rejected: 1 } }))).toEqual({ text: '3 to send, 1 need a look', level: 'attention' });
    expect(hereWords(account({ lastPull: null }))).toMatchObject({ text: 'Not pulled yet' });
    const blocked = { account: 'acc-1', service: 'http://s', code: 'invalid_token' as const, reason: 'Invalid token (no fresh one could be had)', waiting: 3 };
    expect(hereWords(account({ blocked }))).toEqual({ text: 'Blocked: Invalid token (no fresh one could be had)', level: 'attention' });
  });

  it('states the orphan consequence of a deactivation with counts and hectares', () => {
    const p: DeactivationPreview = {
      organization: 'org-0000000000000000', account: 'acc-1', email: 'g@example.com', connectedHere: true, unsynced: 0,
      farms: [{ id: 1, name: 'North', parcels: 2, hectares: 6.5 }, { id: 2, name: 'South', parcels: 1, hectares: 10 }], parcels: 3, hectares: 16.5,
    };
    const w = deactivationWords(p);
    expect(w.consequence).toBe("Its 2 farms with 3 parcels (16.50 ha) stay on the service and keep being billed, but no one can reach them through the API any more: billed orphans, until the organization reactivates the account or deletes them in the service's admin panel.");
    expect(w.deleteOption).toBe('Delete its 2 farms with 3 parcels (16.50 ha) first: gone for good, no longer billed');
    expect(w.here).toMatch(/removed from this computer too \(nothing/);
    expect(deactivationWords({ ...p, unsynced: 1 }).here).toMatch(/with 1 change made here that the service does not have: they are lost/);
    const none = deactivationWords({ ...p, farms: [], parcels: 0, hectares: 0, connectedHere: false });
    expect(none).toMatchObject({ deleteOption: null, here: null, consequence: expect.stringMatching(/no farms on the service: nothing of it stays billed/) });
  });
});

describe('the account chooser', () => {
  it('names each account by its label and service, and tells twins apart by their ids', () => {
    const old = account({ id: 'acc-0000-aaaaaa', label: 'Demo grower' });
    const now = account({ id: 'acc-1111-bbbbbb', label: 'Demo grower' });
    const other = account({ id: 'acc-2222-cccccc', label: 'Other' });
    const names = accountChoices([old, now, other]);
    expect(names.get(other.id)).toBe('Other · http://s');
    expect(names.get(old.id)).toBe('Demo grower (…aaaaaa) · http://s');
    expect(names.get(now.id)).toBe('Demo grower (…bbbbbb) · http://s');
    expect(accountChoices([now, account({ id: 'acc-3', label: 'Demo grower', service: 'http://t' })]).get(now.id)).toBe('Demo grower · http://s');
  });
});

describe('orgTitles', () => {
  const org = (id: string, name: string | null, remoteId: string | null, service = 'http://s') => ({ id, name, remoteId, service });
  it('names an organization by its name on the service, "Organization" when never told', () => {
    const t = orgTitles([org('org-a', 'Agro Sur', 'o1'), org('org-b', null, null, 'http://other')]);
    expect(t.get('org-a')).toBe('Agro Sur at http://s');
    expect(t.get('org-b')).toBe('Organization at http://other');
  });
  it("adds the end of each id where two read alike, and only there", () => {
    const t = orgTitles([org('org-a', 'Co-op', 'org_aaaa111111'), org('org-b', 'Co-op', 'org_bbbb222222'), org('org-c', 'Co-op', 'x', 'http://t')]);
    expect(t.get('org-a')).toBe('Co-op (…111111) at http://s');
    expect(t.get('org-b')).toBe('Co-op (…222222) at http://s');
    expect(t.get('org-c')).toBe('Co-op at http://t');
    // Never named: the app's own id's end tells them apart.
    const u = orgTitles([org('org-0000000000aaaaaa', null, null), org('org-0000000000bbbbbb', null, null)]);
    expect([...u.values()]).toEqual(['Organization (…aaaaaa) at http://s', 'Organization (…bbbbbb) at http://s']);
  });
});

describe('unsentWords', () => {
  const counts = { pending: 0, in_flight: 0, uncertain: 0, synced: 9, rejected: 0, conflicts: 0, blocked: 0 };
  it('counts every change the service never got, and conflicts', () => {
    expect(unsentWords(counts)).toBeNull();
    expect(unsentWords({ ...counts, pending: 1 })).toBe('1 change not sent');
    expect(unsentWords({ ...counts, pending: 1, blocked: 2, uncertain: 1, rejected: 1, conflicts: 2 })).toBe('5 changes not sent, 2 conflicts');
  });
});

describe('accountNames', () => {
  it("names each account by its label, with its id's end only where two read the same", () => {
    const names = accountNames([{ id: 'acc-1-aaaaaa', label: 'Demo grower' }, { id: 'acc-2-bbbbbb', label: 'Demo grower' }, { id: 'acc-3-cccccc', label: '' }]);
    expect([...names.values()]).toEqual(['Demo grower (…aaaaaa)', 'Demo grower (…bbbbbb)', 'acc-3-cccccc']);
  });

  it("says what an export of a stale account's unsent work holds, and what no file of parcels can", () => {
    expect(unsentExportWords('Demo grower (…621a12)', { parcels: 3, fileName: 'Demo grower unsent.geojson', otherUnsent: 0 }))
      .toBe('Exported the 3 parcels with changes Demo grower (…621a12) never sent to Demo grower unsent.geojson.');
    expect(unsentExportWords('North', { parcels: 1, fileName: 'North unsent.csv', otherUnsent: 1 }))
      .toBe("Exported the 1 parcel with changes North never sent to North unsent.csv. 1 other change (a farm's, a crop's or a deletion) is not a parcel and cannot be exported.");
    expect(unsentExportWords('North', { parcels: 0, fileName: 'x', otherUnsent: 2 })).toMatch(/^No parcel of North has unsent changes: nothing to export\. 2 other changes .* are not parcels/);
  });
});
