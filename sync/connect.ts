// Connecting an account on this computer: the credentials are proved against the service (one listing of its
// farms) before they are kept, in the credential store (never in the mirror), and the account is added.
import type { Mirror } from '../db/mirror.ts';
import type { AccountRow } from '../db/types.ts';
import { clientFactory } from './client-factory.ts';
import type { AccountCredentials, CredentialStore } from './credentials.ts';
import { errorMessage } from './http.ts';
import { tokenExpiry, tokenSubject } from './tokens.ts';
import { serviceAddress } from '../core/accounts/service-address.ts';
import { displayText } from '../core/accounts/display-text.ts';
import { organizationOf } from './organization.ts';
import type { DurationOptions } from './context.ts';

export interface ConnectInput {
  service: string;
  /** An account_access token (the account is the token's subject)… */
  token?: string;
  /** …kept fresh by running this command, */
  tokenCommand?: string;
  /** …or the organization's API key for this account. */
  apiKey?: string;
  account?: string;
  /** The account header's name, when the service calls it something else than Service-Account. */
  accountHeader?: string;
  /** With the API key: fetch bearer tokens with it instead of sending it with every request. */
  bearer?: boolean;
  label?: string;
}

export class ConnectRefused extends Error {
  constructor(message: string, readonly code: 'bad_input' | 'refused') {
    super(message);
    this.name = 'ConnectRefused';
  }
}

/** The service address as an account keeps it, or ConnectRefused bad_input. */
function serviceUrl(text: string): string {
  const a = serviceAddress(text);
  if ('problem' in a) throw new ConnectRefused(a.problem, 'bad_input');
  return a.service;
}

/** The account's e-mail as the service lists it (the spec's GET /api/accounts/{id}/), or undefined when it will not say. */
async function accountEmail(client: { send(method: string, path: string): Promise<{ status: number; body: unknown }> }, id: string): Promise<string | undefined> {
  const res = await client.send('GET', `/api/accounts/${encodeURIComponent(id)}/`).catch(() => null);
  const email = res?.status === 200 ? (res.body as { account_email?: unknown }).account_email : undefined;
  return typeof email === 'string' && email.length <= 254 ? displayText(email) || undefined : undefined;
}

/** The account a token is for (its `sub`), or null when it is not an account_access token. */
export const tokenAccount = (token: string): string | null => tokenSubject(token);

export async function connectAccount(m: Mirror, store: CredentialStore, input: ConnectInput, durations: DurationOptions = {}): Promise<{ account: AccountRow; tokenExpires: string | null }> {
  const service = serviceUrl(input.service);
  let accountId: string;
  let creds: AccountCredentials;
  if (input.token) {
    const sub = tokenAccount(input.token);
    if (!sub) throw new ConnectRefused('The token is not an account_access token', 'bad_input');
    accountId = sub;
    creds = { method: 'bearer', token: input.token, ...(input.tokenCommand ? { tokenCommand: input.tokenCommand } : {}) };
  } else {
    if (!input.account || !input.apiKey) throw new ConnectRefused('Connecting with an API key needs the account too', 'bad_input');
    accountId = input.account;
    creds = { method: input.bearer ? 'bearer' : 'api_key', apiKey: input.apiKey, ...(input.accountHeader ? { accountHeader: input.accountHeader } : {}) };
  }
  const { timeoutMs, deadlineMs, maxAnswerBytes } = durations;
  const client = clientFactory({ [accountId]: creds }, { timeoutMs, deadlineMs, maxAnswerBytes })({ id: accountId, service_url: service, mode: creds.method, label: '', blocked: null, blocked_code: null, last_pull: null, change_cursor: null, read_after: null, created: '' });
  let label = input.label?.trim() || undefined;
  try {
    const res = await client.send('GET', '/api/farms/');
    if (res.status !== 200) throw new ConnectRefused(`The service refused the credentials: ${errorMessage(res)}`, 'refused');
    // Named by its e-mail when not by the user: an account is never shown by its raw id.
    label ??= await accountEmail(client, accountId);
    if (creds.apiKey) {
      const who = await client.send('GET', '/api/organization/').catch(() => null);
      // Not offered (the hosted original) or not understood: the account connects all the same, its organization unnamed.
      const organization = who?.status === 200 ? organizationOf(who.body) : null;
      if (organization) creds = { ...creds, organization };
    }
  } finally {
    await client.close();
  }
  store.save(accountId, creds);
  const account = m.write.addAccount({ id: accountId, service_url: service, mode: creds.method, label });
  const exp = input.token ? tokenExpiry(input.token) : null;
  return { account, tokenExpires: exp ? new Date(exp * 1000).toISOString() : null };
}
