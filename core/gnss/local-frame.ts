// A local metric frame around a point: east and north in metres on the WGS84 ellipsoid's tangent plane there (the
// meridian's and the prime vertical's radii of curvature at its latitude). Over a field (a few kilometres at most)
// the error against the true geodesic is far below a receiver's centimetres, and the maths of averaging and
// simplifying is then plain Euclidean geometry.
const A = 6378137;
const F = 1 / 298.257223563;
const E2 = F * (2 - F);
const RAD = Math.PI / 180;

export interface LocalFrame {
  /** [lon, lat] to [east, north] metres from the frame's origin. */
  toXY(p: readonly [number, number]): [number, number];
  toLonLat(p: readonly [number, number]): [number, number];
}

export function localFrame(lon0: number, lat0: number): LocalFrame {
  const s = Math.sin(lat0 * RAD);
  const w = 1 - E2 * s * s;
  const n = A / Math.sqrt(w); // prime vertical
  const m = (A * (1 - E2)) / (w * Math.sqrt(w)); // meridian
  const kx = n * Math.cos(lat0 * RAD) * RAD;
  const ky = m * RAD;
  return {
    // A longitude across the antimeridian from the origin is taken the short way round.
    toXY: ([lon, lat]) => [(((lon - lon0 + 540) % 360) - 180) * kx, (lat - lat0) * ky],
    toLonLat: ([x, y]) => {
      let lon = lon0 + x / kx;
      if (lon > 180) lon -= 360;
      else if (lon < -180) lon += 360;
      return [lon, lat0 + y / ky];
    },
  };
}

/** The frame centred on the mean of these positions (the mean longitude taken around the first one). */
export function frameAround(points: readonly (readonly [number, number])[]): LocalFrame {
  if (!points.length) return localFrame(0, 0);
  const lon1 = points[0]![0];
  let dl = 0;
  let lat = 0;
  for (const [lon, la] of points) { dl += ((lon - lon1 + 540) % 360) - 180; lat += la; }
  let lon0 = lon1 + dl / points.length;
  if (lon0 > 180) lon0 -= 360;
  else if (lon0 < -180) lon0 += 360;
  return localFrame(lon0, lat / points.length);
}
