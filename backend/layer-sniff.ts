// What a file the user gave as a layer holds, told by its bytes (never by its name alone): an SQLite file is an
// MBTiles (its metadata's `format`, or its first tile's bytes: raster or vector) or a GeoPackage; "PMTiles" and
// version 3 open a PMTiles archive (its header's tile type: raster or vector), read with the pmtiles package over the
// file itself; a TIFF or BigTIFF is a GeoTIFF (its CRS from its GeoKeys, by EPSG code; its extent in WGS84 through
// proj4); anything else is tried as a vector overlay (GeoJSON, KML/KMZ, zipped Shapefile). Every reader reads by
// range: a 4 GB file is never read whole. What it cannot show is refused in words (LayerFileRefused).
import { open, type FileHandle } from 'node:fs/promises';
import type { RangeResponse, Source, TileType } from 'pmtiles';
import type { LayerFileFormat } from '../core/api-layers.ts';
import { LAYER_FILE_KINDS, type TileExt } from '../core/layers/layer-files.ts';
import { isGeoPackage, MbtilesError, MbtilesReader } from '../db/mbtiles.ts';

/** A file the map cannot show: why, in words (the file named by the caller). */
export class LayerFileRefused extends Error {}

export interface Sniffed {
  format: LayerFileFormat;
  /** The file's own title, when it has one. */
  title: string | null;
  bbox: [number, number, number, number] | null;
  minZoom: number | null;
  maxZoom: number | null;
  attribution: string | null;
  epsg: number | null;
  /** MBTiles and PMTiles: the tiles' type. */
  tileType: TileExt | null;
  /** A GeoTIFF's overviews (its reduced-resolution images, masks not counted). */
  overviews?: number;
  notes: string[];
  /** A vector overlay still to be read (GeoJSON, KML/KMZ, zipped Shapefile) or a GeoPackage. */
  vector: 'import' | 'gpkg' | null;
}

const base = (format: LayerFileFormat): Sniffed => ({
  format, title: null, bbox: null, minZoom: null, maxZoom: null, attribution: null, epsg: null, tileType: null, notes: [], vector: null,
});

const startsWith = (b: Uint8Array, text: string) => b.length >= text.length && [...text].every((c, i) => b[i] === c.charCodeAt(0));

/** What `file` holds (`name`: the user's name for it, for the messages). */
export async function sniffLayerFile(file: string, name: string): Promise<Sniffed> {
  const head = await readHead(file, 512);
  if (startsWith(head, 'SQLite format 3\0')) return sqlite(file, name);
  if (startsWith(head, 'PMTiles')) return pmtiles(file, name, head);
  if (startsWith(head, 'II*\0') || startsWith(head, 'MM\0*') || startsWith(head, 'II+\0') || startsWith(head, 'MM\0+')) return geotiff(file, name);
  const text = Buffer.from(head).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  if (startsWith(head, 'PK\x03\x04') || text.startsWith('{') || (text.startsWith('<') && /<kml[\s>]/.test(text))) return { ...base('vector'), vector: 'import' };
  throw new LayerFileRefused(`${name} is not a file the map shows: open ${LAYER_FILE_KINDS}.`);
}

