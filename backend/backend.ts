// The app's backend: core/api.ts implemented over the mirror, the sync engine and the import thread. The mirror host
// (backend/host.ts) serves it to the app and the CLI (cli/main.ts) calls the same handlers in process, so the two
// can never disagree. Every write is followed by a change event (db/change-log.ts) where someone listens.
import { join } from 'node:path';
import { Mirror } from '../db/mirror.ts';
import { EditError } from '../db/writer.ts';
import { AccountNotRemoved, removeAccount } from '../db/accounts.ts';
import { releaseBackoff, requeueRejected } from '../db/outbox.ts';
import { openConflictById } from '../db/conflicts.ts';
import { credentialStore, type CredentialStore } from '../sync/credentials.ts';
import type { ConnectInput } from '../sync/connect.ts';
import { durationsFromEnv, type DurationOptions } from '../sync/cli-args.ts';
import { problems as problemList, statusReport } from '../sync/status.ts';
import { JsonItems, RpcError, type HandlersOf } from '../core/rpc.ts';
import type { Api, ApiEvent, ParcelCollection, ParcelFeature } from '../core/api.ts';
import { API_VERSION, ApiErrorCode, EXPORT_TEXT_MAX } from '../core/api-codes.ts';
import { embeddedMapUrl } from '../core/parcels/metadata-filter.ts';
import { ChangeLog } from '../db/change-log.ts';
import { accountOf, accountSummary, blockedView, farmOf, farmSummaries, farmSummary, parcelFeature } from './views.ts';
import { rotationHandlers } from './rotations.ts';
import { plantHandlers } from './plants.ts';
import { accountHandlers } from './accounts.ts';
import { parcelConflict } from './parcel-conflict.ts';
import { syncDetails } from './sync-details.ts';
import { importCall, importHandlers, type ImportContext } from './imports.ts';
import { ImportPreviews } from './import-previews.ts';

export interface BackendOptions {
  /** FURROW_HOME: the mirror and the credentials. */
  home: string;
  /** FURROW_* settings (durations, answer cap), as the CLI reads them. */
  env?: NodeJS.ProcessEnv;
  /** Where the accounts' secrets are kept: by default a file only the user can read, or FURROW_API_KEY (sync/credentials.ts). */
  credentials?: CredentialStore;
  /**
   * The mirror host keeps answering while an import runs, so it imports on a thread of its own and logs every
   * write for change events; the CLI does neither (nothing else runs, nobody listens).
   */
  app?: boolean;
  /** Told each address the backend makes for the user to open outside the app (the embedded map): Electron's main opens no other. */
  externalLink?: (url: string) => void;
}

/** Progress and change events of a sync are sent at most this often. */
const EVENT_INTERVAL_MS = 100;

const syncJobs = () => import('./sync-jobs.ts');

export class Backend {
  readonly mirror: Mirror;
  private readonly changes: ChangeLog | null;
  private readonly credentials: CredentialStore;
  private readonly listeners = new Set<(e: ApiEvent) => void>();
  /**
   * The long job writing to the mirror, one at a time: an import (on its thread, holding SQLite's write lock for its
   * whole all-or-nothing transaction) or a sync (on this thread). The other kind waits for its turn here,
   * asynchronously: waiting on SQLite's lock instead would stop this thread (busy_timeout sleeps) and with it every
   * answer to the app — a sync started during an import froze the host for over a second.
   */
  private job: { kind: 'import' | 'sync'; done: Promise<void> } | null = null;
  /** Dropped files between their preview and their import (backend/import-previews.ts). */
  private readonly previews: ImportPreviews;
  private readonly imports: ImportContext;

  constructor(private readonly opts: BackendOptions) {
    this.mirror = Mirror.open(join(opts.home, 'mirror.db'));
    this.credentials = opts.credentials ?? credentialStore(opts.home, opts.env);
    this.changes = opts.app ? new ChangeLog(this.mirror.syncDb) : null;
    this.previews = new ImportPreviews(join(opts.home, 'imports'));
    this.imports = {
      home: opts.home, app: opts.app === true, mirror: () => this.mirror, turn: () => this.turn('import'), emit: (e) => this.emit(e), previews: this.previews,
    };
  }

