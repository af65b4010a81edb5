// How a parcel is stored, in the service's store and in the mirror alike: its geometry, point and metadata as JSON
// text (a listing streams the text as it is, never parsing it), and its bounding box as the four numbers the R*Tree
// indexes. The two tables add their own ids, ownership and timestamps; these columns, and how a validated geometry
// becomes them, are defined here once, so that the mirror and the service never store the same parcel differently.

import { bboxOf } from '../geo/bbox.ts';
import type { BBox, PolygonGeometry } from '../geo/types.ts';

/** A parcel's columns. `Text`: a string, or its UTF-8 (an import binds the bytes its workers wrote as they are). */
export interface ParcelColumns<Text = string> {
  name: Text;
  source_type: 'Polygon' | 'Point';
  /** The original point of a Point parcel (JSON), null for a Polygon. */
  point: Text | null;
  /** For a Point parcel, the square of its hectares. */
  geometry: Text;
  hectares: number;
  metadata: Text;
  minx: number; miny: number; maxx: number; maxy: number;
}

export type GeometryColumns = Omit<ParcelColumns, 'name' | 'metadata'>;

/** A validated geometry (validateParcel's, a patch's, a synced parcel's state); its bbox computed when not given. */
export interface ParcelGeometry {
  sourceType: 'Polygon' | 'Point';
  geometry: PolygonGeometry;
  point: readonly number[] | null;
  hectares: number;
  bbox?: BBox;
  /**
   * `geometry`'s JSON text when the caller already holds it (a listing page's, sync/listed-geometry.ts): the same JSON
   * value, stored as it is rather than serialized again.
   */
  geometryText?: string;
}

export function geometryColumns(g: ParcelGeometry): GeometryColumns {
  const [minx, miny, maxx, maxy] = g.bbox ?? bboxOf(g.geometry.coordinates);
  return {
    source_type: g.sourceType, point: g.point ? JSON.stringify(g.point) : null, geometry: g.geometryText ?? JSON.stringify(g.geometry),
    hectares: g.hectares, minx, miny, maxx, maxy,
  };
}

/** The columns of a validated parcel. */
export function parcelColumnsOf(p: ParcelGeometry & { name: string; metadata: object }): ParcelColumns {
  return { name: p.name, metadata: JSON.stringify(p.metadata), ...geometryColumns(p) };
}
