// The app's backend: core/api.ts implemented over the mirror, the sync engine and the import thread. The mirror host
// (backend/host.ts) serves it to the app; every write is followed by a change event (backend/changes.ts).
import { join } from 'node:path';
import { Mirror } from '../db/mirror.ts';
import { EditError } from '../db/writer.ts';
import type { ParcelHit } from '../db/reader.ts';
import { resolveConflict } from '../sync/conflicts.ts';
import { clientFactory } from '../sync/client-factory.ts';
import { forgetCredentials, loadCredentials } from '../sync/credentials.ts';
import { ConnectRefused, connectAccount } from '../sync/connect.ts';
import { AccountNotRemoved, removeAccount } from '../db/accounts.ts';
import { durationsFromEnv } from '../sync/cli-args.ts';
import { SyncEngine } from '../sync/engine.ts';
import { problems as problemList, statusReport } from '../sync/status.ts';
import { RpcError, type HandlersOf } from '../core/rpc.ts';
import { API_VERSION, ApiErrorCode, type AccountSummary, type Api, type ApiEvent, type FarmSummary, type ParcelFeature, type SyncState } from '../core/api.ts';
import { ChangeLog } from './changes.ts';
import { runImport } from './imports.ts';

export interface BackendOptions {
  /** FURROW_HOME: the mirror and the credentials. */
  home: string;
  /** FURROW_* settings (durations, answer cap), as the CLI reads them. */
  env?: NodeJS.ProcessEnv;
}

/** Progress and change events of a sync are sent at most this often. */
const EVENT_INTERVAL_MS = 100;

export class Backend {
  readonly mirror: Mirror;
  private readonly changes: ChangeLog;
  private readonly listeners = new Set<(e: ApiEvent) => void>();
  /** The import running on its thread, which holds the mirror's write lock until it ends: writes here wait for it. */
  private importing: Promise<unknown> | null = null;
  private syncing = false;

  constructor(private readonly opts: BackendOptions) {
    this.mirror = Mirror.open(join(opts.home, 'mirror.db'));
    this.changes = new ChangeLog(this.mirror.syncDb);
  }

