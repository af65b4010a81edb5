import type { Metadata } from '../core/parcels/validate.ts';
import type { ParcelColumns } from '../core/parcels/columns.ts';

export type Entity = 'farm' | 'parcel' | 'crop';
export type OpKind = 'create' | 'update' | 'delete';
export type OpState = 'queued' | 'in_flight' | 'uncertain' | 'committed' | 'rejected' | 'conflict' | 'blocked';

export interface AccountRow {
  id: string;
  service_url: string;
  mode: 'api_key' | 'bearer';
  label: string;
  blocked: string | null;
  /** The code of the block (core/accounts/blocked.ts BlockedCode), with `blocked`. */
  blocked_code: string | null;
  last_pull: string | null;
  /** Where the next pull resumes the service's change feed (migration 009); null: the next pull lists everything. */
  change_cursor: string | null;
  /** What its reads must come after on a service reading from a standby (migration 012, sync/read-after.ts). */
  read_after: string | null;
  created: string;
}

export interface FarmRow {
  local_id: string;
  account_id: string;
  server_id: number | null;
  name: string;
  base: string | null;
  deleted: number;
  created: string;
  modified: string;
}

/** A parcel of the mirror: its columns (as the service stores them too), and the mirror's ids and sync state. */
export interface ParcelRow extends ParcelColumns {
  local_id: string;
  account_id: string;
  farm_local_id: string;
  server_id: number | null;
  key: string | null;
  /** PARCEL_RULES_VERSION the user fields were validated under when written, or null (see migration 002). */
  checked: number | null;
  base: string | null;
  deleted: number;
  created: string;
  modified: string;
}

/**
 * The columns of a parcel its create sends, and what the push checks on the way (db/rows.ts parcelsToSend): reading
 * only these, not the whole row, spared a push of 20,000 parcels about a third of its row reads.
 */
export type ParcelToSend = Pick<ParcelRow, 'local_id' | 'farm_local_id' | 'name' | 'source_type' | 'point' | 'geometry' | 'hectares' | 'metadata' | 'checked'>;

export interface CropRow {
  local_id: string;
  account_id: string;
  parcel_local_id: string | null;
  server_id: number | null;
  key: string | null;
  family_id: number | null;
  family_name: string | null;
  name: string | null;
  campaign: string | null;
  area: number | null;
  variety: string | null;
  harvested_qty: number | null;
  sowing: string | null;
  closure: string | null;
  is_active: number;
  base: string | null;
  deleted: number;
  created: string;
  modified: string;
}

export interface OutboxRow {
  id: number;
  account_id: string;
  entity: Entity;
  local_id: string;
  op: OpKind;
  state: OpState;
  batch_id: string | null;
  attempts: number;
  checks: number;
  next_attempt_at: string | null;
  last_error: string | null;
  sent_at: string | null;
  /** An update's last PATCHed state, JSON (migration 003). */
  sent_state: string | null;
  uncertain_at: string | null;
  created: string;
  modified: string;
}

/**
 * What the push of a first send needs of its op: the push reads only these (db/outbox.ts parcelCreatesDue); building
 * the other dozen fields of 20,000 ops it never looks at cost about a tenth of a second.
 */
export type SendOp = Pick<OutboxRow, 'id' | 'local_id' | 'attempts'> & {
  /** The parcel's rowid when the push planned the op (sync/parcel-plan.ts): the booking finds the row by it. */
  rowid?: number;
};

export type ConflictKind = 'edit' | 'remote_delete' | 'duplicate_on_service' | 'partial_batch';

/** A conflict kept for the user (`resolve ID --keep mine|theirs`); `resolved` says when and how, null while open. */
export interface ConflictRow {
  id: number;
  account_id: string;
  entity: Entity;
  local_id: string;
  kind: ConflictKind;
  base: string | null;
  mine: string | null;
  theirs: string | null;
  /** JSON array of the fields (or sentences) in conflict. */
  fields: string;
  created: string;
  resolved: string | null;
}

/** A plant as pulled from the service (plants are never edited here). */
export interface PlantRow {
  account_id: string;
  server_id: number;
  key: string;
  parcel_server_id: number | null;
  crop_server_id: number | null;
  /** The point, JSON [lon, lat]. */
  point: string;
  /** The crown, the service's GeoJSON Polygon as JSON, or null. */
  shape: string | null;
  /** The detection's free JSON, as JSON text, or null. */
  info: string | null;
  /** The crown's geodesic area in m², the service's decimal string. */
  area: string;
}

/** The user-editable state of a parcel, as the service sees it (base of the three-way merge). */
export interface ParcelState {
  name: string;
  metadata: Metadata;
  geometry: { type: 'Polygon'; coordinates: number[][][] };
  source_type: 'Polygon' | 'Point';
  point: [number, number] | null;
  hectares: number;
}

export interface CropState {
  name: string | null;
  campaign: string | null;
  area: number | null;
  variety: string | null;
  harvested_qty: number | null;
  sowing: string | null;
  closure: string | null;
  is_active: boolean;
  family_id: number | null;
}

export type Row = FarmRow | ParcelRow | CropRow;