  onEvent(listener: (e: ApiEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.previews.close();
    this.changes?.close();
    this.mirror.close();
  }

  private emit(e: ApiEvent): void {
    for (const l of this.listeners) l(e);
  }

  /** Sends what the last writes changed. */
  private flush(): void {
    if (this.changes) for (const e of this.changes.drain()) this.emit(e);
  }

  /** Until no import holds the mirror's write lock (a sync writes on this very connection: no wait for it). */
  private async idle(): Promise<void> {
    while (this.job?.kind === 'import') await this.job.done;
  }

  /**
   * Waits for the job running (a second sync is refused), then starts `kind`; call the result when it ends. The
   * check and the start happen in one turn of the event loop, so two calls can never both start.
   */
  private async turn(kind: 'import' | 'sync'): Promise<() => void> {
    while (this.job) {
      if (kind === 'sync' && this.job.kind === 'sync') throw new RpcError(ApiErrorCode.busy, 'A sync is already running');
      await this.job.done;
    }
    let end!: () => void;
    this.job = { kind, done: new Promise<void>((resolve) => { end = resolve; }) };
    return () => {
      this.job = null;
      end();
    };
  }

  /** Runs `fn` as the job of the moment, so that no sync starts meanwhile (one running refuses it: busy). */
  private async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const end = await this.turn('sync');
    try {
      return await fn();
    } finally {
      end();
    }
  }

  /** Runs a write once no import holds the mirror, then sends its change events. */
  private async write<T>(fn: () => T): Promise<T> {
    await this.idle();
    try {
      return fn();
    } catch (err) {
      if (err instanceof EditError) throw new RpcError(ApiErrorCode.invalidParcel, err.message, err.problems);
      throw err;
    } finally {
      this.flush();
    }
  }

  /** The FURROW_* durations, read when a command goes to the service: a bad one is refused there, with its name. */
  private get durations(): DurationOptions {
    return durationsFromEnv(this.opts.env ?? {});
  }

  private async connect(input: ConnectInput) {
    const { connectAccount, ConnectRefused } = await import('../sync/connect.ts');
    try {
      const { account, tokenExpires } = await connectAccount(this.mirror, this.credentials, input, this.durations);
      this.emit({ type: 'accounts' });
      return { account: accountSummary(this.mirror, account.id), tokenExpires };
    } catch (err) {
      if (err instanceof ConnectRefused) throw new RpcError(ApiErrorCode.connectRefused, err.message, { reason: err.code });
      throw err;
    }
  }

  private account(id: string) {
    return accountOf(this.mirror, id);
  }

