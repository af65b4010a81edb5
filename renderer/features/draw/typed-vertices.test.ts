import { describe, expect, it } from 'vitest';
import Polygon from 'ol/geom/Polygon.js';
import { fromLonLat, toLonLat } from 'ol/proj.js';
import { TypedVertices, outerRing } from './typed-vertices.ts';
import type { Position2 } from '../../store.ts';

/** A surveyed corner whose Web Mercator round trip is not exact in floating point. */
const SURVEYED: Position2 = [-4.0123, 37.2045];

describe('typed vertices', () => {
  it('come back exactly as typed, where the projection would not give them back', () => {
    expect(toLonLat(fromLonLat(SURVEYED))).not.toEqual(SURVEYED);
    const typed = new TypedVertices();
    const at = typed.place(SURVEYED);
    expect(at).toEqual(fromLonLat(SURVEYED));
    expect(typed.lonLat(at)).toEqual(SURVEYED);
  });

  it('leave the vertices clicked to the projection', () => {
    const typed = new TypedVertices();
    const clicked = fromLonLat([-4.01, 37.2]);
    expect(typed.lonLat(clicked)).toEqual(toLonLat(clicked));
  });

  it('make the outer ring [lon, lat], not closed, the typed vertices as typed', () => {
    const typed = new TypedVertices();
    const clicked = [fromLonLat([-4.01, 37.2]), fromLonLat([-4.0, 37.2])];
    const ring = [clicked[0]!, clicked[1]!, typed.place(SURVEYED), clicked[0]!];
    const g = new Polygon([ring]);
    expect(outerRing(g, typed)).toEqual([toLonLat(clicked[0]!), toLonLat(clicked[1]!), SURVEYED]);
    expect(outerRing(g)).toHaveLength(3);
    expect(outerRing(g)[2]).toEqual(toLonLat(fromLonLat(SURVEYED)));
    expect(outerRing(new Polygon([]))).toEqual([]);
  });
});
