// The app's backend contract, exports: an account's, a farm's or some parcels as GeoJSON or CSV with WKT — written to
// a path (the command line's: exportFile), or written by the host for the page to download at a path both shells
// serve (exportDownload: core/bytes-protocol.ts, /bytes/<session key>/<id>/<name>), so that any size crosses, streamed
// from disk by browser mode's server or Electron's main, never as one JSON string in an answer. Part of API
// (core/api.ts).
import { Type, type Static } from '@sinclair/typebox';
import { CLI_ONLY, PAGE_ONLY, type Contract } from './rpc.ts';
import { AccountId, Id, Obj } from './api-schemas.ts';
import { TableQuery } from './api-table.ts';

export const ExportFormat = Type.Union([Type.Literal('geojson'), Type.Literal('csv')]);

/**
 * The EPSG code of the coordinate system to write the shapes in (db/export-crs.ts); WGS84 (4326) when left out. A
 * GeoJSON names it in the legacy "crs" member, which Furrow's import (and GDAL, QGIS) read back.
 */
export const ExportCrs = Type.Integer({ minimum: 1, maximum: 32767 });

export const Download = Obj({
  /** Where the page fetches it: a URL path under /bytes/ on the page's own origin (renderer/bytes-url.ts), never a file's path. */
  path: Type.String(),
  /** The name it is saved under (its Content-Disposition says it too). */
  fileName: Type.String(),
  parcels: Type.Integer(),
  /** Its size. */
  bytes: Type.Integer(),
  /**
   * With `unsent`: how many of the account's changes the service does not have are left out, being no parcel's that
   * is still there (a farm's, a crop's, a deleted parcel's).
   */
  otherUnsent: Type.Optional(Type.Integer()),
});
export type Download = Static<typeof Download>;

export const EXPORT_API = {
  exportFile: {
    // A path names any file the user may write: the command line's. The page downloads what the host writes (exportDownload).
    callers: CLI_ONLY, description: 'Writes parcels (one account, one farm, or all) as GeoJSON (.geojson/.json) or CSV with WKT (.csv), in WGS84 or the EPSG coordinate system `crs`, as they were when it began; cancellable',
    args: Obj({ path: Type.String({ minLength: 1, maxLength: 4096 }), account: Type.Optional(AccountId), farm: Type.Optional(Id), crs: Type.Optional(ExportCrs) }),
    result: Obj({ format: ExportFormat, parcels: Type.Integer() }),
    progress: Obj({ done: Type.Integer(), total: Type.Integer() }),
  },
  // A page's only: the bytes path is readable by the page session that asked (its key), for a limited time. The
  // command line writes a file where it likes (exportFile).
  exportDownload: {
    callers: PAGE_ONLY,
    description: "An account's parcels (a farm's, or the ones given) as a GeoJSON or CSV file written by the host, as they were when it began, to download at the path answered (any size; progress; cancellable)",
    args: Obj({
      account: AccountId, farm: Type.Optional(Id), parcels: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 1000 })),
      /** Only the parcels with a change the service does not have (queued, sent without an answer, rejected, blocked, in conflict). */
      unsent: Type.Optional(Type.Boolean()),
      /** The rows the attribute table shows (its query: the account's, filtered, in its order), of any number. */
      table: Type.Optional(TableQuery),
      format: ExportFormat, crs: Type.Optional(ExportCrs),
    }),
    result: Download,
    progress: Obj({ done: Type.Integer(), total: Type.Integer() }),
  },
} satisfies Contract;
