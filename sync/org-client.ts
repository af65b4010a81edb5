// An organization's own requests to its service, with its API key (never an account's token): its accounts listed,
// one created by e-mail, an account's farms read and deleted, an account deactivated.
import { Type } from '@sinclair/typebox';
import { expectShape, SchemaMismatch } from '../core/schemas/check.ts';
import { ServiceClient, errorMessage, isAccountNotFound, type HttpResponse } from './http.ts';
import { OrgRefused, organizationOf, type OrgKey } from './organization.ts';

const ServiceAccount = Type.Object({
  id: Type.String({ minLength: 1 }), account_email: Type.String(),
  state: Type.Optional(Type.String()), deactivated: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
const ServiceFarm = Type.Object({ id: Type.Integer(), name: Type.String(), parcel_count: Type.Integer(), hectares: Type.Number() });
const Created = Type.Object({ id: Type.String({ minLength: 1 }), account_email: Type.String() });

export interface ServiceAccountRow { id: string; email: string; state: 'active' | 'deactivated'; deactivated: string | null }
export interface ServiceFarmRow { id: number; name: string; parcels: number; hectares: number }

function shape<T extends Parameters<typeof expectShape>[0]>(schema: T, res: HttpResponse, what: string) {
  try {
    return expectShape(schema, res.body, what);
  } catch (err) {
    if (err instanceof SchemaMismatch) throw new OrgRefused(`The service's answer is not what the API describes (${err.message})`, 'unexpected');
    throw err;
  }
}

function refusal(res: HttpResponse, what: string): OrgRefused {
  if (res.status === 403 && isAccountNotFound(res.body)) return new OrgRefused('Account not found', 'account_not_found');
  if (res.status === 401) return new OrgRefused(`The service refused the organization's API key: ${errorMessage(res)}`, 'unknown_key');
  return new OrgRefused(`${what}: the service answered ${errorMessage(res)}`, 'refused');
}

/**
 * The organization's requests; `account` adds the account header (acting for that account with the key). Closed
 * by `close()`. Network failures are sync/http.ts NetworkErrors.
 */
export class OrgClient {
  private readonly clients = new Map<string, ServiceClient>();
  constructor(private readonly key: Pick<OrgKey, 'service' | 'apiKey' | 'accountHeader'>, private readonly opts: { timeoutMs?: number; deadlineMs?: number } = {}) {}

  private client(account = ''): ServiceClient {
    let c = this.clients.get(account);
    if (!c) {
      // Short waits: these answer a person looking at the screen, and change nothing when they fail.
      c = new ServiceClient({
        baseUrl: this.key.service, accountId: account, timeoutMs: this.opts.timeoutMs ?? 20_000, deadlineMs: this.opts.deadlineMs ?? 30_000,
        credentials: { mode: 'api_key', apiKey: this.key.apiKey, accountHeader: this.key.accountHeader },
      });
      this.clients.set(account, c);
    }
    return c;
  }

  async accounts(): Promise<ServiceAccountRow[]> {
    const res = await this.client().send('GET', '/api/accounts/');
    if (res.status !== 200) throw refusal(res, 'Listing the accounts');
    return shape(Type.Array(ServiceAccount), res, 'the account list').map((a) => ({
      id: a.id, email: a.account_email, state: a.state === 'deactivated' ? 'deactivated' : 'active', deactivated: a.deactivated ?? null,
    }));
  }

  /**
   * Who the key speaks for (GET /api/organization/, our service's extension: docs/api.md), or null where the service
   * does not offer it (the hosted original: 404).
   */
  async organization(): Promise<{ id: string; name: string } | null> {
    const res = await this.client().send('GET', '/api/organization/');
    if (res.status === 404 || res.status === 405) return null;
    if (res.status !== 200) throw refusal(res, 'Reading the organization');
    const who = organizationOf(res.body);
    if (!who) throw new OrgRefused("The service's answer is not what the API describes (the organization: an id and a name)", 'unexpected');
    return who;
  }

  /** One account of the organization, or OrgRefused account_not_found (another organization's is not found either). */
  async account(id: string): Promise<ServiceAccountRow> {
    const res = await this.client().send('GET', `/api/accounts/${encodeURIComponent(id)}/`);
    if (res.status !== 200) throw refusal(res, 'Reading the account');
    const a = shape(ServiceAccount, res, 'the account');
    if (a.id !== id) throw new OrgRefused(`The service answered for account ${a.id} when asked for ${id}`, 'unexpected');
    return { id: a.id, email: a.account_email, state: a.state === 'deactivated' ? 'deactivated' : 'active', deactivated: a.deactivated ?? null };
  }

  /** POST /api/accounts/ with the e-mail, the only field the spec sends. */
  async create(email: string): Promise<{ id: string; email: string }> {
    const res = await this.client().send('POST', '/api/accounts/', { account_email: email });
    if (res.status === 409) throw new OrgRefused(errorMessage(res), 'email_taken');
    if (res.status === 400) throw new OrgRefused(`The service refused the e-mail: ${errorMessage(res)}`, 'invalid_email');
    if (res.status !== 201 && res.status !== 200) throw refusal(res, 'Creating the account');
    const a = shape(Created, res, 'the created account');
    return { id: a.id, email: a.account_email };
  }

  /** The account's farms as the service lists them, with their parcels and hectares. */
  async farms(account: string): Promise<ServiceFarmRow[]> {
    const res = await this.client(account).send('GET', '/api/farms/');
    if (res.status !== 200) throw refusal(res, "Listing the account's farms");
    return shape(Type.Array(ServiceFarm), res, 'the farm list').map((f) => ({ id: f.id, name: f.name, parcels: f.parcel_count, hectares: f.hectares }));
  }

  /** DELETE /api/farms/{id}/ for the account: its parcels, crops and plants go with it. A farm already gone counts as deleted. */
  async deleteFarm(account: string, farm: number): Promise<void> {
    const res = await this.client(account).send('DELETE', `/api/farms/${farm}/`);
    if (res.status !== 204 && res.status !== 200 && res.status !== 404) throw refusal(res, `Deleting farm ${farm}`);
  }

  /** DELETE /api/accounts/{id}/: the spec's soft delete (deactivation). */
  async deactivate(account: string): Promise<void> {
    const res = await this.client().send('DELETE', `/api/accounts/${encodeURIComponent(account)}/`);
    if (res.status !== 204 && res.status !== 200) throw refusal(res, 'Deactivating the account');
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.close()));
    this.clients.clear();
  }
}
