// The app's backend: core/api.ts implemented over the mirror, the sync engine and the import thread, one feature a
// module (backend/<feature>.ts, each built over the one HostContext, backend/context.ts); this is only their
// composition root. The mirror host (backend/host.ts) serves it to the app and the CLI (cli/main.ts) calls the same
// handlers in process, so the two can never disagree. Every write is followed by a change event (db/change-log.ts)
// where someone listens.
import { join } from 'node:path';
import { Mirror } from '../db/mirror.ts';
import type { ChangeLog } from '../db/change-log.ts';
import type { CredentialStore } from '../sync/credentials.ts';
import type { HandlersOf } from '../core/rpc.ts';
import type { Api, EventName, EventPayload } from '../core/api.ts';
import { ImportPreviews } from './import-previews.ts';
import { syncContext } from './sync-backend.ts';
import type { HostContext } from './context.ts';
import { sessionHandlers } from './session.ts';
import { ParcelTiles } from './parcel-tiles.ts';

/** How long after the app's host starts it builds the overviews of the parcels' boxes (backend/parcel-overview.ts). */
const OVERVIEW_AFTER_MS = 4000;
/**
 * The app's tile threads (backend/parcel-tiles.ts): two, so a view's cold tiles are cut two at a time on the two
 * cores this app is measured on, the host's thread free for its answers meanwhile.
 */
const TILE_THREADS = 2;
import { parcelTileHandlers } from './parcel-tile-handlers.ts';
import type { ByteSession } from './bytes.ts';
import type { PARCEL_TILES_API } from '../core/api-parcel-tiles.ts';
import { accountHandlers } from './accounts.ts';
import { farmHandlers } from './farms.ts';
import { parcelHandlers } from './parcels.ts';
import { historyHandlers } from './history.ts';
import { syncHandlers } from './sync.ts';
import { conflictHandlers } from './conflicts.ts';
import { exportHandlers } from './export.ts';
import { downloadHandlers } from './downloads.ts';
import { importHandlers } from './imports.ts';
import { rotationHandlers } from './rotations.ts';
import { planDownloadHandlers, planHandlers } from './plan.ts';
import { plantHandlers } from './plants.ts';
import { viewHandlers } from './view-settings.ts';
import { layerHandlers } from './layers.ts';
import { LayerFiles } from './layer-files.ts';
import { layerFileHandlers, savedLayerFiles } from './layer-file-handlers.ts';
import { OfflineAreas } from './offline-areas.ts';
import { Position } from './position/position.ts';
import { positionHandlers } from './position/handlers.ts';
import { tableHandlers } from './table.ts';
import { printHandlers } from './print.ts';
import type { FarmRotation } from '../core/api-rotations.ts';

export interface BackendOptions {
  /** FURROW_HOME: the mirror and the credentials. */
  home: string;
  /** FURROW_* settings (durations, answer cap: backend/settings.ts), read when a call needs them. */
  env?: NodeJS.ProcessEnv;
  /** Where the accounts' secrets are kept: by default a file only the user can read, or FURROW_API_KEY (sync/credentials.ts). */
  credentials?: CredentialStore;
  /**
   * The mirror host keeps answering while an import runs, so it imports on a thread of its own and logs every
   * write for change events; the CLI does neither (nothing else runs, nobody listens).
   */
  app?: boolean;
  /**
   * Told each address the backend makes for the user to open outside the app (the embedded map), with the address of
   * the account's service it came from: Electron's main opens no other, and asks first for one off that service.
   */
  externalLink?: (url: string, service: string) => void;
}

/** Someone listening to the backend's events: the name of each and its payload. */
export type BackendListener = <K extends EventName>(name: K, payload: EventPayload<K>) => void;

export class Backend {
  readonly mirror: Mirror;
  readonly handlers: HandlersOf<Api>;
  /** Areas kept offline: the host serves each page their tiles (backend/host.ts, offlineTiles). */
  readonly offline: OfflineAreas;
  private readonly changes: ChangeLog | null;
  /** The map's parcel tiles, cut from the mirror and cached (backend/parcel-tiles.ts); each page reads its own paths. */
  readonly parcelTiles: ParcelTiles;
  private readonly previews: ImportPreviews;
  /** The map's layer files: a page session's handlers use them with its own uploads and bytes (backend/host.ts). */
  readonly layerFiles: LayerFiles;
  private readonly listeners = new Set<BackendListener>();
  private warming: ReturnType<typeof setTimeout> | null = null;
  /** The parcel tiles' handlers for a page session whose bytes are `scope` (backend/host.ts). */
  readonly tileHandlers: (scope: ByteSession) => HandlersOf<typeof PARCEL_TILES_API>;
  /** The source of position and the walk under way (backend/position/). */
  readonly position: Position;

