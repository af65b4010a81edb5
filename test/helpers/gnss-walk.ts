// A walk around a field, as the NMEA simulator (test/helpers/nmea-sim.ts) replays it and as tests check what the app
// made of it: a square of about a hectare beside the demo's Hof Sonnenfeld (service/demo.ts), walked once round at
// walking pace from its south-west corner, counter-clockwise, a position every 1/hz seconds and one on every corner.
// Pure: the same options give the same positions, so a test can compute GeographicLib's area of the very positions
// the receiver sent (core/geo/area.ts ringAreaM2 of walkRing()).
import geodesic from 'geographiclib-geodesic';
import { hectareSquare } from '../../core/geo/square.ts';

export interface WalkOptions {
  /** The field's centre; by default beside Hof Sonnenfeld. */
  lon?: number;
  lat?: number;
  hectares?: number;
  /** Walking speed, m/s. */
  speed?: number;
  /** Positions a second (a receiver's rate: 1–10 Hz). */
  hz?: number;
}

export interface WalkPoint {
  /** Seconds since the walk began. */
  t: number;
  lon: number;
  lat: number;
  /** Degrees clockwise from north. */
  heading: number;
  /** m/s. */
  speed: number;
}

export const FIELD = { lon: 11.035, lat: 52.215, hectares: 1, speed: 1.4, hz: 5 } as const;
const G = geodesic.Geodesic.WGS84;

/** The field's corners, counter-clockwise from the south-west one, closed (the first repeated). */
export function fieldCorners(o: WalkOptions = {}): [number, number][] {
  const ring = hectareSquare(o.lon ?? FIELD.lon, o.lat ?? FIELD.lat, o.hectares ?? FIELD.hectares)[0]!;
  return ring.map((p) => [p[0]!, p[1]!]);
}

/** Every position of one walk round the field, the last one back on the first corner. */
export function fieldWalk(o: WalkOptions = {}): WalkPoint[] {
  const speed = o.speed ?? FIELD.speed;
  const step = speed / (o.hz ?? FIELD.hz);
  const corners = fieldCorners(o);
  const out: WalkPoint[] = [];
  let t = 0;
  for (let i = 0; i + 1 < corners.length; i++) {
    const [lon1, lat1] = corners[i]!;
    const [lon2, lat2] = corners[i + 1]!;
    const inv = G.Inverse(lat1, lon1, lat2, lon2);
    const length = inv.s12!;
    const heading = ((inv.azi1! % 360) + 360) % 360;
    const steps = Math.max(1, Math.round(length / step));
    // Along the edge in equal steps (straight in degrees: along a parallel that is not the geodesic, but the
    // positions sent are what the test measures).
    for (let k = 0; k < steps; k++) {
      const f = k / steps;
      out.push({ t, lon: lon1 + (lon2 - lon1) * f, lat: lat1 + (lat2 - lat1) * f, heading, speed });
      t += length / steps / speed;
    }
  }
  const [lon, lat] = corners[0]!;
  out.push({ t, lon, lat, heading: out.at(-1)!.heading, speed: 0 });
  return out;
}

/** The walk's positions as a closed ring ([lon, lat], the first repeated): what GeographicLib's area is computed of. */
export function walkRing(points: readonly WalkPoint[]): [number, number][] {
  const ring = points.map((p): [number, number] => [p.lon, p.lat]);
  const [a, b] = [ring[0]!, ring.at(-1)!];
  if (a[0] !== b[0] || a[1] !== b[1]) ring.push([a[0], a[1]]);
  return ring;
}
