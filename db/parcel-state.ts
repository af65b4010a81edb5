// A parcel row as the state the merge compares, and its merge base.
import type { Metadata } from '../core/parcels/validate.ts';
import type { ParcelRow, ParcelState } from './types.ts';

export function parcelStateOfRow(r: Pick<ParcelRow, 'name' | 'metadata' | 'geometry' | 'source_type' | 'point' | 'hectares'>): ParcelState {
  return {
    name: r.name,
    metadata: JSON.parse(r.metadata) as Metadata,
    geometry: JSON.parse(r.geometry) as ParcelState['geometry'],
    source_type: r.source_type,
    point: r.point ? (JSON.parse(r.point) as [number, number]) : null,
    hectares: r.hectares,
  };
}

/**
 * The last state known to be on the service (the three-way merge's ancestor), as JSON. `base` NULL on a parcel the
 * service has means "exactly this row's fields": a create's 201 leaves it so (the service holds what was sent), and
 * so does a pull that found the row as the service has it; the first local write of a user field stores the
 * state it replaces (rows.ts updateRow), so the ancestor is never lost. Writing the base of every created parcel
 * doubled the bytes a push wrote into the mirror. Null for a parcel the service has never had.
 */
export function parcelBase(r: ParcelRow): string | null {
  if (r.base !== null) return r.base;
  return r.server_id === null ? null : JSON.stringify(parcelStateOfRow(r));
}