  constructor(opts: BackendOptions) {
    const mirror = this.mirror = Mirror.open(join(opts.home, 'mirror.db'));
    this.changes = opts.app ? mirror.changeLog() : null;
    this.previews = new ImportPreviews(join(opts.home, 'imports'));
    // The host cleans up what a stopped host left; the command line, which runs beside it, never does.
    const layerFiles = this.layerFiles = new LayerFiles(opts.home, opts.app ? { sweep: { used: () => savedLayerFiles(mirror) } } : {});
    const emit: HostContext['emit'] = (name, payload) => { for (const l of this.listeners) l(name, payload); };
    // The parcel tiles a change made stale are dropped before any page hears of it and asks for them again.
    const tiles = this.parcelTiles = new ParcelTiles(mirror, { threads: opts.app ? TILE_THREADS : 0 });
    const flush = () => {
      if (this.changes) for (const e of this.changes.drain()) {
        tiles.changed(e);
        emit('changed', e);
      }
    };
    const ctx: HostContext = {
      ...syncContext({ home: opts.home, app: opts.app === true, env: opts.env, credentials: opts.credentials }, mirror, {
        emit,
        listening: () => this.listeners.size > 0,
        flush,
        externalLink: (url, service) => opts.externalLink?.(url, service),
      }),
      previews: this.previews,
      layerFiles,
    };
    const offline = this.offline = new OfflineAreas(ctx, opts.env ?? {});
    const position = this.position = new Position(opts.home, { position: (s) => emit('position', s), trackPoint: (p) => emit('trackPoint', p) },
      // A network receiver's failures in full, for the user (a page is told them uniformly: backend/position/connection.ts).
      { log: (line) => process.stderr.write(line) });
    // The host connects the source kept on this computer again; the command line, which runs beside it, never does.
    if (opts.app) position.resume();
    this.handlers = {
      ...sessionHandlers(),
      ...accountHandlers(ctx),
      ...farmHandlers(ctx),
      ...parcelHandlers(ctx),
      ...historyHandlers(ctx),
      ...syncHandlers(ctx),
      ...conflictHandlers(ctx),
      ...exportHandlers(ctx),
      // A download is a page session's: the host serves each page with its own (backend/host.ts); none here.
      ...downloadHandlers(mirror, null),
      ...importHandlers(ctx),
      ...rotationHandlers(ctx),
      ...planHandlers(ctx),
      // The plan's downloads are a page session's too (backend/host.ts).
      ...planDownloadHandlers(mirror, null),
      ...plantHandlers(ctx),
      ...viewHandlers(ctx),
      ...layerHandlers(ctx, (files) => offline.dropFiles(files)),
      ...offline.handlers(),
      // A page session's bytes paths: the host serves each page with its own (backend/host.ts); none here.
      ...offline.tileHandlers(null),
      // The command line's uploads (its channel's): a page session has its own (backend/host.ts).
      ...layerFileHandlers(layerFiles, mirror, { owner: this, bytes: null }),
      ...positionHandlers(ctx, position),
      ...tableHandlers(ctx),
      // A print is a page session's (its bytes): the host serves each page with its own (backend/host.ts); none here.
      ...printHandlers(mirror, null, (farm) => this.farmRotation(farm)),
      // The tiles' paths are a page session's (backend/host.ts); the count and the click are anyone's.
      ...parcelTileHandlers(ctx, tiles, null),
    };
    this.tileHandlers = (scope) => parcelTileHandlers(ctx, tiles, scope);
    // The host builds its accounts' overviews for the map's low zooms (backend/parcel-overview.ts) a few seconds after
    // it starts, when the start's first view has been read: a country-wide tile cut before it is built reads the R*Tree.
    if (opts.app) {
      this.warming = setTimeout(() => { for (const a of mirror.read.accounts()) void tiles.warm(a.id).catch(() => {}); }, OVERVIEW_AFTER_MS);
      this.warming.unref();
    }
  }

  /** A farm's rotation table as `farmRotation` answers it: the printed map's second page (backend/print.ts). */
  async farmRotation(farm: string): Promise<FarmRotation> {
    return await this.handlers.farmRotation({ farm }, { signal: new AbortController().signal, progress: () => {} }) as FarmRotation;
  }

  /** Listens to every event the backend sends; returns the function that stops. */
  onEvent(listener: BackendListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    if (this.warming) clearTimeout(this.warming);
    void this.parcelTiles.close();
    this.position.close();
    this.offline.close();
    void this.layerFiles.close();
    this.previews.close();
    this.changes?.close();
    this.mirror.close();
  }
}
