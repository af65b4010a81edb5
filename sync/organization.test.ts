// The one reading of who a key speaks for (organizationOf): what connecting, the organization's client and the
// credential store all take from GET /api/organization/'s answer, or from what an older build kept of it.
import { describe, expect, it } from 'vitest';
import { organizationOf, organizationsOf } from './organization.ts';
import type { AccountRow } from '../db/types.ts';

describe('organizationOf', () => {
  it('takes an id and a name, cleaned for display', () => {
    expect(organizationOf({ id: 'org-1', name: 'Furrow Demo Co-op', extra: true })).toEqual({ id: 'org-1', name: 'Furrow Demo Co-op' });
    expect(organizationOf({ id: 'org-1', name: 'Evil\u202e\u001b[31m Co-op' })).toEqual({ id: 'org-1', name: 'Evil [31m Co-op' });
    expect(organizationOf({ id: 'org-1', name: 'N'.repeat(500) })!.name).toHaveLength(200);
  });

  it('refuses any other shape, an empty or overlong id and an overlong name', () => {
    for (const body of [null, undefined, 'org-1', [], {}, { id: 'org-1' }, { name: 'x' }, { id: 1, name: 'x' }, { id: 'org-1', name: null },
      { id: '', name: 'x' }, { id: 'i'.repeat(201), name: 'x' }, { id: 'org-1', name: 'n'.repeat(501) }]) {
      expect(organizationOf(body), JSON.stringify(body)).toBeNull();
    }
  });

  it('is how the store reads what it kept: a hand-edited entry is shown bounded and clean, a broken one not at all', () => {
    const account = (id: string): AccountRow => ({ id, service_url: 'http://s', mode: 'api_key', label: '', blocked: null, blocked_code: null, last_pull: null, change_cursor: null, read_after: null, created: '' });
    const orgs = organizationsOf({
      a: { method: 'api_key', apiKey: 'k1', organization: { id: 'org-1', name: 'Co-op\u0007' } },
      b: { method: 'api_key', apiKey: 'k2', organization: { id: 7, name: 'x' } as never },
    }, [account('a'), account('b')]);
    expect([...orgs.values()].map((o) => o.known)).toEqual([{ id: 'org-1', name: 'Co-op' }, null]);
  });
});
