// The one context every feature of the backend is built over (backend/<feature>.ts): the mirror, the accounts'
// secrets, the long jobs, and the events. Backend (backend/backend.ts) makes it once and combines the features'
// handlers; no feature reaches another's state but through it.
import type { Mirror } from '../db/mirror.ts';
import type { AccountRow, FarmRow } from '../db/types.ts';
import type { CredentialStore } from '../sync/credentials.ts';
import type { DurationOptions } from '../sync/context.ts';
import type { EventName, EventPayload } from '../core/api.ts';
import type { Jobs } from './jobs.ts';
import type { ImportPreviews } from './import-previews.ts';
import type { LayerFiles } from './layer-files.ts';

export interface HostContext {
  /** FURROW_HOME: the mirror, the credentials, the import previews. */
  readonly home: string;
  /**
   * The app's mirror host, which keeps answering while an import runs (so it imports on a thread of its own) and
   * sends change events; not the CLI, where nothing else runs and nobody listens.
   */
  readonly app: boolean;
  readonly mirror: Mirror;
  readonly credentials: CredentialStore;
  readonly jobs: Jobs;
  /** Dropped files between their preview and their import (backend/import-previews.ts). */
  readonly previews: ImportPreviews;
  /** The map's layer files the host keeps (backend/layer-files.ts). */
  readonly layerFiles: LayerFiles;
  /** The FURROW_* durations, read when a command goes to the service: a bad one refuses it (`bad_setting`, backend/settings.ts), naming it. */
  durations(): DurationOptions;
  /** Sends an event to every session it is for. */
  emit<K extends EventName>(name: K, payload: EventPayload<K>): void;
  /** Whether anyone listens to events (a sync builds its progress events only then). */
  listening(): boolean;
  /** Sends the change events of the writes made since the last time (a sync's, between its steps). */
  flush(): void;
  /**
   * An address the backend made for the user to open outside the app, and the address of the service it came from
   * (Electron's main opens no other, and asks the user first when it is not on that service's origin).
   */
  externalLink(url: string, service: string): void;
  /** A connected account, or no_account. */
  account(id: string): AccountRow;
  /** A live farm, or not_found. */
  farm(localId: string): FarmRow;
}

/**
 * What syncing needs of the context (backend/sync.ts): all of it but the import previews and the layer files, so the
 * command line's sync, push and pull (backend/sync-backend.ts) run without building the rest of the backend.
 */
export type SyncContext = Omit<HostContext, 'previews' | 'layerFiles'>;
