import { describe, it, expect } from 'vitest';
import { ringAreaM2 } from './area.ts';
import { bboxOf } from './bbox.ts';
import { hectareSquare, squareBBox } from './square.ts';

const LATITUDES = [0, 30, -30, 45, -45, 52, -52, 60, -60, 70, -70, 80, -80];
const SIZES = [0.01, 0.1, 1, 2.5, 10, 100, 1000, 10_000];
const LONGITUDES = [-179, -73.98, 0, 12.49, 151.2];

describe('hectareSquare', () => {
  it.each(LATITUDES)('is within 0.01 %% of the requested area for every size at latitude %d', (lat) => {
    for (const ha of SIZES) {
      for (const lon of LONGITUDES) {
        const [ring] = hectareSquare(lon, lat, ha);
        const measured = ringAreaM2(ring!) / 10_000;
        expect(Math.abs(measured / ha - 1), `${ha} ha at ${lon}, ${lat}`).toBeLessThan(1e-4);
      }
    }
  });

  it('is much tighter than the contract for parcel-sized squares (the refinement runs)', () => {
    // The analytic start alone is off by 1.3e-5 at 10,000 ha and 80°; refined, far less.
    for (const lat of [0, 52, 80]) {
      const [ring] = hectareSquare(0, lat, 10_000);
      expect(Math.abs(ringAreaM2(ring!) / 1e8 - 1)).toBeLessThan(1e-8);
    }
  });

  it('is a closed 5-position ring with one outer ring', () => {
    const coords = hectareSquare(12.49, 41.89, 3);
    expect(coords).toHaveLength(1);
    const ring = coords[0]!;
    expect(ring).toHaveLength(5);
    expect(ring[4]).toEqual(ring[0]);
  });

  it('is counter-clockwise (positive shoelace sum)', () => {
    for (const lat of [-60, 0, 60]) {
      const ring = hectareSquare(5, lat, 50)[0]!;
      let twice = 0;
      for (let i = 0; i < 4; i++) {
        const a = ring[i]!;
        const b = ring[i + 1]!;
        twice += a[0]! * b[1]! - b[0]! * a[1]!;
      }
      expect(twice).toBeGreaterThan(0);
    }
  });

  it.each(LATITUDES)('is centred on the point with edges on two meridians and two parallels (latitude %d)', (lat) => {
    const lon = 23.7;
    const ring = hectareSquare(lon, lat, 40)[0]!;
    const [sw, se, ne, nw] = ring as [number[], number[], number[], number[]];
    // South and north edges run along parallels, west and east along meridians.
    expect(sw[1]).toBe(se[1]);
    expect(nw[1]).toBe(ne[1]);
    expect(sw[0]).toBe(nw[0]);
    expect(se[0]).toBe(ne[0]);
    expect(se[0]!).toBeGreaterThan(sw[0]!);
    expect(nw[1]!).toBeGreaterThan(sw[1]!);
    expect((sw[0]! + se[0]!) / 2).toBeCloseTo(lon, 12);
    expect((sw[1]! + nw[1]!) / 2).toBeCloseTo(lat, 12);
  });

  it('is square on the ground: east-west and north-south sides are equally long', () => {
    // 1 m of latitude is 1/M degrees, 1 m of longitude 1/(N cos φ) degrees; at 60°
    // a square needs about twice as many degrees of longitude as of latitude.
    const ring = hectareSquare(0, 60, 100)[0]!;
    const dLon = ring[1]![0]! - ring[0]![0]!;
    const dLat = ring[2]![1]! - ring[1]![1]!;
    expect(dLon / dLat).toBeGreaterThan(1.99);
    expect(dLon / dLat).toBeLessThan(2.01);
    const equator = hectareSquare(0, 0, 100)[0]!;
    const ratio = (equator[1]![0]! - equator[0]![0]!) / (equator[2]![1]! - equator[1]![1]!);
    expect(ratio).toBeGreaterThan(0.99);
    expect(ratio).toBeLessThan(1.01);
  });

  it('grows with the requested size: 100 ha has ten times the side of 1 ha', () => {
    const small = hectareSquare(0, 45, 1)[0]!;
    const big = hectareSquare(0, 45, 100)[0]!;
    const side = (r: number[][]) => r[1]![0]! - r[0]![0]!;
    expect(side(big) / side(small)).toBeCloseTo(10, 3);
  });

  it('rejects sizes and places where no square exists', () => {
    expect(() => hectareSquare(0, 0, 0)).toThrow(RangeError);
    expect(() => hectareSquare(0, 0, -5)).toThrow(RangeError);
    expect(() => hectareSquare(0, 0, Number.NaN)).toThrow(RangeError);
    expect(() => hectareSquare(0, 90, 1)).toThrow(RangeError);
    expect(() => hectareSquare(Number.POSITIVE_INFINITY, 0, 1)).toThrow(RangeError);
    // 1e9 ha is a square of ~3,160 km: centred at 80° it would pass the pole.
    expect(() => hectareSquare(0, 80, 1e9)).toThrow(/pole/);
  });
});

describe('squareBBox', () => {
  it('equals the bounding box of the square itself', () => {
    for (const lat of [-80, -52, 0, 45, 70]) {
      expect(squareBBox(-3.7, lat, 12)).toEqual(bboxOf(hectareSquare(-3.7, lat, 12)));
    }
  });

  it('is centred on the point', () => {
    const [w, s, e, n] = squareBBox(10, 52, 25);
    expect((w + e) / 2).toBeCloseTo(10, 12);
    expect((s + n) / 2).toBeCloseTo(52, 12);
    expect(e).toBeGreaterThan(w);
    expect(n).toBeGreaterThan(s);
  });

  it('rejects what hectareSquare rejects', () => {
    expect(() => squareBBox(0, 0, 0)).toThrow(RangeError);
    expect(() => squareBBox(Number.NaN, 0, 1)).toThrow(RangeError);
  });
});
