// The app's backend, declared once: every query, command and long-running job the desktop app (and the CLI) can
// ask of the mirror host, with its arguments, result, progress and callers as TypeBox schemas, and the events the
// host sends — one contract file per feature (core/api-<feature>.ts), combined here. Plain JSON only; geometry is
// GeoJSON in WGS84 [longitude, latitude]. core/rpc.ts proxies it between processes: the host checks every call's
// caller and arguments against these declarations before a handler runs.
import { Type } from '@sinclair/typebox';
import { PAGE_AND_CLI, type Contract, type EventContract, type PayloadOf } from './rpc.ts';
import { Obj } from './api-schemas.ts';
import { ACCOUNTS_API, ACCOUNTS_EVENTS } from './api-accounts.ts';
import { FARMS_API } from './api-farms.ts';
import { PARCELS_API, PARCELS_EVENTS } from './api-parcels.ts';
import { HISTORY_API } from './api-history.ts';
import { SYNC_API, SYNC_EVENTS } from './api-sync.ts';
import { CONFLICTS_API } from './api-conflicts.ts';
import { EXPORT_API } from './api-export.ts';
import { IMPORTS_API } from './api-imports.ts';
import { ROTATIONS_API } from './api-rotations.ts';
import { PLAN_API } from './api-plan.ts';
import { PLANTS_API } from './api-plants.ts';
import { VIEW_API } from './api-view.ts';
import { LAYERS_API } from './api-layers.ts';
import { LAYER_FILES_API } from './api-layer-files.ts';
import { OFFLINE_API } from './api-offline.ts';
import { POSITION_API, POSITION_EVENTS } from './api-position.ts';
import { TABLE_API } from './api-table.ts';
import { PRINT_API } from './api-print.ts';
import { PARCEL_TILES_API } from './api-parcel-tiles.ts';

export { API_VERSION, ApiErrorCode } from './api-codes.ts';
export { BBox, BlockedAccount, Metadata, PolygonGeometry, StatusCounts, SyncState } from './api-schemas.ts';
export { AccountSummary, DeactivationPreview, DeactivationResult, OrgAccount, Organization, TokenState } from './api-accounts.ts';
export { FarmSummary, ParcelListItem, ParcelPage } from './api-farms.ts';
export { ChangeEvent, NewParcel, ParcelCollection, ParcelFeature, ParcelProperties } from './api-parcels.ts';
export { AccountSync, Problem, SyncDetails, SyncItem, SyncPreview, SyncProgress } from './api-sync.ts';
export { ConflictDifference, ParcelConflict } from './api-conflicts.ts';
export { ImportPreview, ImportPreviewFeature, ImportProgress, ImportSummary } from './api-imports.ts';
export { CropFamilySummary, FarmRotation, RotationCrop, RotationWarning } from './api-rotations.ts';
export { FarmRules } from './api-plan.ts';
export { PlantFeature } from './api-plants.ts';
export { ViewSettings } from './api-view.ts';
export { BulkEdit, TableColumn, TableFilter, TablePage, TableQuery, TableRow } from './api-table.ts';
export { Download } from './api-export.ts';
export { LayerSource, MapLayer } from './api-layers.ts';
export { LayerFileInfo, LayerFileSource } from './api-layer-files.ts';
export { OfflineAreaChoice, OfflineDownload, OfflineEstimate, OfflineProgress, OfflineResult } from './api-offline.ts';
export { Fix, FixQuality, PositionSource, PositionState, PositionStatus, SerialPortInfo, Track, TrackPoint, TrackSettings } from './api-position.ts';

const SESSION_API = {
  hello: {
    callers: PAGE_AND_CLI, description: 'The first call: the host answers with its API version and refuses a client of another',
    args: Obj({ apiVersion: Type.Integer() }), result: Obj({ apiVersion: Type.Integer(), pid: Type.Integer() }),
  },
} satisfies Contract;

export const API = {
  ...SESSION_API,
  ...ACCOUNTS_API,
  ...FARMS_API,
  ...PARCELS_API,
  ...HISTORY_API,
  ...SYNC_API,
  ...CONFLICTS_API,
  ...EXPORT_API,
  ...IMPORTS_API,
  ...ROTATIONS_API,
  ...PLAN_API,
  ...PLANTS_API,
  ...VIEW_API,
  ...LAYERS_API,
  ...LAYER_FILES_API,
  ...OFFLINE_API,
  ...POSITION_API,
  ...TABLE_API,
  ...PRINT_API,
  ...PARCEL_TILES_API,
} satisfies Contract;
export type Api = typeof API;

/** Every event the host sends, by name (core/rpc.ts delivers each to its own listeners). */
export const API_EVENTS = {
  ...ACCOUNTS_EVENTS,
  ...PARCELS_EVENTS,
  ...SYNC_EVENTS,
  ...POSITION_EVENTS,
} satisfies EventContract;
export type ApiEvents = typeof API_EVENTS;
export type EventName = keyof ApiEvents & string;
export type EventPayload<K extends EventName> = PayloadOf<ApiEvents, K>;
