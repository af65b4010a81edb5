// A layer's file, the rules both sides share (pure): how the page sends a file's bytes to the host in chunks, which
// files the host takes, the extension the host keeps each format under, and how a tile of an MBTiles file is named
// in its bytes path (core/bytes-protocol.ts): `<z>-<x>-<y>.<ext>` under the layer's resource, in the XYZ scheme the
// map asks in (the host flips the row to MBTiles' TMS).

/** The bytes one chunk of an upload carries (its base64 is 4/3 of it: well inside browser mode's 64 MiB frame). */
export const LAYER_CHUNK_BYTES = 1024 * 1024;
/** The base64 text of one chunk, at most. */
export const LAYER_CHUNK_BASE64 = Math.ceil(LAYER_CHUNK_BYTES / 3) * 4;
/** Chunks a page keeps in flight at once: the host writes each at its place, in any order. */
export const LAYER_CHUNKS_IN_FLIGHT = 4;
/**
 * The largest file taken (bytes): far above any orthophoto or tile set a farm needs (a 4 GB file is the target), and
 * below what a typo in a size could make the host reserve.
 */
export const LAYER_FILE_MAX_BYTES = 64 * 1024 ** 3;
/**
 * The largest vector overlay taken (GeoJSON, KML/KMZ, zipped Shapefile, GeoPackage): it is read whole to be turned
 * into the GeoJSON the page draws, and the page holds every feature of it.
 */
export const VECTOR_OVERLAY_MAX_BYTES = 200 * 1024 * 1024;

/** What the file input offers (the host tells a file by its bytes, not by this). */
export const LAYER_FILE_ACCEPT = ['.mbtiles', '.pmtiles', '.tif', '.tiff', '.geojson', '.json', '.kml', '.kmz', '.zip', '.gpkg'] as const;

/** The formats, in words, for a refusal. */
export const LAYER_FILE_KINDS = 'MBTiles, PMTiles, GeoTIFF, GeoJSON, KML/KMZ, a zipped Shapefile or a GeoPackage';

/** The types of tile an MBTiles or PMTiles file holds, as their bytes paths name them. */
export type TileExt = 'png' | 'jpg' | 'webp' | 'pbf';
export const TILE_TYPES: Record<TileExt, string> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp', pbf: 'application/x-protobuf' };

/** A tile's name in a bytes path: `<z>-<x>-<y>.<ext>`. */
export const tileName = (z: number, x: number, y: number, ext: TileExt): string => `${z}-${x}-${y}.${ext}`;

/** The tile a name asks for, or null: not `<z>-<x>-<y>.<ext>` with x and y inside zoom z's grid (z at most 30). */
export function parseTileName(name: string): { z: number; x: number; y: number; ext: TileExt } | null {
  const m = /^(\d{1,2})-(\d{1,10})-(\d{1,10})\.(png|jpg|webp|pbf)$/.exec(name);
  if (!m) return null;
  const [z, x, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (z > 30 || x >= 2 ** z || y >= 2 ** z) return null;
  return { z, x, y, ext: m[4] as TileExt };
}

/** A template's tile: {z}, {x} and {y} replaced (the page's map asks for tiles in the XYZ scheme). */
export const tileOf = (template: string, z: number, x: number, y: number): string =>
  template.replace('{z}', String(z)).replace('{x}', String(x)).replace('{y}', String(y));

/** A file name as the user's system gave it, kept for the layer's name: no folder, no control characters, bounded. */
export function layerNameOf(fileName: string): string {
  // eslint-disable-next-line no-control-regex
  const base = fileName.split(/[/\\]/).pop()!.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  const stem = base.replace(/\.(mbtiles|pmtiles|tiff?|geojson|json|kml|kmz|zip|gpkg)$/i, '').trim();
  return (stem || base || 'Layer').slice(0, 200);
}

/** The byte ranges of an upload of `size` bytes: its chunks' offsets and lengths, in order. */
export function uploadChunks(size: number, chunk = LAYER_CHUNK_BYTES): { offset: number; length: number }[] {
  const out: { offset: number; length: number }[] = [];
  for (let offset = 0; offset < size; offset += chunk) out.push({ offset, length: Math.min(chunk, size - offset) });
  return out;
}
