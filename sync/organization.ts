// The organizations whose API key this computer holds (sync/credentials.ts): with an account connected by it, or
// kept alone (addOrganization). Their requests to the service are sync/org-client.ts's (loaded when one is made).
import { createHash } from 'node:crypto';
import type { AccountRow } from '../db/types.ts';
import type { AccountCredentials } from './credentials.ts';
import { displayText } from '../core/accounts/display-text.ts';

/**
 * Who a key speaks for, from an answer of GET /api/organization/ (our service's extension, docs/api.md) or from what
 * the credential store kept of one (by an older build, or edited by hand): cleaned and bounded for display, or null
 * when it is not that shape. The one reading of that answer, for connecting, the organization's client and the store.
 */
export function organizationOf(body: unknown): { id: string; name: string } | null {
  const b = body as { id?: unknown; name?: unknown } | null | undefined;
  if (typeof b?.id !== 'string' || typeof b.name !== 'string') return null;
  if (b.id.length === 0 || b.id.length > 200 || b.name.length > 500) return null;
  return { id: displayText(b.id), name: displayText(b.name) };
}

/** An organization's key for a service, and how the accounts connected through it authenticate. */
export interface OrgKey {
  id: string;
  service: string;
  apiKey: string;
  accountHeader?: string;
  method: 'api_key' | 'bearer';
  /** The credential store's entry holding the key alone (addOrganization), if any. */
  entry: string | null;
  /** Accounts connected here with this key. */
  via: string[];
  /** Who the service said the key speaks for, when it was last asked (GET /api/organization/). */
  known: { id: string; name: string } | null;
}

/** The organization's name in the app's API: a digest of the service and the key, from which neither can be read back. */
export const organizationId = (service: string, apiKey: string): string =>
  `org-${createHash('sha256').update(`furrow-organization\n${service}\n${apiKey}`).digest('hex').slice(0, 16)}`;

/** Whether a credential store entry is an organization's key kept alone (its name is the organization's id). */
export const isOrgEntry = (name: string): boolean => name.startsWith('org-');

/** Every organization whose key the store holds, alone or with accounts connected by it, by id. */
export function organizationsOf(creds: Record<string, AccountCredentials>, accounts: readonly AccountRow[]): Map<string, OrgKey> {
  const out = new Map<string, OrgKey>();
  const add = (service: string, c: AccountCredentials, entry: string | null, via: string | null) => {
    if (!c.apiKey) return;
    const id = organizationId(service, c.apiKey);
    const o = out.get(id) ?? { id, service, apiKey: c.apiKey, accountHeader: c.accountHeader, method: c.method, entry: null, via: [], known: null };
    if (entry) o.entry = entry;
    // As kept (by an older build, or edited by hand): shown only bounded and clean.
    if (!o.known) o.known = organizationOf(c.organization);
    if (via) o.via.push(via);
    out.set(id, o);
  };
  for (const [name, c] of Object.entries(creds)) if (isOrgEntry(name) && c.service) add(c.service, c, name, null);
  for (const a of accounts) {
    const c = creds[a.id];
    if (c) add(a.service_url, c, null, a.id);
  }
  return out;
}

/** The service refused (or could not be understood): `code` says how, the message is the service's reason. */
export class OrgRefused extends Error {
  /** `unknown_key`: the service answered 401 — it does not know the key (its data reset, or another service at the address). */
  constructor(message: string, readonly code: 'invalid_email' | 'email_taken' | 'account_not_found' | 'refused' | 'unknown_key' | 'unexpected') {
    super(message);
    this.name = 'OrgRefused';
  }
}

