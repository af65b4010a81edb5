// The shapes the Store speaks (store.ts) that no schema of core/ already names: rows and inputs of admins, farms,
// parcels, plants and signing keys. Here rather than in the files of the shared helpers that use them, so that the
// interface and those helpers (which are written on top of a Store) do not import each other.
import type { ValidParcel } from '../../core/parcels/validate.ts';
import type { ParcelColumns } from '../../core/parcels/columns.ts';
import type { ParcelRow } from './parcel-json.ts';

export interface AdminInfo { id: number; organization_id: string; email: string; created: string }

/** An admin with the hash their password is checked against (sign-in only). */
export interface AdminCredentials extends AdminInfo { password_hash: string }

export interface Flash { kind: 'success' | 'error'; text: string }

export interface AdminSession {
  idHash: string;
  adminId: number;
  email: string;
  organizationId: string;
  organizationName: string;
  csrfToken: string;
  expires: string;
  flash: Flash | null;
}

export interface NewSession { token: string; csrfToken: string; expires: string }

/** A farm no account owns any more (unlinked, or its account purged): kept and billed until deleted. */
export interface OrphanFarm { id: number; name: string; parcel_count: number; hectares: number; created: string; modified: string }

/** A farm as the parcel writes need it: its account (whose limit applies) and organization. */
export interface VisibleFarm { id: number; account_id: string; organization_id: string }

/** A parcel to insert: validated by core inline, or prepared by the validation pool. */
export type NewParcel = ValidParcel | ParcelColumns;

export interface PlantRow {
  id: number; key: string; parcel_id: number | null; crop_id: number | null; point: string; shape: string | null;
  info: string | null; area_m2: number; created: string; modified: string;
}

export interface PlantQuery { search?: string; parcel?: number; limit: number; after?: number }

export interface SigningKey { kid: string; organization_id: string; secret: Uint8Array; created: string; retired: string | null }

export interface SigningKeyInfo { kid: string; created: string; retired: string | null; verifies_until: string | null }

// The change feed's rows (service/store/changes.ts), here with the other rows so that the Store interface and the feed
// read each other's types without a circle.
export type ChangeEntity = 'farm' | 'parcel' | 'crop' | 'plant';

export interface ChangeRow { entity: ChangeEntity; id: number; seq: number; deleted: boolean }

export interface ChangeState {
  /** The latest number (SQLite: the account's; PostgreSQL: the shared sequence's): every change up to it is committed and readable. */
  seq: number;
  /** Tombstones up to this number have been dropped: a cursor below it may have missed a deletion. */
  prunedSeq: number;
}

/**
 * What a store's changes.read found, from one snapshot: rows only when asked for (`since` given), with the live
 * parcels and plants among them as the scope sees them, read in one query each (by id; a missing one is a tombstone).
 */
export interface ChangeRead extends ChangeState { rows: ChangeRow[]; parcels: Map<number, ParcelRow>; plants: Map<number, PlantRow> }
