// core/api-layer-files.ts over the host's layer files (backend/layer-files.ts): adding a file (the page's chunks,
// Electron's chosen path, the command line's path), what a file holds, removing one no saved layer uses, and a
// page's bytes paths to read one (backend/bytes.ts layer resources: the whole file by range, or an MBTiles file's
// tiles by name, read by the host from SQLite). The handlers of a page session are built per session (its uploads
// and bytes are its own); the Backend's own serve the command line.
import { basename } from 'node:path';
import { RpcCode, RpcError, type HandlersOf } from '../core/rpc.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import type { LAYER_FILES_API, LayerFileInfo, LayerFileSource } from '../core/api-layer-files.ts';
import { MapLayers } from '../core/api-layers.ts';
import { LAYER_CHUNK_BYTES, parseTileName, TILE_TYPES } from '../core/layers/layer-files.ts';
import type { Mirror } from '../db/mirror.ts';
import type { ByteSession } from './bytes.ts';
import { LayerFileProblem, publicInfo, type LayerFiles } from './layer-files.ts';
import { UploadRefused } from './layer-uploads.ts';
import { BUILT_IN_EPSG } from './layer-sniff.ts';
import { Value } from '@sinclair/typebox/value';

type Handlers = HandlersOf<typeof LAYER_FILES_API>;

/** The files the saved layers use (a layer's own file, an online layer's area kept offline). */
export function savedLayerFiles(mirror: Mirror): Set<string> {
  const used = new Set<string>();
  try {
    const v: unknown = JSON.parse(mirror.write.mapLayers() ?? '[]');
    if (!Value.Check(MapLayers, v)) return used;
    for (const l of v) {
      if (l.source.kind === 'file') used.add(l.source.file);
      if (l.offline) used.add(l.offline.file);
    }
  } catch {
    // none readable: none used
  }
  return used;
}

/** A refusal of the files' registry as the contract's error. */
function coded(err: unknown): unknown {
  if (err instanceof LayerFileProblem) {
    const code = { unsupported_layer_file: ApiErrorCode.unsupportedLayerFile, too_large: ApiErrorCode.tooLarge, disk_full: ApiErrorCode.diskFull, not_found: ApiErrorCode.notFound, invalid_arguments: RpcCode.invalidArguments }[err.code];
    return new RpcError(code, err.message);
  }
  if (err instanceof UploadRefused) {
    return new RpcError({ upload_gone: ApiErrorCode.uploadGone, invalid_arguments: RpcCode.invalidArguments, busy: ApiErrorCode.busy }[err.code], err.message);
  }
  return err;
}
const guard = <A extends unknown[], T>(fn: (...a: A) => Promise<T>) => (...a: A): Promise<T> => fn(...a).catch((err: unknown) => { throw coded(err); });

/** A page session's side: whose uploads, and its bytes (none: the command line's channel, which reads no bytes). */
export interface LayerFileScope {
  owner: object;
  bytes: ByteSession | null;
}

