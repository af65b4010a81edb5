// The app's backend, declared once: every query, command and long-running job the desktop app (and the CLI) can
// ask of the mirror host, with its arguments, result and progress as TypeBox schemas, and the events the host
// sends. Plain JSON only; geometry is GeoJSON in WGS84 [longitude, latitude]. core/rpc.ts proxies it between
// processes: the host checks every call's arguments against these schemas before a handler runs.
import { Type, type Static } from '@sinclair/typebox';
import { CLI_ONLY, PAGE_AND_CLI, type Contract } from './rpc.ts';
import { AccountId, BBox, Id, Lat, Lon, Metadata, Name, Nullable, Obj, PolygonGeometry, SyncState } from './api-schemas.ts';
import { ROTATIONS_API } from './api-rotations.ts';
import { IMPORTS_API } from './api-imports.ts';
import { ACCOUNTS_API } from './api-accounts.ts';
import { MAX_METADATA_FILTERS, MAX_METADATA_FILTER_KEY_LENGTH, MAX_METADATA_FILTER_VALUES, MAX_METADATA_FILTER_VALUE_LENGTH } from './schemas/common.ts';

export { API_VERSION, ApiErrorCode } from './api-codes.ts';
export { Metadata, PolygonGeometry, BBox, SyncState } from './api-schemas.ts';
export { CropFamilySummary, FarmRotation, PlantFeature, RotationCrop, RotationWarning } from './api-rotations.ts';
export { ImportPreview, ImportPreviewFeature } from './api-imports.ts';
export { DeactivationPreview, DeactivationResult, OrgAccount, Organization, TokenState } from './api-accounts.ts';

export const BlockedAccount = Obj({ account: AccountId, service: Type.String(), code: Nullable(Type.String()), reason: Type.String(), wayOut: Type.String(), waiting: Type.Integer() });
export type BlockedAccount = Static<typeof BlockedAccount>;

export const StatusCounts = Obj({
  pending: Type.Integer(), in_flight: Type.Integer(), uncertain: Type.Integer(), synced: Type.Integer(),
  rejected: Type.Integer(), conflicts: Type.Integer(), blocked: Type.Integer(),
});

export const AccountSummary = Obj({
  id: AccountId,
  label: Type.String(),
  service: Type.String(),
  method: Type.Union([Type.Literal('api_key'), Type.Literal('bearer')]),
  /** Why syncing this account needs the user, what to do about it, and how many changes wait (none lost). */
  blocked: Type.Union([BlockedAccount, Type.Null()]),
  lastPull: Type.Union([Type.String(), Type.Null()]),
  /** The agreed maximum parcel size in hectares (setParcelLimit): the map refuses a drawn parcel above it before saving. */
  parcelLimit: Type.Number(),
  counts: StatusCounts,
});
export type AccountSummary = Static<typeof AccountSummary>;

export const FarmSummary = Obj({
  id: Id, account: AccountId, serverId: Type.Union([Type.Integer(), Type.Null()]), name: Type.String(),
  parcels: Type.Integer(), hectares: Type.Number(), state: SyncState,
});
export type FarmSummary = Static<typeof FarmSummary>;

export const ParcelProperties = Obj({
  farm: Id,
  name: Type.String(),
  hectares: Type.Number(),
  serverId: Type.Union([Type.Integer(), Type.Null()]),
  state: SyncState,
  /** The service's reason for a rejection, or what a conflict is about. */
  reason: Type.Union([Type.String(), Type.Null()]),
  /** A hectare point: the point and hectares it was dropped with (its geometry is the square the service makes). */
  point: Type.Union([Type.Tuple([Type.Number(), Type.Number()]), Type.Null()]),
  /** The active crop (the newest sowing) and its family, when the viewport was asked with `crops`. */
  crop: Type.Optional(Type.Union([Obj({ name: Type.Union([Type.String(), Type.Null()]), family: Type.Union([Type.String(), Type.Null()]) }), Type.Null()])),
  metadata: Metadata,
});
export const ParcelFeature = Obj({ type: Type.Literal('Feature'), id: Id, geometry: PolygonGeometry, properties: ParcelProperties });
export type ParcelFeature = Static<typeof ParcelFeature>;
export const ParcelCollection = Obj({
  type: Type.Literal('FeatureCollection'),
  features: Type.Array(ParcelFeature),
  /** More parcels meet the box than `limit`: zoom in (or ask with a larger limit). */
  truncated: Type.Boolean(),
});
export type ParcelCollection = Static<typeof ParcelCollection>;

