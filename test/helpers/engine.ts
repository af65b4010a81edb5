// Helpers for the sync engine's integration tests (sync/*.test.ts): engines with a recording client, and
// reading back what the real service holds.
import { expect } from 'vitest';
import type { SyncWorld } from './sync.ts';
import { JsonText, ServiceClient, type ClientOptions, type Credentials, type HttpResponse } from '../../sync/http.ts';
import { SyncEngine } from '../../sync/engine.ts';
import type { SyncOptions } from '../../sync/context.ts';
import type { AccountRow, FarmRow } from '../../db/types.ts';
import type { Mirror } from '../../db/mirror.ts';

/**
 * One request as the engine sent it. `seq` and `doneSeq` order sends and answers on one counter (so "sent before
 * that one was answered" is exact, never a tie of milliseconds); `time` is the engine's clock when it was sent.
 */
export interface SentRequest { account: string; method: string; path: string; parcels: number | null; status: number | 'network'; seq: number; doneSeq?: number; time: number }

let counter = 0;

/** Called before a request leaves; what it awaits holds the request back (to make an overlap certain, say). */
export type Gate = (entry: SentRequest, log: readonly SentRequest[]) => Promise<void> | void;

/** A ServiceClient that records every request it sends (with the parcel count of bulk creates) and its outcome. */
export class RecordingClient extends ServiceClient {
  constructor(opts: ClientOptions, private readonly log: SentRequest[], private readonly clock: () => number = Date.now, private readonly gate?: Gate) {
    super(opts);
  }

  override async send(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<HttpResponse> {
    const sent = body instanceof JsonText ? JSON.parse(body.text) as unknown : body;
    const parcels = sent && typeof sent === 'object' && Array.isArray((sent as { parcels?: unknown }).parcels) ? (sent as { parcels: unknown[] }).parcels.length : null;
    const entry: SentRequest = { account: this.accountId, method, path, parcels, status: 'network', seq: ++counter, time: this.clock() };
    this.log.push(entry);
    try {
      await this.gate?.(entry, this.log);
      const res = await super.send(method, path, body);
      entry.status = res.status;
      return res;
    } finally {
      entry.doneSeq = ++counter;
    }
  }
}

/**
 * The engine's clock and sleep without real waiting: sleeping moves the clock on at once. Only for runs whose
 * waits are the engine's own (backoff, Retry-After, settling after a refusal): a wait for the service to finish
 * something needs real time.
 */
export function fakeClock(start = Date.now()): { now: () => number; sleep: (ms: number) => Promise<void>; slept: number[] } {
  let t = start;
  const slept: number[] = [];
  return {
    now: () => t,
    sleep: async (ms) => {
      slept.push(ms);
      t += ms;
      await Promise.resolve();
    },
    slept,
  };
}

export interface EngineOptions {
  /** Client timeout (headers and body) in ms: past it a write is uncertain. */
  timeoutMs?: number;
  /** Credentials per account; the API key + account header by default. */
  credentials?: (a: AccountRow) => Credentials;
  sync?: Partial<SyncOptions>;
  /** Another mirror than the world's (a reopened file). */
  mirror?: Mirror;
  gate?: Gate;
  /** The client's answer cap (ServiceClientOptions.maxAnswerBytes). */
  maxAnswerBytes?: number;
}

/** An engine over the world's mirror whose requests land in `log`. Short settle and backoff, as in syncWorld's engine(). */
export function recordingEngine(w: SyncWorld, log: SentRequest[], o: EngineOptions = {}): SyncEngine {
  return new SyncEngine(o.mirror ?? w.mirror, (a) => new RecordingClient({
    baseUrl: a.service_url, accountId: a.id, timeoutMs: o.timeoutMs ?? 5_000, maxAnswerBytes: o.maxAnswerBytes,
    credentials: o.credentials?.(a) ?? { mode: 'api_key', apiKey: w.apiKey },
  }, log, o.sync?.now, o.gate), { settleMs: 300, backoffBaseMs: 20, backoffCapMs: 200, maxWaitMs: 20_000, ...o.sync });
}

/** An account (new unless given) with a farm already on the service, so that new parcels go out through POST /api/parcels/. */
export async function farmOnService(w: SyncWorld, name: string, mirror: Mirror = w.mirror, acc?: string): Promise<{ acc: string; farm: FarmRow }> {
  const account = acc ?? await w.account();
  const local = mirror.write.createFarm(account, name);
  const r = await recordingEngine(w, [], { mirror }).sync({ accounts: [account] });
  expect(r.accounts[0]).toMatchObject({ synced: true });
  const farm = mirror.read.farm(local.local_id)!;
  expect(farm.server_id).not.toBeNull();
  return { acc: account, farm };
}

export const posts = (log: readonly SentRequest[], path: string) => log.filter((r) => r.method === 'POST' && r.path === path);

export interface ServiceParcel {
  id: number;
  geometry: { type: 'Polygon'; coordinates: number[][][] };
  properties: { key: string; name: string; farm: number; hectares: number; metadata: Record<string, unknown>; source_type: string; point: number[] | null };
}

/** Acting for an account with the API key. */
export const as = (accountId: string) => ({ 'service-account': accountId });

/** Every parcel of a farm on the service (GET /api/farms/{id}/parcels/). */
export async function serviceParcels(w: SyncWorld, accountId: string, farmServerId: number): Promise<ServiceParcel[]> {
  const r = await w.api('GET', `/api/farms/${farmServerId}/parcels/`, undefined, as(accountId));
  if (r.status !== 200) throw new Error(`listing farm ${farmServerId}: ${r.status} ${JSON.stringify(r.body)}`);
  return (r.body as { features: ServiceParcel[] }).features;
}

/** Client references on the service with how often each occurs. */
export function refCounts(parcels: readonly ServiceParcel[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const p of parcels) {
    const ref = p.properties.metadata.furrow_ref;
    if (typeof ref === 'string') m.set(ref, (m.get(ref) ?? 0) + 1);
  }
  return m;
}

/** The service's farms of an account. */
export async function serviceFarms(w: SyncWorld, accountId: string): Promise<{ id: number; name: string }[]> {
  const r = await w.api('GET', '/api/farms/', undefined, as(accountId));
  if (r.status !== 200) throw new Error(`farms: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as { id: number; name: string }[];
}

/** Waits until `check` holds (polling), for work the service finishes after answering (a delayed request). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Clears every injected fault (the helper's fault() cannot send the bare reset body). */
export async function resetFaults(w: SyncWorld): Promise<void> {
  const r = await fetch(`${w.svc.url}/__faults__`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ mode: 'reset' }) });
  if (!r.ok) throw new Error(`reset faults: ${r.status} ${await r.text()}`);
}

/** Faults not used up yet. */
export async function pendingFaults(w: SyncWorld): Promise<{ match: string; mode: string; remaining: number }[]> {
  const r = await fetch(`${w.svc.url}/__faults__`);
  return ((await r.json()) as { faults: { match: string; mode: string; remaining: number }[] }).faults;
}

/** A connected account on the service only (the caller adds it to whichever mirror it uses). */
export async function serviceAccount(w: SyncWorld): Promise<string> {
  const r = await w.api('POST', '/api/accounts/', { account_email: `e${Math.random().toString(36).slice(2)}@example.com` });
  if (r.status !== 201) throw new Error(`account: ${r.status} ${JSON.stringify(r.body)}`);
  return (r.body as { id: string }).id;
}
