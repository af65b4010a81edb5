// Whether a WMTS tile matrix set is Web Mercator's tile pyramid (OGC's GoogleMapsCompatible, or any set built like
// it: EPSG:3857, 256-pixel tiles, the world's top-left corner, each matrix half the scale of the one above), and
// which of its matrices is each XYZ zoom. An area kept offline is an MBTiles file, whose tiles are that pyramid's:
// another set (a national grid, EPSG:4326) would need its tiles resampled, so it is refused in words. Pure.
import { MERCATOR_HALF } from './tile-math.ts';

/** A tile matrix as a capabilities document describes it. */
export interface TileMatrixInfo {
  id: string;
  scaleDenominator: number;
  /** As written: two numbers (for EPSG:3857, easting then northing). */
  topLeft: [number, number];
  tileWidth: number;
  tileHeight: number;
}

export interface TileMatrixSetInfo {
  id: string;
  crs: string;
  matrices: TileMatrixInfo[];
}

/** The scale denominator of Web Mercator's zoom 0 at OGC's 0.28 mm pixel (WMTS 1.0.0, annex E.4). */
export const ZOOM0_SCALE = 559082264.0287178;

const MERCATOR_CRS = /(?:^|[^0-9])(3857|900913|102100|102113|3785)$/;

/** The Web Mercator zoom of each matrix of `set` ({zoom: matrix id}), or why the set is not Web Mercator's pyramid. */
export function webMercatorMatrices(set: TileMatrixSetInfo): { matrices: Record<number, string> } | { problem: string } {
  const refuse = (why: string) => ({
    problem: `The WMTS tile matrix set ${set.id} ${why}: only Web Mercator sets (GoogleMapsCompatible) can be kept offline, as an MBTiles file holds Web Mercator tiles. Choose the layer's GoogleMapsCompatible or EPSG:3857 set if it has one.`,
  });
  if (!MERCATOR_CRS.test(set.crs.trim())) return refuse(`is in ${set.crs || 'an unnamed CRS'}`);
  const matrices: Record<number, string> = {};
  for (const m of set.matrices) {
    if (m.tileWidth !== 256 || m.tileHeight !== 256) return refuse(`has ${m.tileWidth}×${m.tileHeight} pixel tiles, not 256×256`);
    const z = Math.log2(ZOOM0_SCALE / m.scaleDenominator);
    const zoom = Math.round(z);
    if (!Number.isFinite(z) || Math.abs(z - zoom) > 0.01 || zoom < 0 || zoom > 22) return refuse(`has a matrix (${m.id}) at a scale between Web Mercator's zooms`);
    // The world's top-left corner, within half a metre (services round it).
    if (Math.abs(m.topLeft[0] + MERCATOR_HALF) > 0.5 || Math.abs(m.topLeft[1] - MERCATOR_HALF) > 0.5) return refuse(`has a matrix (${m.id}) whose top-left corner is not the world's`);
    matrices[zoom] = m.id;
  }
  if (Object.keys(matrices).length === 0) return refuse('has no tile matrix');
  return { matrices };
}