  onEvent(listener: (e: ApiEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.changes.close();
    this.mirror.close();
  }

  private emit(e: ApiEvent): void {
    for (const l of this.listeners) l(e);
  }

  /** Sends what the last writes changed. */
  private flush(): void {
    for (const e of this.changes.drain()) this.emit(e);
  }

  /** Runs a write once no import holds the mirror, then sends its change events. */
  private async write<T>(fn: () => T): Promise<T> {
    while (this.importing) await this.importing.catch(() => undefined);
    try {
      return fn();
    } catch (err) {
      if (err instanceof EditError) throw new RpcError(ApiErrorCode.invalidParcel, err.message, err.problems);
      throw err;
    } finally {
      this.flush();
    }
  }

  private account(id: string) {
    const a = this.mirror.read.account(id);
    if (!a) throw new RpcError(ApiErrorCode.noAccount, `Account ${id} is not connected on this computer`);
    return a;
  }

  private summary(accountId: string): AccountSummary {
    const a = this.account(accountId);
    const { blocked_accounts: blocked, ...counts } = statusReport(this.mirror, a.id);
    const b = blocked[0];
    return {
      id: a.id, label: a.label, service: a.service_url, method: a.mode, lastPull: a.last_pull, counts,
      blocked: b ? { code: b.code, reason: b.reason, wayOut: b.way_out, waiting: b.waiting } : null,
    };
  }

  private farmSummary(localId: string): FarmSummary {
    const f = this.mirror.read.farm(localId);
    if (!f || f.deleted) throw new RpcError(ApiErrorCode.notFound, `No farm ${localId}`);
    const { n, ha } = this.mirror.syncDb.prepare('SELECT COUNT(*) AS n, COALESCE(SUM(hectares), 0) AS ha FROM parcels WHERE farm_local_id = ? AND deleted = 0').get(localId) as { n: number; ha: number };
    const open = this.mirror.syncDb.prepare("SELECT state FROM outbox WHERE entity = 'farm' AND local_id = ? AND state != 'committed' ORDER BY id DESC LIMIT 1").pluck().get(localId) as string | undefined;
    const state: SyncState = open === undefined ? (f.server_id === null ? 'pending' : 'synced') : open === 'queued' ? 'pending' : open === 'in_flight' ? 'sending' : (open as SyncState);
    return { id: f.local_id, account: f.account_id, serverId: f.server_id, name: f.name, parcels: n, hectares: ha, state };
  }

  private features(hits: readonly ParcelHit[]): ParcelFeature[] {
    const states = this.mirror.read.parcelStates(hits.map((h) => h.local_id));
    return hits.map((h) => {
      const s = states.get(h.local_id)!;
      return {
        type: 'Feature', id: h.local_id, geometry: JSON.parse(h.geometry) as ParcelFeature['geometry'],
        properties: {
          farm: h.farm_local_id, name: h.name, hectares: h.hectares, serverId: h.server_id, state: s.state, reason: s.reason,
          point: h.point ? (JSON.parse(h.point) as [number, number]) : null, metadata: JSON.parse(h.metadata) as ParcelFeature['properties']['metadata'],
        },
      };
    });
  }

  private parcelFeature(localId: string): ParcelFeature {
    const p = this.mirror.read.parcel(localId);
    if (!p || p.deleted) throw new RpcError(ApiErrorCode.notFound, `No parcel ${localId}`);
    return this.features([p])[0]!;
  }

  readonly handlers: HandlersOf<Api> = {
    hello: ({ apiVersion }) => {
      if (apiVersion !== API_VERSION) throw new RpcError(ApiErrorCode.versionMismatch, `This backend speaks version ${API_VERSION} of the app's API, the app ${apiVersion}: install matching versions`);
      return { apiVersion: API_VERSION, pid: process.pid };
    },
    accounts: () => this.mirror.read.accounts().map((a) => this.summary(a.id)),

    connect: async (input) => {
      try {
        const { account, tokenExpires } = await connectAccount(this.mirror, this.opts.home, input, durationsFromEnv(this.opts.env ?? {}));
        this.emit({ type: 'accounts' });
        return { account: this.summary(account.id), tokenExpires };
      } catch (err) {
        if (err instanceof ConnectRefused) throw new RpcError(ApiErrorCode.connectRefused, err.message, { reason: err.code });
        throw err;
      }
    },

    disconnect: async ({ account, discardUnsynced = false }) => {
      this.account(account);
      if (this.syncing) throw new RpcError(ApiErrorCode.busy, 'A sync is running: disconnect once it ends');
      const r = await this.write(() => {
        try {
          return removeAccount(this.mirror.syncDb, account, { discardUnsynced });
        } catch (err) {
          if (err instanceof AccountNotRemoved) throw new RpcError(err.code === 'unsynced' ? ApiErrorCode.unsyncedWork : ApiErrorCode.busy, err.message, err.unsynced);
          throw err;
        }
      });
      forgetCredentials(this.opts.home, account);
      this.emit({ type: 'accounts' });
      return { farms: r.farms, parcels: r.parcels, crops: r.crops, plants: r.plants, discarded: r.discarded.total + r.discarded.conflicts };
    },

    farms: ({ account }) => {
      this.account(account);
      return this.mirror.read.farms(account).map((f) => this.farmSummary(f.local_id));
    },

    viewport: ({ account, bbox, limit = 5000 }) => {
      this.account(account);
      const hits = this.mirror.read.viewport(bbox, limit + 1, account);
      return { type: 'FeatureCollection', features: this.features(hits.slice(0, limit)), truncated: hits.length > limit };
    },

    parcel: ({ id }) => this.parcelFeature(id),

    search: ({ account, text, limit = 50 }) => {
      this.account(account);
      return this.features(this.mirror.read.search(text, limit, account));
    },

    createFarm: ({ account, name }) => {
      this.account(account);
      return this.write(() => this.farmSummary(this.mirror.write.createFarm(account, name).local_id));
    },

    createParcel: (args) => this.write(() => {
      const farm = this.mirror.read.farm(args.farm);
      if (!farm || farm.deleted) throw new RpcError(ApiErrorCode.notFound, `No farm ${args.farm}`);
      // The service's own input shape, so that the writer validates exactly as the service will.
      const geom = 'geometry' in args
        ? { type: 'Feature', properties: {}, geometry: args.geometry }
        : { type: 'Feature', properties: { metadata: { hectares: args.hectares } }, geometry: { type: 'Point', coordinates: args.point } };
      const { created } = this.mirror.write.createParcels(farm.local_id, [{ name: args.name, metadata: args.metadata ?? {}, geom }], { label: `Create parcel ${args.name}` });
      return this.parcelFeature(created[0]!.local_id);
    }),

    updateParcel: ({ id, name, metadata, geometry }) => this.write(() => {
      this.mirror.write.updateParcel(id, { name, metadata, ...(geometry ? { geom: { type: 'Feature', properties: {}, geometry } } : {}) });
      return this.parcelFeature(id);
    }),

    deleteParcel: ({ id }) => this.write(() => {
      this.mirror.write.deleteParcel(id);
      return null;
    }),

    history: ({ account }) => {
      this.account(account);
      return this.mirror.read.history(account);
    },
    undo: ({ account }) => {
      this.account(account);
      return this.write(() => this.mirror.write.undo(account));
    },
    redo: ({ account }) => {
      this.account(account);
      return this.write(() => this.mirror.write.redo(account));
    },

    problems: ({ account }) => problemList(this.mirror, account),

    resolve: ({ conflict, keep }) => this.write(() => {
      try {
        return { effect: resolveConflict(this.mirror.syncDb, conflict, keep).effect };
      } catch (err) {
        if (err instanceof Error && /No open conflict/.test(err.message)) throw new RpcError(ApiErrorCode.notFound, err.message);
        throw err;
      }
    }),

    retry: ({ account }) => this.write(() => {
      const acc = account ?? null;
      const requeued = this.mirror.syncDb.prepare("UPDATE outbox SET state = 'queued', attempts = 0, next_attempt_at = NULL, last_error = NULL WHERE state = 'rejected' AND (? IS NULL OR account_id = ?)").run(acc, acc).changes;
      // Uncertain work only gets its check sooner: it is reconciled, never resent, before its settle time.
      const released = this.mirror.syncDb.prepare("UPDATE outbox SET next_attempt_at = NULL WHERE state IN ('queued', 'uncertain') AND next_attempt_at IS NOT NULL AND (? IS NULL OR account_id = ?)").run(acc, acc).changes;
      return { requeued, released };
    }),

    sync: async ({ account, push = true, pull = true, acceptRemoteDeletions = false }, ctx) => {
      if (account !== undefined) this.account(account);
      if (this.syncing) throw new RpcError(ApiErrorCode.busy, 'A sync is already running');
      while (this.importing) await this.importing.catch(() => undefined);
      this.syncing = true;
      let last = 0;
      try {
        const { timeoutMs, deadlineMs, maxAnswerBytes, ...waits } = durationsFromEnv(this.opts.env ?? {});
        const engine = new SyncEngine(this.mirror, clientFactory(loadCredentials(this.opts.home), { timeoutMs, deadlineMs, maxAnswerBytes }), {
          ...waits, acceptRemoteDeletions, signal: ctx.signal,
          onProgress: (p) => {
            const progress = { account: p.account, phase: p.phase, done: p.done, total: p.total, bytes: p.bytes, ...(p.message ? { message: p.message } : {}) };
            ctx.progress(progress);
            const now = Date.now();
            if (now - last >= EVENT_INTERVAL_MS || p.phase === 'done') {
              last = now;
              this.emit({ type: 'sync', progress });
              this.flush();
            }
          },
        });
        const r = await engine.sync({ accounts: account === undefined ? undefined : [account], push, pull });
        return r.accounts.map((a) => ({
          account: a.account, synced: a.synced, cancelled: a.cancelled, error: a.error, blocked: a.blocked, sent: a.sent,
          committed: a.committed, rejected: a.rejected, conflicts: a.conflicts, pulled: a.pulled, left: a.left,
        }));
      } finally {
        this.syncing = false;
        this.flush();
      }
    },

    importFile: async ({ account, path, farm, skipInvalid = false }, ctx) => {
      this.account(account);
      while (this.importing) await this.importing.catch(() => undefined);
      if (this.syncing) throw new RpcError(ApiErrorCode.busy, 'A sync is running: import once it ends');
      const job = runImport({ home: this.opts.home, file: path, account, farm, skipInvalid }, ctx.signal, (done, total) => ctx.progress({ phase: 'writing', done, total, unit: 'parcels' }));
      this.importing = job;
      try {
        const { events, ...summary } = await job;
        for (const e of events) this.emit(e);
        return summary;
      } finally {
        this.importing = null;
      }
    },
  };
}
