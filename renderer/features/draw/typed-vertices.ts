// Vertices typed as "longitude, latitude" (features/coordinates/VertexEntry.tsx) join the polygon where a click would,
// and reach the service exactly as typed: the map's Web Mercator round trip is not exact in floating point, so the
// typed [lon, lat] is kept by its map coordinate and given back for it (useModify.ts does the same for its vertices).
import type OlMap from 'ol/Map.js';
import type Polygon from 'ol/geom/Polygon.js';
import type { Coordinate } from 'ol/coordinate.js';
import { fromLonLat, toLonLat } from 'ol/proj.js';
import { containsCoordinate } from 'ol/extent.js';
import type { Position2 } from '../../store.ts';

const key = (c: Coordinate) => `${c[0]},${c[1]}`;

/** The typed positions of one drawing, by the map coordinate each was placed at. */
export class TypedVertices {
  private readonly exact = new Map<string, Position2>();

  /** The map coordinate of a typed position, remembered so that `lonLat` gives the position back as typed. */
  place(pos: Position2): Coordinate {
    const at = fromLonLat(pos);
    this.exact.set(key(at), pos);
    return at;
  }

  /** [lon, lat] of a map coordinate: the position typed there, else the projection's. */
  lonLat(c: Coordinate): Position2 {
    return this.exact.get(key(c)) ?? (toLonLat(c) as Position2);
  }
}

/** The outer ring as [lon, lat], not closed; typed vertices as they were typed when `typed` is given. */
export const outerRing = (g: Polygon, typed?: TypedVertices): Position2[] =>
  (g.getCoordinates()[0] ?? []).slice(0, -1).map((c) => (typed ? typed.lonLat(c) : (toLonLat(c) as Position2)));

/** Pans to a map coordinate placed from the keyboard when it is off the view (a click's is always on it). */
export function showCoordinate(m: OlMap, at: Coordinate): void {
  const view = m.getView();
  const size = m.getSize();
  if (!size || containsCoordinate(view.calculateExtent(size), at)) return;
  view.animate({ center: at, duration: 250 });
}
