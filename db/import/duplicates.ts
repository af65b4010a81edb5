// Features of a file that are parcels the account has already (core/geo/same-shape.ts): the app's preview marks
// them, and an import asked to skips them, so that importing a farm's GeoJSON and then its KML (or the app's own
// export) does not stack identical parcels. Only parcels there before the import began count: two identical features
// of one file are the file's business, and the preview (which writes nothing) could not see them otherwise.
import type { Mirror } from '../mirror.ts';
import type { BBox, PolygonCoords } from '../../core/geo/types.ts';
import { sameShape, sameShapeMargin } from '../../core/geo/same-shape.ts';
import { FIELDS, type PreparedJob } from './prepare.ts';

/** The parcel already there that a shape matches: its name and its farm's. */
export interface SameAs { name: string; farm: string }

export type FindSame = (box: BBox, shape: () => PolygonCoords) => SameAs | null;

const utf8 = new TextDecoder();

/** A valid prepared row's box (minx, miny, maxx, maxy) and, parsed when asked, its polygon's rings. */
export function rowShape(r: PreparedJob, row: number): { box: BBox; shape: () => PolygonCoords } {
  const n = r.numbers;
  const k = row * FIELDS + 2;
  return {
    box: [n[row * 5 + 1]!, n[row * 5 + 2]!, n[row * 5 + 3]!, n[row * 5 + 4]!],
    shape: () => (JSON.parse(utf8.decode(r.bytes.subarray(r.offsets[k]!, r.offsets[k + 1]!))) as { coordinates: PolygonCoords }).coordinates,
  };
}

/** The matcher against the account's parcels as the mirror holds them now. */
export function existingShapes(mirror: Mirror, accountId: string): FindSame {
  const before = mirror.read.lastParcelRowid();
  return (box, shape) => {
    const candidates = mirror.read.sameBoxParcels(accountId, box, sameShapeMargin(box), before);
    if (candidates.length === 0) return null;
    const mine = shape();
    for (const c of candidates) {
      if (sameShape(mine, (JSON.parse(c.geometry) as { coordinates: PolygonCoords }).coordinates)) return { name: c.name, farm: c.farm };
    }
    return null;
  };
}
