import type { BBox, PolygonCoords } from './types.ts';

/**
 * Planar lon/lat bounds over every ring. Holes of a valid polygon lie inside the
 * shell, but scanning them too keeps the result right for unvalidated input.
 * @throws RangeError when there is no position at all.
 */
export function bboxOf(coords: PolygonCoords): BBox {
  let minLon = Infinity;
  let minLat = Infinity;
  let maxLon = -Infinity;
  let maxLat = -Infinity;
  for (const ring of coords) {
    for (const p of ring) {
      const lon = p[0]!;
      const lat = p[1]!;
      if (lon < minLon) minLon = lon;
      if (lon > maxLon) maxLon = lon;
      if (lat < minLat) minLat = lat;
      if (lat > maxLat) maxLat = lat;
    }
  }
  if (minLon > maxLon) throw new RangeError('bboxOf needs at least one position');
  return [minLon, minLat, maxLon, maxLat];
}

/** Middle of the box, used as a map anchor; not a centroid and not necessarily inside the polygon. */
export function centerOf(bbox: BBox): [number, number] {
  return [(bbox[0] + bbox[2]) / 2, (bbox[1] + bbox[3]) / 2];
}