/** A new parcel: a drawn polygon, or a point with the hectares of the square the service will make around it. */
export const NewParcel = Type.Union([
  Obj({ farm: Id, name: Name, metadata: Type.Optional(Metadata), geometry: PolygonGeometry }),
  Obj({ farm: Id, name: Name, metadata: Type.Optional(Metadata), point: Type.Tuple([Lon, Lat]), hectares: Type.Number({ exclusiveMinimum: 0 }) }),
]);

export const Problem = Obj({
  kind: Type.String({ description: "'account_blocked', 'rejected', 'blocked' or 'conflict:<kind>'" }),
  id: Type.Union([Type.Integer(), Type.String()]),
  entity: Type.String(),
  name: Type.String(),
  reason: Type.String(),
});

/** One field that differs between the two sides of a parcel's conflict, as text to show ("—" sides are null: absent). */
export const ConflictDifference = Obj({
  field: Type.String({ description: "'name', 'metadata.<key>' or 'geometry'" }),
  mine: Nullable(Type.String()),
  theirs: Nullable(Type.String()),
  /** Edited differently on both sides since the last sync (the reason of the conflict); other differences are one side's edit. */
  overlaps: Type.Boolean(),
});
/** A parcel's open conflict with both sides, for the panel's keep mine / keep theirs. */
export const ParcelConflict = Obj({
  id: Type.Integer(),
  kind: Type.String({ description: "'edit', 'remote_delete', 'duplicate_on_service' or 'partial_batch'" }),
  reason: Type.String(),
  /** The service no longer has the parcel (a remote_delete): keep theirs discards it here. */
  deletedOnService: Type.Boolean(),
  differences: Type.Array(ConflictDifference),
});
export type ParcelConflict = Static<typeof ParcelConflict>;

const OpCounts = Obj({ create: Type.Integer(), update: Type.Integer(), delete: Type.Integer() });
/** What an account's next sync sends (queued work), and what it adds to the hectares the service bills. */
export const SyncPreview = Obj({
  ops: Obj({ farm: OpCounts, parcel: OpCounts, crop: OpCounts }),
  /** Created parcels, plus an edited shape's change, minus deleted parcels: the change to the billed total. */
  hectaresAdded: Type.Number(), hectaresCreated: Type.Number(), hectaresDeleted: Type.Number(),
  /** Work of unknown outcome, checked on the service before any of it is sent again. */
  uncertain: Type.Integer(),
});
/** Work that needs a look: uncertain (with what the engine found), rejected (the service's reason), or blocked. */
export const SyncItem = Obj({
  op: Type.Integer(), entity: Type.Union([Type.Literal('farm'), Type.Literal('parcel'), Type.Literal('crop')]),
  kind: Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('delete')]), localId: Id, name: Nullable(Type.String()),
  state: Type.Union([Type.Literal('uncertain'), Type.Literal('in_flight'), Type.Literal('rejected'), Type.Literal('blocked')]),
  reason: Nullable(Type.String()), sentAt: Nullable(Type.String()), checks: Type.Integer(), nextAttemptAt: Nullable(Type.String()), batch: Nullable(Type.String()),
});
export type SyncItem = Static<typeof SyncItem>;
/** An open conflict as the sync cockpit lists it, with the local id of what it is about. */
export const SyncConflict = Obj({
  id: Type.Integer(), entity: Type.String(), localId: Id, name: Type.String(), kind: Type.String(), reason: Type.String(),
  /** An edit conflict's fields that differ (a parcel's, or a crop's columns), to settle side by side; none for other kinds. */
  differences: Type.Array(ConflictDifference),
});
export const SyncDetails = Obj({ preview: SyncPreview, items: Type.Array(SyncItem), conflicts: Type.Array(SyncConflict) });
export type SyncDetails = Static<typeof SyncDetails>;

export const SyncProgress = Obj({
  account: AccountId,
  phase: Type.String(),
  done: Type.Integer(),
  total: Type.Integer(),
  bytes: Type.Integer(),
  message: Type.Optional(Type.String()),
});
export type SyncProgress = Static<typeof SyncProgress>;

