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
  /**
   * Where `seq` is every account's (PostgreSQL's one sequence): the account's own latest number up to it (at least
   * prunedSeq), which the cursors handed out carry instead, so that an account's cursor never moves with another
   * organization's writes (polling it would tell how much they write). Resuming from it gives the same changes:
   * the account has none between it and `seq`.
   */
  latest?: number;
}

/**
 * What a store's changes.read found, from one snapshot: rows only when asked for (`since` given), with the live
 * parcels and plants among them as the scope sees them, read in one query each (by id; a missing one is a tombstone).
 */
export interface ChangeRead extends ChangeState {
  rows: ChangeRow[]; parcels: Map<number, ParcelRow>; plants: Map<number, PlantRow>;
  /** The rows stop short of `limit` because the page reached its size (pageBytes): more follow. */
  cut?: boolean;
}

/**
 * Most bytes of objects one page of the change feed carries (GET /api/changes/): a page stops at the change that would
 * pass it, with at least one change. By count alone a page could be 10,000 parcels at the vertex cap (~400 KB of JSON
 * each): 4 GB of text built in the service's memory for one request, and far past any client's answer cap.
 */
export const CHANGES_PAGE_BYTES = 16 * 1024 * 1024;
/** Rows whose parcels and plants a store reads at once while it fills a page: what it holds past the page's size. */
export const CHANGES_READ_CHUNK = 50;

/** About what a change adds to its page, in bytes: its object's text (geometry, metadata, name) and the rest of its item. */
export function changeBytes(r: ChangeRow, read: Pick<ChangeRead, 'parcels' | 'plants'>): number {
  if (r.deleted) return 64;
  if (r.entity === 'parcel') {
    const p = read.parcels.get(r.id);
    return p ? 400 + p.geometry.length + p.metadata.length + p.name.length + (p.point?.length ?? 0) : 64;
  }
  if (r.entity === 'plant') {
    const pl = read.plants.get(r.id);
    return pl ? 400 + pl.point.length + (pl.shape?.length ?? 0) + (pl.info?.length ?? 0) : 64;
  }
  // A farm or a crop: a name and a few fields.
  return 1024;
}

/**
 * A page's rows from `from` to `to`, their parcels and plants read, counted into `bytes` (what the page's rows before
 * them came to): the new total, or the row to end the page at when one would take it past `maxBytes` (never the
 * first: a page has at least one change). A store reads a chunk's objects, then asks this, chunk after chunk.
 */
export function countChunk(read: ChangeRead, from: number, to: number, bytes: number, maxBytes: number): { bytes: number; end: number | null } {
  for (let k = from; k < to; k++) {
    bytes += changeBytes(read.rows[k]!, read);
    if (bytes > maxBytes && k > 0) return { bytes, end: k };
  }
  return { bytes, end: null };
}

/** Ends a page's rows at `end` (countChunk): the rows after it come on the next page. */
export function endPage(read: ChangeRead, end: number): void {
  read.rows = read.rows.slice(0, end);
  read.cut = true;
}
