// The app's backend contract, importing a file the user drops on the map (or picks with Import): its bytes cross the
// transport (a browser page has no file path), the backend keeps them in a temporary file and answers with a preview
// of every feature — valid or why not, by the import's own rules (core/parcels/validate.ts) — then imports the valid
// ones through the same import as importFile. Part of API (core/api.ts).
import { Type, type Static } from '@sinclair/typebox';
import { CLI_ONLY, PAGE_AND_CLI, type Contract } from './rpc.ts';
import { AccountId, BBox, Id, Name, Nullable, Obj } from './api-schemas.ts';

/**
 * The largest file the app previews (bytes). Its base64 (4/3 of it) stays well inside browser mode's WebSocket frame
 * limit (backend/browser-server.ts, 64 MiB); a larger file is refused (too_large) with the CLI's `import` as the way:
 * it reads the file from disk, of any size, in parallel.
 */
export const IMPORT_PREVIEW_MAX_BYTES = 20 * 1024 * 1024;
/** Features a preview lists one by one (it counts them all): the invalid ones first, then valid ones. */
export const IMPORT_PREVIEW_MAX_LISTED = 5000;
/** How long a preview's file is kept, unused, before it is removed (a new preview of the account removes it too). */
export const IMPORT_PREVIEW_TTL_MS = 30 * 60_000;
/**
 * The largest NTv2 grid file the app keeps (importGrid): national grids are a few MB (BETA2007 84 KB, OSTN15 15 MB,
 * Canada's NTv2_0 24 MB); its base64 stays inside browser mode's WebSocket frame limit (64 MiB).
 */
export const IMPORT_GRID_MAX_BYTES = 40 * 1024 * 1024;
/** The file types the app takes, by extension (the backend tells them by their bytes too). */
export const IMPORT_EXTENSIONS = ['.geojson', '.json', '.kml', '.kmz', '.zip'] as const;

export const ImportPreviewFeature = Obj({
  /** 0-based, in the file's order, as the import's problems number features ("Feature 3"). */
  index: Type.Integer({ minimum: 0 }),
  /** The file's name for it; null: the import names it after the farm and its number ("Farm 4"). */
  name: Nullable(Type.String()),
  /** As the file has it (Polygon, MultiPolygon, Point, LineString…); null without a geometry. */
  geometryType: Nullable(Type.String()),
  /** Parcels it becomes: a MultiPolygon one per part; 0 when it cannot be imported. */
  parcels: Type.Integer({ minimum: 0 }),
  /** Geodesic hectares (a point's own), when it can be imported. */
  hectares: Nullable(Type.Number()),
  /** Why it cannot be imported, in words (the import's own messages); empty when it can. */
  problems: Type.Array(Obj({ code: Type.String(), message: Type.String() })),
  /** An invalid feature's shape for the map (GeoJSON in WGS84), when it has one that can be drawn. */
  geometry: Nullable(Obj({ type: Type.String(), coordinates: Type.Unknown() })),
  /** Its parcels that are the same shape as a parcel the account has already (core/geo/same-shape.ts): 0 when it cannot be imported. */
  duplicates: Type.Integer({ minimum: 0 }),
  /** The first parcel already there that one of them matches: its name and its farm's. */
  sameAs: Nullable(Obj({ name: Type.String(), farm: Type.String() })),
});
export type ImportPreviewFeature = Static<typeof ImportPreviewFeature>;

/** The coordinate system a file is in, as the preview and the import name it (db/import/crs-source.ts FileCrs). */
export const ImportCrs = Obj({
  /** Its EPSG code; null for a CRS its .prj describes without one Furrow could match. */
  code: Nullable(Type.Integer()),
  name: Type.String(),
  /** Its coordinates were transformed to WGS84 (false: they were WGS84 longitude/latitude already). */
  reprojected: Type.Boolean(),
  /** How its datum was shifted to WGS84: not at all (WGS84, ETRS89, RGF93…), by published Helmert parameters, or by an NTv2 grid. */
  shift: Type.Union([Type.Literal('none'), Type.Literal('helmert'), Type.Literal('grid')]),
  /** The grid file of a grid shift. */
  grid: Nullable(Type.String()),
  /** Metres: the EPSG dataset's accuracy for a Helmert shift, when it gives one. */
  accuracy: Nullable(Type.Number()),
});
export type ImportCrs = Static<typeof ImportCrs>;

export const ImportPreview = Obj({
  /** Names the file kept for importPreviewed (until it is imported, discarded, replaced or `expires`). */
  preview: Type.String(),
  account: AccountId,
  fileName: Type.String(),
  format: Type.Union([Type.Literal('geojson'), Type.Literal('kml'), Type.Literal('zip')]),
  features: Type.Array(ImportPreviewFeature),
  /** Features in the file, those that can be imported and those that cannot. */
  total: Type.Integer(), valid: Type.Integer(), invalid: Type.Integer(),
  /** What the valid features become: parcels (parts counted) and hectares. */
  parcels: Type.Integer(), hectares: Type.Number(),
  /** Of those parcels, the ones the account has already (the same shape), and the valid features all of whose parcels are. */
  duplicates: Type.Integer(), duplicateFeatures: Type.Integer(),
  /** More features than IMPORT_PREVIEW_MAX_LISTED: `features` lists every invalid one first (up to it). */
  truncated: Type.Boolean(),
  /** The account's parcel limit the features were checked against (hectares). */
  parcelLimit: Type.Number(),
  /** Around the valid parcels and the invalid shapes: where the map shows the file. */
  bbox: Nullable(BBox),
  /** What reading the file did that the user should know (not UTF-8, heights not kept…). */
  notes: Type.Array(Type.String()),
  /** The file's coordinate system: every shape and hectare above is in WGS84, reprojected from it. */
  crs: ImportCrs,
  expires: Type.String({ description: 'ISO time' }),
});
export type ImportPreview = Static<typeof ImportPreview>;

