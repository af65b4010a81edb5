// The app's backend as the app uses it, for backend/*.test.ts: real mirror host processes (backend/launch.ts)
// against a real local service (syncWorld), and the host's events collected.
import { expect } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { syncWorld, type SyncWorld } from './sync.ts';
import { launchHost, type Host } from '../../backend/launch.ts';
import type { ChangeEvent, SyncProgress } from '../../core/api.ts';

/** Short settle and wait times: a test's sync does not wait out a production backoff. */
export const HOST_ENV = { FURROW_SETTLE_MS: '200', FURROW_MAX_WAIT_MS: '3000' };

export interface HostWorld {
  w: SyncWorld;
  /** A host on `home` (a new one unless given); closed with the world. */
  host(home?: string, entry?: string): Promise<Host>;
  newHome(): string;
  /** A new account on the service. */
  newAccount(): Promise<string>;
  /** A new account on the service, connected on a new host with the organization's API key. */
  connected(): Promise<{ h: Host; acc: string; home: string }>;
  close(): Promise<void>;
}

export async function hostWorld(): Promise<HostWorld> {
  const w = await syncWorld({ LOG_LEVEL: 'fatal' });
  const hosts: Host[] = [];
  const newHome = () => mkdtempSync(join(w.dir, 'home-'));
  const host = async (home = newHome(), entry?: string) => {
    const h = await launchHost({ home, env: HOST_ENV, entry });
    hosts.push(h);
    return h;
  };
  const newAccount = async () => (await w.api('POST', '/api/accounts/', { account_email: `host-${Math.random().toString(36).slice(2)}@example.com` })).body.id as string;
  return {
    w, host, newHome, newAccount,
    async connected() {
      const home = newHome();
      const [h, acc] = await Promise.all([host(home), newAccount()]);
      await h.api.connect({ service: w.svc.url, account: acc, apiKey: w.apiKey });
      return { h, acc, home };
    },
    async close() {
      for (const h of hosts) await h.close();
      await w.close();
    },
  };
}

/** An event as a test keeps it: its name as `type`, beside its payload. */
export type SeenEvent = ({ type: 'changed' } & ChangeEvent) | { type: 'accounts' } | { type: 'sync'; progress: SyncProgress };

/** Every event `on` delivers, by name, in one list (tests look at their order). */
export function allEvents(on: Host['client']['on'], push: (e: SeenEvent) => void): () => void {
  const stops = [
    on('changed', (e) => push({ type: 'changed', ...e })),
    on('accounts', () => push({ type: 'accounts' })),
    on('sync', (progress) => push({ type: 'sync', progress })),
  ];
  return () => { for (const s of stops) s(); };
}

/** Collects the host's events; `until` waits for one that matches. */
export function events(h: Host) {
  const seen: SeenEvent[] = [];
  allEvents(h.client.on.bind(h.client), (e) => seen.push(e));
  return {
    seen,
    changes: () => seen.filter((e): e is { type: 'changed' } & ChangeEvent => e.type === 'changed'),
    clear: () => { seen.length = 0; },
    until: async (pred: (e: SeenEvent) => boolean) => {
      for (let i = 0; i < 500 && !seen.some(pred); i++) await new Promise((r) => setTimeout(r, 10));
      expect(seen.some(pred)).toBe(true);
    },
  };
}
