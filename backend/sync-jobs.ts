// The network side of the backend: a sync run, and deleting on the service the duplicates a resolved conflict
// leaves there. Loaded only by the commands that need it (the CLI's `status` does not pay for the engine).
import type { Mirror } from '../db/mirror.ts';
import { SyncEngine } from '../sync/engine.ts';
import { clientFactory } from '../sync/client-factory.ts';
import { errorMessage } from '../sync/answers.ts';
import type { CredentialStore } from '../sync/credentials.ts';
import type { DurationOptions } from '../sync/context.ts';
import type { ProgressEvent } from '../sync/progress.ts';
import type { AccountSync } from '../core/api.ts';

export interface SyncJob {
  accounts?: string[];
  push: boolean;
  pull: boolean;
  acceptRemoteDeletions: boolean;
  signal: AbortSignal;
  onProgress(p: ProgressEvent): void;
}

export async function runSync(m: Mirror, store: CredentialStore, durations: DurationOptions, job: SyncJob): Promise<AccountSync[]> {
  const { timeoutMs, deadlineMs, maxAnswerBytes, ...waits } = durations;
  // A token an account-mode provider fetched is kept: its expiry shows in the app, and the next run starts with it.
  const onToken = (account: string, token: string) => {
    const c = store.load()[account];
    if (c && !c.apiKey && c.token !== token) store.save(account, { ...c, token });
  };
  const engine = new SyncEngine(m, clientFactory(store.load(), { timeoutMs, deadlineMs, maxAnswerBytes, onToken }), {
    ...waits, acceptRemoteDeletions: job.acceptRemoteDeletions, signal: job.signal, onProgress: job.onProgress,
  });
  const r = await engine.sync({ accounts: job.accounts, push: job.push, pull: job.pull });
  return r.accounts.map((a) => ({ ...a }));
}

const PATH: Record<string, string> = { farm: 'farms', crop: 'crops', parcel: 'parcels' };

/** Deletes the service's copies a resolved duplicate conflict named; the answer to each DELETE. */
export async function deleteOnService(m: Mirror, store: CredentialStore, accountId: string, entity: string, ids: readonly number[]): Promise<{ entity: string; id: number; status: number }[]> {
  const client = clientFactory(store.load())(m.read.account(accountId)!);
  const out: { entity: string; id: number; status: number }[] = [];
  try {
    for (const id of ids) out.push({ entity, id, status: (await client.send('DELETE', `/api/${PATH[entity] ?? 'parcels'}/${id}/`)).status });
  } finally {
    await client.close();
  }
  return out;
}

/**
 * The account's embedded map address, as the service gives it (GET /api/accounts/{id}/, with the API key or the
 * account's own token): an http(s) URL carrying its auth_id. Throws NetworkError when the service cannot be reached.
 */
export async function embeddedUrl(m: Mirror, store: CredentialStore, accountId: string): Promise<string> {
  const client = clientFactory(store.load())(m.read.account(accountId)!);
  try {
    const res = await client.send('GET', `/api/accounts/${accountId}/`);
    const url = (res.body as { embedded_url?: unknown } | null)?.embedded_url;
    if (res.status !== 200 || typeof url !== 'string' || !/^https?:\/\//i.test(url)) {
      throw new Error(res.status === 200 ? 'the service gave no embedded map address' : `the service answered ${errorMessage(res)}`);
    }
    return url;
  } finally {
    await client.close();
  }
}
