// A position typed in an EPSG coordinate system placed as [lon, lat], with the definition the host answers
// (crsDefinition: the import's own, a grid shift made optional). proj4 as the import uses it (core/geo/crs.ts).
import proj4 from 'proj4';
import type { CrsInfo } from '../../../core/api-layer-files.ts';
import type { LonLat } from '../coordinates/lon-lat.ts';

/** [lon, lat] of (x, y) in the CRS, or why not (outside its projection, or not on the Earth). */
export function placeInCrs(crs: CrsInfo, x: number, y: number): { pos: LonLat } | { error: string } {
  const conv = proj4(crs.proj4, 'WGS84');
  let out: number[] | undefined;
  let back: number[] | undefined;
  try {
    out = conv.forward([x, y]);
    back = conv.inverse(out);
  } catch {
    out = undefined;
  }
  const [lon, lat] = out ?? [NaN, NaN];
  // Far outside its area a projection's formulas give a place that is not the one typed (a transverse Mercator
  // wraps): the way back must return to within a metre of what was typed.
  const returns = back !== undefined && Math.abs(back[0]! - x) < 1 && Math.abs(back[1]! - y) < 1;
  if (!returns || !Number.isFinite(lon) || !Number.isFinite(lat) || Math.abs(lat!) > 90 || Math.abs(lon!) > 540) {
    return { error: `${x} ${y} is outside what EPSG:${crs.code} (${crs.name}) can place: x (easting) comes first, then y (northing).` };
  }
  // Past the antimeridian (a projection's false easting): back within −180…180.
  return { pos: [((((lon! + 180) % 360) + 360) % 360) - 180, lat!] };
}
