// The app's backend contract, making an online layer's area available offline (issue 30): the host downloads the
// layer's tiles for an area (the account's farms with a margin, one farm, or a box drawn on the map) and a zoom range
// into an MBTiles file it keeps (FURROW_HOME/layers/<file>.mbtiles), and the map then draws that area from the file.
// The page names the layer and the area, never an address: the host builds every tile's address from the layer as
// it keeps it (core/tiles/tile-urls.ts) and fetches only addresses the layers' rules accept.
//
// A download is a long call with progress: aborting it pauses (what is downloaded stays in the file being written,
// <file>.mbtiles.part, with a journal of the download), offlineResume goes on from there, offlineCancel removes it.
// A host stopped mid-way (a crash, a closed laptop) leaves the same paused download, listed by offlineDownloads. Tiles
// the server keeps failing (after the retries, with backoff, of a run) are recorded in the file; once every other tile
// is done, offlineKeepPartial keeps the area without them (OfflineArea.missing), and an update tries them again. A
// file being written is never a layer's: only once complete, checked and renamed is it set as the layer's `offline`
// (core/api-layers.ts OfflineArea). Part of API (core/api.ts).
import { Type, type Static } from '@sinclair/typebox';
import { PAGE_AND_CLI, PAGE_ONLY, type Contract } from './rpc.ts';
import { AccountId, BBox, Id, Nullable, Obj } from './api-schemas.ts';
import { LayerId, OfflineArea } from './api-layers.ts';

/** The most metres a farm's box is grown by. */
export const MAX_MARGIN_M = 5000;
/** The margin around farms unless one is given: a headland and the lane to the next field. */
export const DEFAULT_MARGIN_M = 250;

const Zoom = Type.Integer({ minimum: 0, maximum: 22 });
const Margin = Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_MARGIN_M, description: 'metres around each farm' }));

/** The area to keep: every farm of an account (each farm's box with the margin), one farm, or a box. */
export const OfflineAreaChoice = Type.Union([
  Obj({ kind: Type.Literal('farms'), account: AccountId, margin: Margin }),
  Obj({ kind: Type.Literal('farm'), farm: Id, margin: Margin }),
  Obj({ kind: Type.Literal('box'), bbox: BBox }),
]);
export type OfflineAreaChoice = Static<typeof OfflineAreaChoice>;

export const OfflineRequest = Obj({ layer: LayerId, area: OfflineAreaChoice, minZoom: Zoom, maxZoom: Zoom });
export type OfflineRequest = Static<typeof OfflineRequest>;

export const OfflineEstimate = Obj({
  /** Tiles of the area at the zooms (a tile under two farms counted once). */
  tiles: Type.Integer({ minimum: 0 }),
  /**
   * Bytes the file would take, estimated from a few of the area's real tiles downloaded now (`sampled` of them, per
   * zoom scaled by that zoom's count); null when none could be read (offline, the server refusing).
   */
  bytesEstimate: Nullable(Type.Integer({ minimum: 0 })),
  sampled: Type.Integer({ minimum: 0 }),
  /** The most tiles one download takes (FURROW_OFFLINE_MAX_TILES). */
  cap: Type.Integer({ minimum: 1 }),
  /** Why a download would be refused (over the cap: what to change); null when it can go. */
  problem: Nullable(Type.String()),
  /** Why there is no estimate of size (no sample tile could be read: the server's answer, or offline); null with one. */
  sampleProblem: Nullable(Type.String()),
});
export type OfflineEstimate = Static<typeof OfflineEstimate>;

export const OfflineProgress = Obj({
  /**
   * Tiles done (stored, or empty at the server: 404, 204, 410) of `total`; `bytes` stored; `failed` given up on after
   * the retries (with backoff) of this run — or, for a paused download, those its file records as failed.
   */
  done: Type.Integer(), total: Type.Integer(), bytes: Type.Integer(), failed: Type.Integer(),
});
export type OfflineProgress = Static<typeof OfflineProgress>;

export const OfflineResult = Obj({
  ...OfflineProgress.properties,
  /**
   * The layer's area now kept offline; null when tiles failed (the download stays paused: offlineResume tries them
   * again, or offlineKeepPartial keeps the area without them).
   */
  offline: Nullable(OfflineArea),
});
export type OfflineResult = Static<typeof OfflineResult>;

/** A download under way or paused (by the user, or by the host stopping). */
export const OfflineDownload = Obj({
  layer: LayerId,
  state: Type.Union([Type.Literal('running'), Type.Literal('paused')]),
  ...OfflineProgress.properties,
  bbox: BBox, minZoom: Zoom, maxZoom: Zoom,
});
export type OfflineDownload = Static<typeof OfflineDownload>;

const Layer = Obj({ layer: LayerId });

export const OFFLINE_API = {
  offlineEstimate: {
    callers: PAGE_AND_CLI, description: "How many tiles an online layer's area at a zoom range is, an estimate of its size from a few real tiles, and whether the cap allows it",
    args: OfflineRequest, result: OfflineEstimate,
  },
  offlineDownload: {
    callers: PAGE_AND_CLI,
    description: "Downloads an online layer's area at a zoom range into a file the host keeps (bounded concurrency, Retry-After honoured, failures retried with backoff), then sets it as the layer's area offline (replacing any earlier one only once complete); aborting pauses it; too_large beyond the cap; busy while another download runs",
    args: OfflineRequest, result: OfflineResult, progress: OfflineProgress,
  },
  offlineUpdate: {
    callers: PAGE_AND_CLI,
    description: "Downloads a layer's area kept offline again (the same area and zooms) into a new file, which replaces the old one once complete; as offlineDownload otherwise; not_found when the layer has no area",
    args: Layer, result: OfflineResult, progress: OfflineProgress,
  },
  offlineResume: {
    callers: PAGE_AND_CLI, description: "Goes on with a layer's paused download where it stopped (tiles already in its file are not fetched again); not_found when none is paused",
    args: Layer, result: OfflineResult, progress: OfflineProgress,
  },
  offlineKeepPartial: {
    callers: PAGE_AND_CLI,
    description: "Completes a layer's paused download without the tiles that failed after their retries (every other tile done): the area becomes the layer's, its `missing` saying how many tiles it lacks, and an update tries them again; not_found when none is paused, invalid_arguments while tiles are left that were not tried",
    args: Layer, result: OfflineResult,
  },
  offlineCancel: {
    callers: PAGE_AND_CLI, description: "Stops a layer's download (running or paused) and removes what it had written; the layer's complete area, if any, stays",
    args: Layer, result: Type.Null(),
  },
  offlineDelete: {
    callers: PAGE_AND_CLI, description: "Removes a layer's area kept offline (its file, and `offline` from the layer); nothing when it has none",
    args: Layer, result: Type.Null(),
  },
  offlineDownloads: {
    callers: PAGE_AND_CLI, description: 'The downloads running or paused (a download the host stopped mid-way is paused), with how far each went',
    args: Obj({}), result: Type.Array(OfflineDownload),
  },
  // A page's only: the path is readable by the page session that asked (its key), as long as it lasts.
  offlineTiles: {
    callers: PAGE_ONLY,
    description: "Where the page reads a layer's tiles kept offline: a bytes path template with {z}, {x} and {y} (XYZ rows); null when the layer has none",
    args: Layer, result: Nullable(Obj({ template: Type.String() })),
  },
} satisfies Contract;