async function readHead(file: string, n: number): Promise<Uint8Array> {
  const fh = await open(file, 'r');
  try {
    const b = new Uint8Array(n);
    const { bytesRead } = await fh.read(b, 0, n, 0);
    return b.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

function sqlite(file: string, name: string): Sniffed {
  let gpkg: boolean;
  try {
    gpkg = isGeoPackage(file);
  } catch (err) {
    throw new LayerFileRefused(`${name} cannot be read as SQLite (damaged?): ${(err as Error).message}`);
  }
  if (gpkg) return { ...base('vector'), vector: 'gpkg' };
  let r: MbtilesReader;
  try {
    r = new MbtilesReader(file);
  } catch (err) {
    throw new LayerFileRefused(`${name} is not an MBTiles file: ${(err as Error).message}.`);
  }
  try {
    const m = r.meta();
    return {
      ...base(m.type === 'pbf' ? 'mbtiles-vector' : 'mbtiles-raster'),
      title: m.name, bbox: m.bounds, minZoom: m.minZoom, maxZoom: m.maxZoom, attribution: m.attribution, tileType: m.type,
    };
  } catch (err) {
    throw new LayerFileRefused(`${name} is an MBTiles file the map cannot show: ${err instanceof MbtilesError ? err.message : String(err)}.`);
  } finally {
    r.close();
  }
}

/** A PMTiles archive read through the pmtiles package from an open file, by range. */
export class FileRangeSource implements Source {
  constructor(private readonly fh: FileHandle, private readonly key: string) {}
  getKey(): string {
    return this.key;
  }
  async getBytes(offset: number, length: number): Promise<RangeResponse> {
    const data = new Uint8Array(length);
    const { bytesRead } = await this.fh.read(data, 0, length, offset);
    return { data: data.buffer.slice(0, bytesRead) };
  }
}

async function pmtiles(file: string, name: string, head: Uint8Array): Promise<Sniffed> {
  if (head[7] !== 3) throw new LayerFileRefused(`${name} is a PMTiles file of version ${head[7]}: the map reads version 3 (convert it with the pmtiles tool: pmtiles convert).`);
  // Loaded when a PMTiles file is opened, not with the host or the CLI (it brings fflate): test/startup.test.ts.
  const { PMTiles, TileType } = await import('pmtiles');
  const PMTILES_TYPES: Partial<Record<TileType, TileExt>> = { [TileType.Mvt]: 'pbf', [TileType.Png]: 'png', [TileType.Jpeg]: 'jpg', [TileType.Webp]: 'webp' };
  const fh = await open(file, 'r');
  try {
    const p = new PMTiles(new FileRangeSource(fh, file));
    const h = await p.getHeader();
    const type = PMTILES_TYPES[h.tileType];
    if (!type) throw new LayerFileRefused(`${name} holds tiles of a type the map does not show (PMTiles tile type ${h.tileType}): PNG, JPEG, WebP or vector (MVT) tiles only.`);
    let meta: Record<string, unknown> = {};
    try {
      const m = await p.getMetadata();
      if (typeof m === 'object' && m !== null) meta = m as Record<string, unknown>;
    } catch {
      // no metadata, or unreadable: the header is enough
    }
    const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : null);
    const bbox: [number, number, number, number] | null = h.minLon < h.maxLon && h.minLat < h.maxLat ? [h.minLon, h.minLat, h.maxLon, h.maxLat] : null;
    return {
      ...base(type === 'pbf' ? 'pmtiles-vector' : 'pmtiles-raster'),
      title: str(meta.name), attribution: str(meta.attribution)?.slice(0, 500) ?? null, bbox: bbox && clampBbox(bbox), minZoom: h.minZoom, maxZoom: h.maxZoom, tileType: type,
    };
  } catch (err) {
    if (err instanceof LayerFileRefused) throw err;
    throw new LayerFileRefused(`${name} cannot be read as PMTiles (damaged?): ${(err as Error).message}`);
  } finally {
    await fh.close();
  }
}

/** Codes OpenLayers knows without a definition (the page registers no other for them). */
export const BUILT_IN_EPSG = new Set([4326, 3857, 900913, 102100, 102113]);

async function geotiff(file: string, name: string): Promise<Sniffed> {
  const { fromFile } = await import('geotiff');
  let tiff: Awaited<ReturnType<typeof fromFile>>;
  try {
    tiff = await fromFile(file);
  } catch (err) {
    throw new LayerFileRefused(`${name} cannot be read as a TIFF (damaged?): ${(err as Error).message}`);
  }
  try {
    const image = await tiff.getImage();
    const keys = image.getGeoKeys();
    if (!keys) throw new LayerFileRefused(`${name} is a TIFF without georeferencing (no GeoKeys): save it as a GeoTIFF, e.g. gdal_translate -of COG -a_srs EPSG:<code>.`);
    const code = Number(keys.ProjectedCSTypeGeoKey ?? keys.GeographicTypeGeoKey);
    if (!Number.isInteger(code) || code <= 0 || code === 32767) {
      throw new LayerFileRefused(`${name} has a coordinate reference system without an EPSG code: the map takes a GeoTIFF whose CRS is an EPSG code (gdalwarp -t_srs EPSG:3857, or EPSG:<code> of your area).`);
    }
    // The EPSG definitions and proj4, loaded when a GeoTIFF is placed, not with the host or the CLI (~30 ms of every
    // start, a push's included: test/startup.test.ts).
    const { proj4Of, shiftsByGrid, toWgs84Bbox } = await import('./epsg-proj4.ts');
    const def = BUILT_IN_EPSG.has(code) ? null : proj4Of(code);
    if (!BUILT_IN_EPSG.has(code) && !def) throw new LayerFileRefused(`${name} is in EPSG:${code}, a CRS the app does not know: reproject it, e.g. gdalwarp -t_srs EPSG:3857.`);
    let box: number[];
    try {
      box = image.getBoundingBox();
    } catch {
      throw new LayerFileRefused(`${name} has no position on the map (no tie point or transformation): georeference it first.`);
    }
    const bbox = toWgs84Bbox(code, def, box as [number, number, number, number]);
    const notes: string[] = [];
    if (def && shiftsByGrid(def)) notes.push(`EPSG:${code} shifts its datum by a grid file the map does not use: ${name} may be drawn some metres (up to about a hundred) from where it belongs.`);
    const images = await tiff.getImageCount();
    let overviews = 0;
    for (let i = 1; i < images; i++) {
      // NewSubfileType: bit 0 a reduced-resolution image, bit 2 a transparency mask (GDAL writes one per level).
      const kind = Number((await tiff.getImage(i)).fileDirectory.getValue('NewSubfileType') ?? 0);
      if (kind & 1 && !(kind & 4)) overviews++;
    }
    if (overviews === 0 && image.getWidth() * image.getHeight() > 4096 * 4096) {
      notes.push(`${name} has no overviews: zoomed out, the map reads all of it. Add them (gdaladdo, or gdal_translate -of COG) for a faster map.`);
    }
    return { ...base('geotiff'), epsg: code, bbox: bbox && clampBbox(bbox), notes, overviews };
  } catch (err) {
    if (err instanceof LayerFileRefused) throw err;
    throw new LayerFileRefused(`${name} cannot be read as a GeoTIFF: ${(err as Error).message}`);
  } finally {
    await tiff.close();
  }
}

/** A box within longitude and latitude's ranges (a reprojected corner may stray past them). */
export function clampBbox(b: [number, number, number, number]): [number, number, number, number] | null {
  const c = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
  const out: [number, number, number, number] = [c(b[0], -180, 180), c(b[1], -90, 90), c(b[2], -180, 180), c(b[3], -90, 90)];
  return out.every(Number.isFinite) && out[0] < out[2] && out[1] < out[3] ? out : null;
}
