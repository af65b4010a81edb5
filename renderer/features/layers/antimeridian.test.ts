import { describe, expect, it } from 'vitest';
import * as topojson from 'topojson-client';
import world from 'world-atlas/countries-50m.json' with { type: 'json' };
import { unwrapGeometry, unwrapRing } from './antimeridian.ts';

type Ring = number[][];
const longestStep = (ring: Ring) => Math.max(0, ...ring.slice(1).map((p, i) => Math.abs(p[0]! - ring[i]![0]!)));
const EDGE = 85.0511287798066;
/** The longest step in longitude but along the map's top or bottom edge (where a ring round a pole closes). */
const longestInside = (ring: Ring) => Math.max(0, ...ring.slice(1).map((p, i) => (Math.abs(p[1]!) === EDGE && Math.abs(ring[i]![1]!) === EDGE ? 0 : Math.abs(p[0]! - ring[i]![0]!))));

describe('rings across the antimeridian', () => {
  it('an island across it becomes one ring past 180°, still closed', () => {
    const island: Ring = [[179, 65], [180, 66], [-179, 66], [-178, 65], [-179, 64], [179, 64], [179, 65]];
    expect(longestStep(island)).toBeGreaterThan(180);
    const r = unwrapRing(island);
    expect(r).toEqual([[179, 65], [180, 66], [181, 66], [182, 65], [181, 64], [179, 64], [179, 65]]);
    // As a geometry, with its copy a world to the west: the part past 180° also shows at the map's left edge.
    const g = unwrapGeometry({ type: 'Polygon', coordinates: [island] });
    expect(g).toEqual({ type: 'MultiPolygon', coordinates: [[r], [r.map(([x, y]) => [x! - 360, y])]] });
  });

  it('a ring round a pole is closed along the map edge on its side', () => {
    const cap: Ring = [[-180, -70], [-90, -72], [0, -70], [90, -72], [180, -70], [-180, -70]];
    const r = unwrapRing(cap);
    expect(r).toEqual([[-180, -70], [-90, -72], [0, -70], [90, -72], [180, -70], [180, -70], [180, -EDGE], [-180, -EDGE], [-180, -70]]);
    expect(longestInside(r)).toBeLessThanOrEqual(180);
  });

  it("Natural Earth's land has no edge across the map once unwrapped (but along its bottom edge, round Antarctica), every ring closed", () => {
    const topo = world as unknown as Parameters<typeof topojson.feature>[0] & { objects: Record<string, Parameters<typeof topojson.feature>[1]> };
    const land = topojson.feature(topo, topo.objects.land!) as unknown as { features: { geometry: { type: string; coordinates: unknown } }[] };
    const rings = (g: { type: string; coordinates: unknown }): Ring[] => (g.type === 'Polygon' ? g.coordinates as Ring[] : (g.coordinates as Ring[][]).flat());
    const before = land.features.flatMap((f) => rings(f.geometry));
    expect(before.filter((r) => longestStep(r) > 180).length).toBeGreaterThan(3);
    const after = land.features.flatMap((f) => rings(unwrapGeometry(f.geometry) as { type: string; coordinates: unknown }));
    expect(after.length).toBeGreaterThan(before.length);
    for (const r of after) {
      expect(longestInside(r)).toBeLessThanOrEqual(180);
      expect(r.at(-1)).toEqual(r[0]);
    }
  });
});