export function layerFileHandlers(files: LayerFiles, mirror: Mirror, scope: LayerFileScope): Handlers {
  const { owner, bytes } = scope;
  const keep = (file: string, name: string) => files.keep(file, name);
  return {
    addLayerFileBegin: guard(async ({ name, size }) => {
      files.checkRoom(size, name);
      return { upload: await files.uploads.begin(owner, name, size), chunkBytes: LAYER_CHUNK_BYTES };
    }),
    addLayerFileChunk: guard(async ({ upload, offset, data }) => {
      await files.uploads.chunk(owner, upload, offset, data);
      return null;
    }),
    addLayerFileEnd: guard(({ upload }) => files.uploads.end(owner, upload, keep)),
    addLayerFileCancel: guard(async ({ upload }) => {
      await files.uploads.cancel(owner, upload);
      return null;
    }),
    addLayerFileChosen: guard(async ({ ticket }, call) => {
      const path = await files.chosen.redeem(ticket);
      if (path === null) throw new RpcError(ApiErrorCode.uploadGone, 'That choice of file has expired or was used already: open the file again');
      return files.copy(path, basename(path), { signal: call.signal, progress: (done, total) => call.progress({ done, total }) });
    }),
    addLayerFilePath: guard(({ path }, call) => files.copy(path, basename(path), { signal: call.signal, progress: (done, total) => call.progress({ done, total }) })),
    layerFile: guard(async ({ file }) => publicInfo(await files.info(file))),
    removeLayerFile: guard(async ({ file }) => {
      if (savedLayerFiles(mirror).has(file)) throw new RpcError(RpcCode.invalidArguments, 'A saved layer uses that file: remove the layer (and save the layers) instead');
      files.remove(file);
      return null;
    }),
    // The EPSG definitions and proj4 are loaded by the calls that use them, not with the host or the CLI
    // (test/startup.test.ts).
    crsDefinition: async ({ code }) => (await import('./crs-definition.ts')).crsDefinition(code),
    layerFileSource: guard(async ({ file }) => {
      if (!bytes) throw new RpcError(RpcCode.forbidden, "'layerFileSource' is for the app's page: its paths are a page session's");
      const info = await files.info(file);
      const proj4 = info.format === 'geotiff' && info.epsg !== null && !BUILT_IN_EPSG.has(info.epsg) ? (await import('./epsg-proj4.ts')).proj4Of(info.epsg) : null;
      return layerSource(files, bytes, publicInfo(info), info.tileType, proj4);
    }),
  };
}

/** A transparent PNG of one pixel: an image tile where the file has none. */
export const EMPTY_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR4nGNgAAIAAAUAAXpeqz8AAAAASUVORK5CYII=', 'base64');

/** The name a whole file is served under, and its type. */
const WHOLE: Partial<Record<LayerFileInfo['format'], { name: string; type: string }>> = {
  'pmtiles-raster': { name: 'layer.pmtiles', type: 'application/vnd.pmtiles' },
  'pmtiles-vector': { name: 'layer.pmtiles', type: 'application/vnd.pmtiles' },
  geotiff: { name: 'layer.tif', type: 'image/tiff' },
  vector: { name: 'layer.geojson', type: 'application/geo+json' },
};

/** A page's bytes paths for a kept file, registered in its session (the same resource when asked again). */
function layerSource(files: LayerFiles, bytes: ByteSession, info: LayerFileInfo, tileType: keyof typeof TILE_TYPES | null, proj4: string | null): LayerFileSource {
  const id = info.file;
  const whole = WHOLE[info.format];
  if (whole) {
    // Its path asked at each request: a file removed meanwhile is no longer served.
    const path = bytes.addKeptFile(`file:${id}`, { ...whole, path: () => files.fileOf(id) });
    return { info, path, tiles: null, proj4 };
  }
  if (!tileType) throw new LayerFileProblem('unsupported_layer_file', 'The tiles of that file are of no type the map shows');
  const { id: rid, template } = bytes.addReader(`file:${id}`, (name) => {
    const t = parseTileName(name);
    const data = t && t.ext === tileType ? files.tile(id, t.z, t.x, t.y) : null;
    if (!data) return null;
    // Where the file has no tile, an empty one (as a PMTiles reader answers): the map draws nothing there and counts
    // no failure. A vector tile of no layers is empty bytes; an image, a transparent pixel.
    const [body, type] = data.length || tileType === 'pbf' ? [data, TILE_TYPES[tileType]] : [EMPTY_PNG, 'image/png'];
    return { data: body, type, etag: `"${rid}-${name}-${body.length.toString(36)}"` };
  });
  // The template: the path of a tile, its numbers left to fill in.
  return { info, path: null, tiles: template.replace('{name}', `{z}-{x}-{y}.${tileType}`), proj4 };
}