export const AccountSync = Obj({
  account: AccountId, service: Type.String(), synced: Type.Boolean(), cancelled: Type.Boolean(), error: Nullable(Type.String()),
  /** Why the account cannot go on without the user (its code says what to do), as on AccountSummary. */
  blocked: Nullable(Type.String()), blockedCode: Nullable(Type.String()),
  /** The last request could not even connect: nothing of what is still queued reached the service. */
  unreachable: Nullable(Type.String()),
  sent: Type.Integer(), committed: Type.Integer(), rejected: Type.Integer(), conflicts: Type.Integer(),
  /** Parcels the pull listed; `received`: farms, parcels and crops it changed here (new, changed or gone on the service). */
  pulled: Type.Integer(), received: Type.Integer(),
  plantsChanged: Type.Integer(),
  /** Changes still queued or uncertain when the run ended (waiting for a retry or for settling), none lost. */
  left: Type.Integer(),
  pullNotDone: Nullable(Type.String()),
  pullStopped: Nullable(Obj({ stage: Type.String(), farmsDone: Type.Integer(), farms: Type.Integer() })),
  /** Remote deletions held because they would remove too much at once (run again with acceptRemoteDeletions). */
  deletionsHeld: Type.Array(Type.String()),
});
export type AccountSync = Static<typeof AccountSync>;

export const ImportProgress = Obj({ phase: Type.Union([Type.Literal('reading'), Type.Literal('writing')]), done: Type.Integer(), total: Type.Integer(), unit: Type.Union([Type.Literal('bytes'), Type.Literal('parcels')]) });
export const ImportSummary = Obj({
  farm: Id, farmName: Type.String(),
  /** Parcels created, counting each part of a split MultiPolygon (`parts` of them). */
  imported: Type.Integer(), parts: Type.Integer(),
  /** With skipInvalid: features left out, and their problems (the first 1,000 of `problemCount`). */
  skipped: Type.Integer(),
  problems: Type.Array(Obj({ feature: Type.Integer(), message: Type.String() })),
  problemCount: Type.Integer(),
  notes: Type.Array(Type.String()),
});

/**
 * The embedded map's metadata filter (core/parcels/metadata-filter.ts): key → accepted values (any of a key's, all
 * keys), within the service's maxima for `metadata[<key>]=<value>`.
 */
const ViewportFilter = Type.Record(
  // A Record's key is checked by its pattern only, in UTF-16 units: not empty, and room for the service's maximum
  // in characters (code points, up to two units each; the app's form counts characters).
  Type.RegExp(new RegExp(`^[\\s\\S]{1,${2 * MAX_METADATA_FILTER_KEY_LENGTH}}$`)),
  Type.Array(Type.String({ maxLength: 2 * MAX_METADATA_FILTER_VALUE_LENGTH }), { minItems: 1, maxItems: MAX_METADATA_FILTER_VALUES }),
  { maxProperties: MAX_METADATA_FILTERS, additionalProperties: false, description: 'Only parcels whose metadata matches, as on the embedded map' },
);

const Account = Obj({ account: AccountId });
const ServiceAddress = Type.String({ minLength: 1, maxLength: 2000 });
const ConnectArgs = Obj({
  service: ServiceAddress,
  token: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000 })),
  apiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  account: Type.Optional(AccountId),
  accountHeader: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  bearer: Type.Optional(Type.Boolean()),
  label: Type.Optional(Type.String({ maxLength: 200 })),
});
const ConnectResult = Obj({ account: AccountSummary, tokenExpires: Type.Union([Type.String(), Type.Null()]) });
const Side = Type.Union([Type.Literal('mine'), Type.Literal('theirs')]);
const AnyAccount = Obj({ account: Type.Optional(AccountId) });
const One = Obj({ id: Id });
const Nothing = Type.Null();

