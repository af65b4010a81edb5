// The part of the backend that syncing needs (backend/sync.ts's handlers over the mirror and the accounts' secrets),
// which the whole backend (backend/backend.ts) is built on too: the command line's sync, push and pull open only this.
// Why: an unchanged pull is mostly the process's start-up, and the whole backend's modules (layers, offline areas,
// position, tiles, print, plan, their schemas and TypeBox's value functions) were about half of the CLI's loading,
// none of it used by a sync.
import { join } from 'node:path';
import { Mirror } from '../db/mirror.ts';
import { credentialStore, type CredentialStore } from '../sync/credentials.ts';
import type { HandlersOf } from '../core/rpc.ts';
import type { SYNC_API } from '../core/api-sync.ts';
import { durationSettings } from './settings.ts';
import { accountOf, farmOf } from './views.ts';
import { Jobs } from './jobs.ts';
import type { SyncContext } from './context.ts';
import { syncHandlers } from './sync.ts';

export interface SyncContextOptions {
  /** FURROW_HOME: the mirror and the credentials. */
  home: string;
  /** The app's mirror host (true) or the command line. */
  app: boolean;
  /** FURROW_* settings (durations, answer cap: backend/settings.ts), read when a call needs them. */
  env?: NodeJS.ProcessEnv;
  /** Where the accounts' secrets are kept: by default a file only the user can read, or FURROW_API_KEY (sync/credentials.ts). */
  credentials?: CredentialStore;
}

/** How the context reaches whoever listens: the whole backend's pages and events; nobody on the command line. */
export type ContextHooks = Pick<SyncContext, 'emit' | 'listening' | 'flush' | 'externalLink'>;

/** The context syncing runs in, over an open mirror: the one place it is made, for the whole backend and for this. */
export function syncContext(opts: SyncContextOptions, mirror: Mirror, hooks: ContextHooks): SyncContext {
  return {
    home: opts.home,
    app: opts.app,
    mirror,
    credentials: opts.credentials ?? credentialStore(opts.home, opts.env),
    jobs: new Jobs(hooks.flush),
    durations: () => durationSettings(opts.env ?? {}),
    ...hooks,
    account: (id) => accountOf(mirror, id),
    farm: (localId) => farmOf(mirror, localId),
  };
}

/** The command line's backend for a sync, push, pull or import: the mirror and the sync's handlers, nothing else. */
export class SyncBackend {
  readonly mirror: Mirror;
  readonly handlers: HandlersOf<typeof SYNC_API>;
  /** The context its handlers run in; the CLI's import runs its handler (backend/imports.ts fileImportHandlers) in it too. */
  readonly context: SyncContext;

  constructor(opts: Omit<SyncContextOptions, 'app'>) {
    const mirror = this.mirror = Mirror.open(join(opts.home, 'mirror.db'));
    // As the whole backend is on the command line: no change log (so nothing to flush) and nobody listening.
    this.context = syncContext({ ...opts, app: false }, mirror, {
      emit: () => {}, listening: () => false, flush: () => {}, externalLink: () => {},
    });
    this.handlers = syncHandlers(this.context);
  }

  close(): void {
    this.mirror.close();
  }
}
