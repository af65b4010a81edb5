// Which fixes a walk takes (core/api-position.ts TrackSettings): pure, so the host's recorder and a test agree. A fix
// worse than the threshold — or of unknown accuracy when there is a threshold — is dropped (and counted); the first
// good one is taken; after it, a fix is taken once it is `minDistance` geodesic metres from the last point taken OR
// `minInterval` seconds after it, each rule only when set above 0 (both 0: every fix). Or, not and: a walker who
// stops still gets a point every `minInterval`, and one who hurries one every `minDistance`.
import geodesic from 'geographiclib-geodesic';
import type { Fix, TrackSettings } from '../api-position.ts';

const G = geodesic.Geodesic.WGS84;

/** Metres along the ellipsoid between two fixes (GeographicLib's inverse problem). */
export function geodesicMetres(a: Pick<Fix, 'lon' | 'lat'>, b: Pick<Fix, 'lon' | 'lat'>): number {
  return G.Inverse(a.lat, a.lon, b.lat, b.lon, geodesic.Geodesic.DISTANCE).s12!;
}

export type TrackDecision = 'take' | 'skip' | 'drop';

export function trackDecision(last: Fix | null, fix: Fix, s: TrackSettings): TrackDecision {
  if (s.maxAccuracy !== null && (fix.accuracy === null || fix.accuracy > s.maxAccuracy)) return 'drop';
  if (last === null || (s.minDistance <= 0 && s.minInterval <= 0)) return 'take';
  if (s.minDistance > 0 && geodesicMetres(last, fix) >= s.minDistance) return 'take';
  if (s.minInterval > 0 && (fix.received - last.received) / 1000 >= s.minInterval) return 'take';
  return 'skip';
}
