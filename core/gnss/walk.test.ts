import { describe, expect, it } from 'vitest';
import geodesic from 'geographiclib-geodesic';
import { closeWalk, goodEnough, walkHectares, type WalkPoint } from './walk.ts';

const G = geodesic.Geodesic.WGS84;
const step = (p: WalkPoint, azi: number, d: number): WalkPoint => { const r = G.Direct(p.lat, p.lon, azi, d); return { lon: r.lon2!, lat: r.lat2!, accuracy: p.accuracy }; };

/** GeographicLib's own PolygonArea of the ring, hectares. */
function geoHectares(ps: readonly WalkPoint[]): number {
  const poly = new geodesic.PolygonArea.PolygonArea(G, false);
  for (const p of ps) poly.AddPoint(p.lat, p.lon);
  return Math.abs(poly.Compute(false, true).area!) / 10_000;
}

/** A square field walked with a point every metre along each 100 m side, with `jitter` metres of sideways wobble. */
function walkSquare(jitter: number, seed = 1): WalkPoint[] {
  let s = seed;
  const rnd = () => ((s = (s * 16807) % 2147483647) / 2147483647) - 0.5;
  const pts: WalkPoint[] = [];
  let p: WalkPoint = { lon: -4.0123, lat: 37.2045, accuracy: 0.02 };
  for (const azi of [0, 90, 180, 270]) {
    for (let i = 0; i < 100; i++) {
      const wob = step(p, azi + 90, jitter * rnd());
      pts.push(wob);
      p = step(p, azi, 1);
    }
  }
  return pts;
}

describe('closeWalk', () => {
  it('thins a walked square to its corners, the area within the tolerance of the walked one', () => {
    const pts = walkSquare(0);
    const w = closeWalk(pts, null, 0.005);
    expect(w.walkedHectares).toBeCloseTo(geoHectares(pts), 9);
    expect(w.walkedHectares).toBeCloseTo(1, 2);
    expect(w.vertices.length).toBeLessThanOrEqual(5);
    expect(w.vertices.length).toBeGreaterThanOrEqual(4);
    expect(Math.abs(w.hectares - w.walkedHectares) / w.walkedHectares).toBeLessThanOrEqual(0.005);
    expect(w.hectares).toBeCloseTo(geoHectares(w.vertices), 9);
    // the vertices are fixes of the walk, unchanged
    for (const v of w.vertices) expect(pts).toContain(v);
  });

  it('keeps more vertices for a wobbly walk under a tight tolerance than a loose one', () => {
    const pts = walkSquare(3);
    const tight = closeWalk(pts, null, 0.0005);
    const loose = closeWalk(pts, null, 0.02);
    expect(Math.abs(tight.hectares - tight.walkedHectares) / tight.walkedHectares).toBeLessThanOrEqual(0.0005);
    expect(Math.abs(loose.hectares - loose.walkedHectares) / loose.walkedHectares).toBeLessThanOrEqual(0.02);
    expect(tight.vertices.length).toBeGreaterThan(loose.vertices.length);
  });

  it('drops points worse than the threshold, and those of unknown accuracy, and counts them', () => {
    const centre = step(step({ lon: -4.0123, lat: 37.2045, accuracy: 8 }, 0, 50), 90, 50);
    const pts = walkSquare(0).map((p, i) => (i % 10 === 5 ? { ...centre, accuracy: 8 } : i % 10 === 7 ? { ...p, accuracy: null } : p));
    const w = closeWalk(pts, 1, 0.005);
    expect(w.dropped).toBe(80);
    expect(w.walkedHectares).toBeCloseTo(1, 2);
    // without a threshold the bad points (drawn to the middle) cut the field down
    expect(closeWalk(pts, null, 0.005).walkedHectares).not.toBeCloseTo(1, 2);
  });

  it('never returns a ring that crosses itself', () => {
    // A figure of eight's loop: simplified, a bow tie would appear; the area check and the validity check keep it out.
    const pts = walkSquare(2, 7);
    const w = closeWalk(pts, null, 0.05);
    expect(w.vertices.length).toBeGreaterThanOrEqual(3);
  });

  it('leaves fewer than four distinct points as they are', () => {
    const p = { lon: 1, lat: 1, accuracy: 0.5 };
    const w = closeWalk([p, p, step(p, 0, 10), step(p, 90, 10), p], null, 0.005);
    expect(w.vertices).toHaveLength(3);
    expect(w.tolerance).toBe(0);
    expect(closeWalk([p], null, 0.005).hectares).toBe(0);
  });

  it('leaves a walk along one line as it is (turf refuses to clean it), and the live area follows the walk', () => {
    const line = Array.from({ length: 40 }, (_, i) => ({ lon: 11.0335 + i * 1e-5, lat: 52.2141, accuracy: 0.015 }));
    expect(closeWalk(line, 5, 0.005).tolerance).toBe(0);
    const pts = walkSquare(0);
    expect(walkHectares(pts, 1)).toBeCloseTo(closeWalk(pts, 1, 0.005).walkedHectares, 9);
    expect(walkHectares(pts.slice(0, 2), null)).toBe(0);
  });

  it('goodEnough: null threshold takes every point', () => {
    expect(goodEnough({ accuracy: null }, null)).toBe(true);
    expect(goodEnough({ accuracy: null }, 5)).toBe(false);
    expect(goodEnough({ accuracy: 5 }, 5)).toBe(true);
  });
});