export const API = {
  hello: {
    callers: PAGE_AND_CLI, description: 'The first call: the host answers with its API version and refuses a client of another',
    args: Obj({ apiVersion: Type.Integer() }), result: Obj({ apiVersion: Type.Integer(), pid: Type.Integer() }),
  },
  accounts: { callers: PAGE_AND_CLI, description: 'The connected accounts with their counts and what blocks them', args: Obj({}), result: Type.Array(AccountSummary) },
  connect: {
    callers: PAGE_AND_CLI,
    description: "Adds an account once the service accepts its credentials (an account_access token, or the organization's API key and the account); the secrets stay in the backend",
    args: ConnectArgs,
    result: ConnectResult,
  },
  connectWithCommand: {
    callers: CLI_ONLY,
    description: 'As connect with an account_access token, kept fresh by running a command of the user\'s (at once when the token is refused, and at later syncs): the command line only — a page never supplies a command (its token provider is an address, setTokenProvider)',
    args: Obj({
      service: ServiceAddress, token: Type.String({ minLength: 1, maxLength: 10_000 }), tokenCommand: Type.String({ minLength: 1, maxLength: 2000 }),
      label: Type.Optional(Type.String({ maxLength: 200 })),
    }),
    result: ConnectResult,
  },
  disconnect: {
    callers: PAGE_AND_CLI, description: "Removes an account and all its data from this computer (the service keeps it); refused with the counts while it has unsynced work, unless discardUnsynced",
    args: Obj({ account: AccountId, discardUnsynced: Type.Optional(Type.Boolean()) }),
    result: Obj({ farms: Type.Integer(), parcels: Type.Integer(), crops: Type.Integer(), plants: Type.Integer(), discarded: Type.Integer() }),
  },
  status: {
    callers: PAGE_AND_CLI, description: 'Counts over one account or all, and every blocked account with its reason and way out',
    args: Obj({ account: Type.Optional(AccountId) }), result: Obj({ counts: StatusCounts, blocked: Type.Array(BlockedAccount) }),
  },
  setParcelLimit: {
    callers: PAGE_AND_CLI, description: "The account's agreed maximum parcel size (null: the default, 100 ha); the hectares now in force",
    args: Obj({ account: AccountId, hectares: Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000 })) }), result: Obj({ hectares: Type.Number() }),
  },
  farms: { callers: PAGE_AND_CLI, description: "An account's farms", args: Account, result: Type.Array(FarmSummary) },
  farmExtent: {
    callers: PAGE_AND_CLI, description: "The box around a farm's live parcels (null when it has none): what the map fits to, without reading the parcels",
    args: Obj({ farm: Id }), result: Nullable(BBox),
  },
  viewport: {
    callers: PAGE_AND_CLI, description: "An account's parcels whose bounding box meets the box (R*Tree), for the map",
    args: Obj({
      account: AccountId, bbox: BBox, limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50_000 })), metadata: Type.Optional(ViewportFilter),
      /** Each parcel with its active crop and family (properties.crop), for a map coloured by crop. */
      crops: Type.Optional(Type.Boolean()),
    }),
    result: ParcelCollection,
  },
  parcel: { callers: PAGE_AND_CLI, description: 'One parcel, by local id', args: One, result: ParcelFeature },
  search: {
    callers: PAGE_AND_CLI, description: "Parcels of an account whose name or metadata values match, as you type",
    args: Obj({ account: AccountId, text: Type.String({ maxLength: 200 }), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) }),
    result: Type.Array(ParcelFeature),
  },
  createFarm: { callers: PAGE_AND_CLI, description: 'A new farm in an account', args: Obj({ account: AccountId, name: Name }), result: FarmSummary },
  createParcel: { callers: PAGE_AND_CLI, description: 'A drawn polygon or a hectare point, validated with the service\'s rules', args: NewParcel, result: ParcelFeature },
  updateParcel: {
    callers: PAGE_AND_CLI, description: 'Name, metadata (replaced whole) or geometry of a parcel',
    args: Obj({ id: Id, name: Type.Optional(Name), metadata: Type.Optional(Metadata), geometry: Type.Optional(PolygonGeometry) }),
    result: ParcelFeature,
  },
  deleteParcel: { callers: PAGE_AND_CLI, description: 'Deletes a parcel (on the service at the next sync)', args: One, result: Nothing },
  history: {
    callers: PAGE_AND_CLI, description: "What undo and redo would do in an account (or in any)",
    args: AnyAccount, result: Obj({ undo: Type.Union([Type.String(), Type.Null()]), redo: Type.Union([Type.String(), Type.Null()]) }),
  },
  undo: { callers: PAGE_AND_CLI, description: "Undoes the account's last edit (or the last of any); its label, or null when there is none", args: AnyAccount, result: Type.Union([Type.String(), Type.Null()]) },
  redo: { callers: PAGE_AND_CLI, description: "Redoes the account's last undone edit (or the last of any)", args: AnyAccount, result: Type.Union([Type.String(), Type.Null()]) },
  problems: { callers: PAGE_AND_CLI, description: 'Blocked accounts, rejected items and open conflicts, with their reasons', args: Obj({ account: Type.Optional(AccountId) }), result: Type.Array(Problem) },
  syncDetails: {
    callers: PAGE_AND_CLI, description: "The sync cockpit's view of an account: what the next sync sends, the work that needs a look and the open conflicts",
    args: Account, result: SyncDetails,
  },
  parcelConflict: { callers: PAGE_AND_CLI, description: "A parcel's open conflict with what differs between its two sides, or null", args: One, result: Nullable(ParcelConflict) },
  resolve: {
    callers: PAGE_AND_CLI, description: "Settles a conflict: one side whole, or an edit conflict field by field (`fields`: a parcel's 'name', 'geometry', 'metadata.<key>'; a crop's columns), `keep` for the fields not named",
    args: Obj({
      conflict: Type.Integer({ minimum: 1 }), keep: Side,
      fields: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 1200 }), Side, { maxProperties: 2000 })),
    }),
    result: Obj({
      effect: Type.Union([Type.String(), Type.Null()]),
      /** Duplicates the choice removed from the service, with the answer to each DELETE. */
      deletedOnService: Type.Array(Obj({ entity: Type.String(), id: Type.Integer(), status: Type.Integer() })),
    }),
  },
  retry: { callers: PAGE_AND_CLI, description: 'Queues rejected items again and releases work waiting on a backoff', args: Obj({ account: Type.Optional(AccountId) }), result: Obj({ requeued: Type.Integer(), released: Type.Integer() }) },
  sync: {
    callers: PAGE_AND_CLI, description: 'Pushes local changes and pulls, account by account; cancellable (what is out is booked, the rest stays queued)',
    args: Obj({ account: Type.Optional(AccountId), push: Type.Optional(Type.Boolean()), pull: Type.Optional(Type.Boolean()), acceptRemoteDeletions: Type.Optional(Type.Boolean()) }),
    result: Type.Array(AccountSync),
    progress: SyncProgress,
  },
  exportFile: {
    // A path names any file the user may write: the command line's. The page exports with exportText (the bytes, saved by the page).
    callers: CLI_ONLY, description: 'Writes parcels (one account, one farm, or all) as GeoJSON (.geojson/.json) or CSV with WKT (.csv), as they were when it began; cancellable',
    args: Obj({ path: Type.String({ minLength: 1, maxLength: 4096 }), account: Type.Optional(AccountId), farm: Type.Optional(Id) }),
    result: Obj({ format: Type.Union([Type.Literal('geojson'), Type.Literal('csv')]), parcels: Type.Integer() }),
    progress: Obj({ done: Type.Integer(), total: Type.Integer() }),
  },
  embeddedMap: {
    callers: PAGE_AND_CLI, description: "The account's embedded map on the service, with the metadata filter given (the spec's metadata[<key>]=<value>): an address to open in the system browser",
    args: Obj({ account: AccountId, metadata: Type.Optional(ViewportFilter) }),
    result: Obj({ url: Type.String() }),
  },
  exportText: {
    callers: PAGE_AND_CLI, description: "An account's parcels (a farm's, or the ones given) as a GeoJSON or CSV file's text, for the app to save; at most EXPORT_TEXT_MAX parcels",
    args: Obj({
      account: AccountId, farm: Type.Optional(Id), parcels: Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 1000 })),
      format: Type.Union([Type.Literal('geojson'), Type.Literal('csv')]),
    }),
    result: Obj({ text: Type.String(), parcels: Type.Integer(), fileName: Type.String() }),
  },
  importFile: {
    // A path names any file the user may read: the command line's. The page sends the file's bytes (importPreview).
    callers: CLI_ONLY, description: 'Imports a GeoJSON, KML/KMZ or zipped Shapefile into a farm (created when missing); all or nothing, cancellable',
    args: Obj({ account: AccountId, path: Type.String({ minLength: 1, maxLength: 4096 }), farm: Name, skipInvalid: Type.Optional(Type.Boolean()) }),
    result: ImportSummary,
    progress: ImportProgress,
  },
  ...ROTATIONS_API,
  ...IMPORTS_API,
  ...ACCOUNTS_API,
} satisfies Contract;
export type Api = typeof API;

/** What changed in the mirror, so a map updates without reloading. Ids are local ids. */
export const ChangeEvent = Obj({
  type: Type.Literal('changed'),
  account: AccountId,
  farms: Type.Array(Id),
  /** Parcels written (created, edited, restored, their sync state moved) and removed. */
  parcels: Obj({ upserted: Type.Array(Id), removed: Type.Array(Id) }),
  /** Too many parcels changed to list (an import, a first pull): reload what is shown. */
  manyParcels: Type.Boolean(),
  crops: Type.Array(Id),
  plants: Type.Boolean(),
});
export type ChangeEvent = Static<typeof ChangeEvent>;
export const AccountsEvent = Obj({ type: Type.Literal('accounts') });
export const SyncEvent = Obj({ type: Type.Literal('sync'), progress: SyncProgress });
export type ApiEvent = Static<typeof ChangeEvent> | Static<typeof AccountsEvent> | Static<typeof SyncEvent>;