  readonly handlers: HandlersOf<Api> = {
    hello: ({ apiVersion }) => {
      if (apiVersion !== API_VERSION) throw new RpcError(ApiErrorCode.versionMismatch, `This backend speaks version ${API_VERSION} of the app's API, the app ${apiVersion}: install matching versions`);
      return { apiVersion: API_VERSION, pid: process.pid };
    },

    accounts: () => this.mirror.read.accounts().map((a) => accountSummary(this.mirror, a.id)),

    connect: (input) => this.connect(input),
    connectWithCommand: (input) => this.connect(input),

    disconnect: async ({ account, discardUnsynced = false }) => {
      if (this.job?.kind === 'sync') throw new RpcError(ApiErrorCode.busy, 'A sync is running: disconnect once it ends');
      const r = await this.write(() => {
        try {
          return removeAccount(this.mirror.syncDb, account, { discardUnsynced });
        } catch (err) {
          if (err instanceof AccountNotRemoved) {
            const code = err.code === 'unsynced' ? ApiErrorCode.unsyncedWork : err.code === 'unknown_account' ? ApiErrorCode.noAccount : ApiErrorCode.busy;
            throw new RpcError(code, err.message, err.unsynced);
          }
          throw err;
        }
      });
      this.credentials.forget(account);
      this.emit({ type: 'accounts' });
      return { farms: r.farms, parcels: r.parcels, crops: r.crops, plants: r.plants, discarded: r.discarded.total + r.discarded.conflicts };
    },

    status: ({ account }) => {
      if (account !== undefined) this.account(account);
      const { blocked_accounts: blocked, ...counts } = statusReport(this.mirror, account);
      return { counts, blocked: blocked.map(blockedView) };
    },

    setParcelLimit: ({ account, hectares }) => {
      this.account(account);
      return this.write(() => {
        this.mirror.write.setParcelLimit(account, hectares);
        return { hectares: this.mirror.write.parcelLimit(account) };
      });
    },

    farms: ({ account }) => {
      this.account(account);
      return farmSummaries(this.mirror, account);
    },

    farmExtent: ({ farm }) => {
      farmOf(this.mirror, farm);
      return this.mirror.read.farmExtent(farm);
    },

    viewport: ({ account, bbox, limit = 5000, metadata, crops = false }) => {
      this.account(account);
      const features = this.mirror.read.viewportJson(bbox, limit, account, metadata, crops);
      return JsonItems.object<ParcelCollection>({ type: 'FeatureCollection', truncated: features.length > limit }, { features: features.slice(0, limit) });
    },

    parcel: ({ id }) => parcelFeature(this.mirror, id),

    search: ({ account, text, limit = 50 }) => {
      this.account(account);
      return JsonItems.array<ParcelFeature>(this.mirror.read.searchJson(text, limit, account));
    },

    createFarm: ({ account, name }) => {
      this.account(account);
      return this.write(() => farmSummary(this.mirror, this.mirror.write.createFarm(account, name).local_id));
    },

    createParcel: (args) => this.write(() => {
      const farm = farmOf(this.mirror, args.farm);
      // The service's own input shape, so that the writer validates exactly as the service will.
      const geom = 'geometry' in args
        ? { type: 'Feature', properties: {}, geometry: args.geometry }
        : { type: 'Feature', properties: { metadata: { hectares: args.hectares } }, geometry: { type: 'Point', coordinates: args.point } };
      const { created } = this.mirror.write.createParcels(farm.local_id, [{ name: args.name, metadata: args.metadata ?? {}, geom }], { label: `Create parcel ${args.name}` });
      return parcelFeature(this.mirror, created[0]!.local_id);
    }),

    updateParcel: ({ id, name, metadata, geometry }) => this.write(() => {
      this.mirror.write.updateParcel(id, { name, metadata, ...(geometry ? { geom: { type: 'Feature', properties: {}, geometry } } : {}) });
      return parcelFeature(this.mirror, id);
    }),

    deleteParcel: ({ id }) => this.write(() => {
      this.mirror.write.deleteParcel(id);
      return null;
    }),

    history: ({ account }) => {
      if (account !== undefined) this.account(account);
      return this.mirror.read.history(account);
    },
    undo: ({ account }) => {
      if (account !== undefined) this.account(account);
      return this.write(() => this.mirror.write.undo(account));
    },
    redo: ({ account }) => {
      if (account !== undefined) this.account(account);
      return this.write(() => this.mirror.write.redo(account));
    },

    problems: ({ account }) => problemList(this.mirror, account),

    syncDetails: ({ account }) => {
      this.account(account);
      return syncDetails(this.mirror, account);
    },

    parcelConflict: ({ id }) => parcelConflict(this.mirror, id),

    resolve: async ({ conflict, keep, fields }) => {
      const c = openConflictById(this.mirror.syncDb, conflict);
      if (!c) throw new RpcError(ApiErrorCode.notFound, `No open conflict #${conflict}`);
      const [{ resolveConflict }, { FieldChoiceError }] = await Promise.all([import('../sync/conflicts.ts'), import('../sync/conflict-fields.ts')]);
      const r = await this.write(() => {
        try {
          return resolveConflict(this.mirror.syncDb, conflict, keep, fields);
        } catch (err) {
          if (err instanceof FieldChoiceError) throw new RpcError(ApiErrorCode.invalidChoice, err.message);
          throw err;
        }
      });
      const deleted = r.deleteOnService.length ? await (await syncJobs()).deleteOnService(this.mirror, this.credentials, c.account_id, c.entity, r.deleteOnService) : [];
      return { effect: r.effect, deletedOnService: deleted };
    },

    retry: ({ account }) => this.write(() => ({
      requeued: requeueRejected(this.mirror.syncDb, account ?? null),
      released: releaseBackoff(this.mirror.syncDb, account ?? null),
    })),

    sync: async ({ account, push = true, pull = true, acceptRemoteDeletions = false }, ctx) => {
      if (account !== undefined) this.account(account);
      const end = await this.turn('sync');
      let last = 0;
      try {
        const { runSync } = await syncJobs();
        return await runSync(this.mirror, this.credentials, this.durations, {
          accounts: account === undefined ? undefined : [account], push, pull, acceptRemoteDeletions, signal: ctx.signal,
          onProgress: (p) => {
            const progress = { account: p.account, phase: p.phase, done: p.done, total: p.total, bytes: p.bytes, ...(p.message ? { message: p.message } : {}) };
            ctx.progress(progress);
            const now = Date.now();
            if (this.listeners.size && (now - last >= EVENT_INTERVAL_MS || p.phase === 'done')) {
              last = now;
              this.emit({ type: 'sync', progress });
              this.flush();
            }
          },
        });
      } finally {
        end();
        this.flush();
      }
    },

    exportFile: async ({ path, account, farm }, ctx) => {
      if (account !== undefined) this.account(account);
      if (farm !== undefined && !this.mirror.read.farm(farm)) throw new RpcError(ApiErrorCode.notFound, `No farm ${farm}`);
      const { exportFile } = await import('../db/export.ts');
      return exportFile(this.mirror, path, { accountId: account, farmLocalId: farm, signal: ctx.signal, onProgress: (done, total) => ctx.progress({ done, total }) });
    },

    embeddedMap: async ({ account, metadata = {} }) => {
      this.account(account);
      const { embeddedUrl } = await syncJobs();
      try {
        const url = embeddedMapUrl(await embeddedUrl(this.mirror, this.credentials, account), metadata);
        this.opts.externalLink?.(url);
        return { url };
      } catch (err) {
        if (err instanceof RpcError) throw err;
        throw new RpcError(ApiErrorCode.serviceUnavailable, `The embedded map's address needs the service: ${err instanceof Error ? err.message : String(err)}`);
      }
    },

    exportText: async ({ account, farm, parcels, format }) => {
      this.account(account);
      const f = farm === undefined ? undefined : farmOf(this.mirror, farm);
      if (f && f.account_id !== account) throw new RpcError(ApiErrorCode.notFound, `No farm ${farm} in this account`);
      const count = parcels?.length ?? (f ? this.mirror.read.farmTotals(f.local_id).parcels : this.mirror.read.accountParcelCount(account));
      if (count > EXPORT_TEXT_MAX) {
        throw new RpcError(ApiErrorCode.tooLarge, `${count.toLocaleString('en-US')} parcels are more than the app exports at once (${EXPORT_TEXT_MAX.toLocaleString('en-US')}): export a farm, or use the CLI (npm run -s cli -- export FILE)`);
      }
      const { exportText } = await import('../db/export.ts');
      const r = exportText(this.mirror.read, { accountId: account, farmLocalId: f?.local_id, parcelIds: parcels }, format);
      const base = parcels?.length === 1 ? this.mirror.read.parcel(parcels[0]!)?.name : f?.name ?? accountOf(this.mirror, account).label;
      return { ...r, fileName: `${fileBase(base ?? 'parcels')}.${format}` };
    },

    importFile: ({ account, path, farm, skipInvalid = false }, ctx) => {
      this.account(account);
      return importCall(this.imports, { file: path, account, farm, skipInvalid }, ctx.signal, (done, total) => ctx.progress({ phase: 'writing', done, total, unit: 'parcels' }));
    },

    ...rotationHandlers({ mirror: () => this.mirror, write: (fn) => this.write(fn) }),
    ...plantHandlers(() => this.mirror),
    ...importHandlers(() => this.imports),
    ...accountHandlers({ mirror: () => this.mirror, credentials: () => this.credentials, durations: () => this.durations, write: (fn) => this.write(fn), exclusive: (fn) => this.exclusive(fn), accountsChanged: () => this.emit({ type: 'accounts' }) }),
  };
}

/** A file name from a farm's or parcel's name: letters, digits, spaces, dots, dashes and underscores kept, the rest dropped. */
export const fileBase = (name: string): string => name.normalize('NFC').replace(/[^\p{L}\p{N} ._-]+/gu, '').replace(/\s+/g, ' ').trim().slice(0, 80) || 'parcels';
