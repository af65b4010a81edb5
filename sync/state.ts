// Conversions between mirror rows, the merge states and the wire shapes of the service.

import type { CropRow, CropState, ParcelState } from '../db/types.ts';
import type { Crop } from '../core/schemas/crops.ts';
import type { Metadata } from '../core/parcels/validate.ts';
import { parcelColumnsOf, type ParcelColumns } from '../core/parcels/columns.ts';
import { listedGeometryText } from './listed-geometry.ts';
import type { ParcelFeature } from '../core/schemas/parcels.ts';
import { REF_KEY } from '../core/parcels/client-ref.ts';
import { parcelStateOfFeature, parcelStateOfRow } from '../db/parcel-state.ts';

export { parcelStateOfFeature, parcelStateOfRow };

export { REF_KEY };

/** Row columns for a parcel state (what pull and merge write). */
export function parcelColumns(s: ParcelState): ParcelColumns {
  return parcelColumnsOf({ ...s, sourceType: s.source_type });
}

/**
 * The row columns of a listed parcel that carries no client reference: parcelColumns(parcelStateOfFeature(f).state),
 * made from the feature itself. A first pull makes them for every parcel (50,000): the state in between (a rest copy
 * of the metadata, two object spreads) cost about a third as much as serializing the geometry, and was garbage at once.
 * The geometry as the page spelled it when sync/listed-geometry.ts kept it (the same JSON value), else serialized.
 */
export function listedParcelColumns(f: ParcelFeature): ParcelColumns {
  const p = f.properties;
  return parcelColumnsOf({
    name: p.name, metadata: p.metadata, sourceType: p.source_type, geometry: f.geometry as ParcelState['geometry'],
    point: p.point ? [p.point[0]!, p.point[1]!] : null, hectares: p.hectares, geometryText: listedGeometryText(f.geometry),
  });
}

/** The geom a create or PATCH sends: the original point with its hectares for point parcels. */
export function geomInput(s: ParcelState): unknown {
  if (s.source_type === 'Point' && s.point) {
    return { type: 'Feature', properties: { metadata: { hectares: s.hectares } }, geometry: { type: 'Point', coordinates: s.point } };
  }
  return { type: 'Feature', properties: {}, geometry: s.geometry };
}

export function parcelInput(localId: string, s: ParcelState): { name: string; metadata: Metadata; geom: unknown } {
  return { name: s.name, metadata: { ...s.metadata, [REF_KEY]: localId }, geom: geomInput(s) };
}

export function cropStateOfRow(r: CropRow): CropState {
  return {
    name: r.name, campaign: r.campaign, area: r.area, variety: r.variety, harvested_qty: r.harvested_qty,
    sowing: r.sowing, closure: r.closure, is_active: r.is_active === 1, family_id: r.family_id,
  };
}

export function cropStateOfWire(c: Crop): CropState {
  return {
    name: c.name, campaign: c.campaign, area: c.area, variety: c.variety, harvested_qty: c.harvested_qty,
    sowing: c.sowing, closure: c.closure, is_active: c.is_active, family_id: c.family?.id ?? null,
  };
}

export function cropColumns(s: CropState, familyName?: string | null): Partial<CropRow> {
  return {
    name: s.name, campaign: s.campaign, area: s.area, variety: s.variety, harvested_qty: s.harvested_qty, sowing: s.sowing,
    closure: s.closure, is_active: s.is_active ? 1 : 0, family_id: s.family_id, ...(familyName !== undefined ? { family_name: familyName } : {}),
  };
}
