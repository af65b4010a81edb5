// A parcel row as the state the merge compares, and its merge base.
import type { Metadata } from '../core/parcels/validate.ts';
import type { ParcelFeature } from '../core/schemas/parcels.ts';
import { REF_KEY } from '../core/parcels/client-ref.ts';
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

/** A parcel as the service lists or creates it: the state the merge compares, and the client reference it carries. */
export function parcelStateOfFeature(f: ParcelFeature): { state: ParcelState; ref: string | null } {
  const { [REF_KEY]: ref, ...metadata } = f.properties.metadata;
  return {
    state: {
      name: f.properties.name,
      metadata,
      geometry: f.geometry as ParcelState['geometry'],
      source_type: f.properties.source_type,
      point: f.properties.point ? [f.properties.point[0]!, f.properties.point[1]!] : null,
      hectares: f.properties.hectares,
    },
    ref: typeof ref === 'string' ? ref : null,
  };
}