/** Where the valid features go: an existing farm of the preview's account, or a new farm by name. */
const ImportTarget = Type.Union([Obj({ id: Id }), Obj({ name: Name })]);

export const ImportProgress = Obj({ phase: Type.Union([Type.Literal('reading'), Type.Literal('writing')]), done: Type.Integer(), total: Type.Integer(), unit: Type.Union([Type.Literal('bytes'), Type.Literal('parcels')]) });
export const ImportSummary = Obj({
  farm: Id, farmName: Type.String(),
  /** Parcels created, counting each part of a split MultiPolygon (`parts` of them). */
  imported: Type.Integer(), parts: Type.Integer(),
  /** Parcels left out as already in the account (importPreviewed's skipDuplicates; importFile never does). */
  duplicates: Type.Integer(),
  /** With skipInvalid: features left out, and their problems (the first 1,000 of `problemCount`). */
  skipped: Type.Integer(),
  problems: Type.Array(Obj({ feature: Type.Integer(), message: Type.String() })),
  problemCount: Type.Integer(),
  notes: Type.Array(Type.String()),
  /** The coordinate system the file was in (its parcels were reprojected to WGS84 from it). */
  crs: ImportCrs,
});

export const IMPORTS_API = {
  importFile: {
    // A path names any file the user may read: the command line's. The page sends the file's bytes (importPreview).
    callers: CLI_ONLY, description: 'Imports a GeoJSON, KML/KMZ or zipped Shapefile into a farm (created when missing); all or nothing, cancellable',
    args: Obj({ account: AccountId, path: Type.String({ minLength: 1, maxLength: 4096 }), farm: Name, skipInvalid: Type.Optional(Type.Boolean()) }),
    result: ImportSummary,
    progress: ImportProgress,
  },
  importPreview: {
    callers: PAGE_AND_CLI, description: 'Reads a dropped GeoJSON, KML/KMZ or zipped Shapefile (its bytes in base64) and checks every feature with the service\'s rules and the account\'s limit, importing nothing; too_large above IMPORT_PREVIEW_MAX_BYTES (the CLI imports any size)',
    args: Obj({
      account: AccountId,
      fileName: Type.String({ minLength: 1, maxLength: 1000 }),
      // Room for a file somewhat over the limit, so that it is refused with too_large and the way out, not as a
      // malformed call; the page checks the size before it sends anything.
      data: Type.String({ maxLength: Math.ceil((IMPORT_PREVIEW_MAX_BYTES * 1.25) / 3) * 4 }),
    }),
    result: ImportPreview,
    progress: Obj({ done: Type.Integer(), total: Type.Integer() }),
  },
  importPreviewed: {
    callers: PAGE_AND_CLI, description: "Imports a preview's valid features into a farm of its account (or a new one), as importFile with skipInvalid does (undoable like it, with progress, cancellable); the preview's file is removed once imported",
    args: Obj({
      preview: Type.String({ minLength: 1, maxLength: 100 }), farm: ImportTarget,
      /** Leave out the parcels the preview marked as the account's already (the same shape); off unless asked. */
      skipDuplicates: Type.Optional(Type.Boolean()),
    }),
    result: Obj({
      farm: Id, farmName: Type.String(), imported: Type.Integer(), parts: Type.Integer(), skipped: Type.Integer(),
      /** With skipDuplicates: parcels left out as already in the account. */
      duplicates: Type.Integer(),
      problemCount: Type.Integer(), notes: Type.Array(Type.String()),
    }),
    progress: Obj({ done: Type.Integer(), total: Type.Integer() }),
  },
  importGrid: {
    callers: PAGE_AND_CLI,
    description: 'Keeps an NTv2 grid file (.gsb) the user has in FURROW_HOME/grids, for the datum shifts that need it (a file refused with grid_missing names it): only a grid an EPSG definition names, checked to be NTv2; replaces one of that name',
    args: Obj({
      name: Type.String({ minLength: 5, maxLength: 100 }),
      data: Type.String({ maxLength: Math.ceil((IMPORT_GRID_MAX_BYTES * 1.25) / 3) * 4 }),
    }),
    result: Obj({ name: Type.String(), bytes: Type.Integer() }),
  },
  importPreviewDiscard: {
    callers: PAGE_AND_CLI, description: "Removes a preview's file now (Cancel); nothing when it is gone already",
    args: Obj({ preview: Type.String({ minLength: 1, maxLength: 100 }) }),
    result: Type.Null(),
  },
} satisfies Contract;
