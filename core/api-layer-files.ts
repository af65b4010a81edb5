// The app's backend contract, the user's own files as map layers (issue 30): an MBTiles, PMTiles or GeoTIFF file, or
// a vector overlay (GeoJSON, KML/KMZ, zipped Shapefile, GeoPackage), of any size, kept by the host in its private
// folder FURROW_HOME/layers/<id>.<ext> (core/api-layers.ts FileSource names it by that id). How a file gets there:
// - the page (browser mode) sends its bytes in chunks (addLayerFileBegin/Chunk/End): it never names a path;
// - Electron's main hands the host the path the user chose in its open dialog, and the page a ticket for it
//   (core/host-protocol.ts LAYER_FILE_CHOSEN): the page redeems the ticket (addLayerFileChosen), never the path;
// - the command line names a path (addLayerFilePath).
// The host copies the file, tells its format by its bytes, and answers what the page needs to add a layer. The page
// reads a file's bytes only through its session's bytes paths (layerFileSource; core/bytes-protocol.ts). Part of
// API (core/api.ts).
import { Type, type Static } from '@sinclair/typebox';
import { CLI_ONLY, PAGE_AND_CLI, PAGE_ONLY, type Contract } from './rpc.ts';
import { BBox, Nothing, Nullable, Obj } from './api-schemas.ts';
import { LayerFileFormat, LayerFileId } from './api-layers.ts';
import { LAYER_CHUNK_BASE64, LAYER_FILE_MAX_BYTES } from './layers/layer-files.ts';

/** An upload's id: 16 random bytes, hex. */
const UploadId = Type.String({ pattern: '^[0-9a-f]{32}$' });
const Zoom = Type.Integer({ minimum: 0, maximum: 30 });

/** What the host found in a file it keeps. */
export const LayerFileInfo = Obj({
  file: LayerFileId,
  format: LayerFileFormat,
  /** A name for the layer: the file's own title (MBTiles and PMTiles metadata), else the file's name. */
  name: Type.String({ minLength: 1, maxLength: 200 }),
  /** Where its data lies, WGS84; null when the file does not say. */
  bbox: Nullable(BBox),
  /** The zooms its tiles cover (MBTiles, PMTiles); null for the others. */
  minZoom: Nullable(Zoom),
  maxZoom: Nullable(Zoom),
  /** Who the file says to credit. */
  attribution: Nullable(Type.String({ maxLength: 500 })),
  /** A GeoTIFF's coordinate reference system, by its EPSG code. */
  epsg: Nullable(Type.Integer({ minimum: 1 })),
  /** Its size as kept (a vector overlay: the GeoJSON the host made of it). */
  bytes: Type.Integer({ minimum: 0 }),
  /** A vector overlay's features. */
  features: Nullable(Type.Integer({ minimum: 0 })),
  /** A GeoTIFF's overviews (reduced-resolution copies, for a fast zoomed-out map); absent for the others. */
  overviews: Type.Optional(Type.Integer({ minimum: 0 })),
  /** What a vector overlay was read from (the host keeps GeoJSON made of it); absent when not known (a file kept before). */
  origin: Type.Optional(Type.Union([Type.Literal('GeoJSON'), Type.Literal('KML'), Type.Literal('KMZ'), Type.Literal('Shapefile'), Type.Literal('GeoPackage')])),
  /** What the user should know (features without a shape left out, a GeoTIFF without overviews…). */
  notes: Type.Array(Type.String()),
});
export type LayerFileInfo = Static<typeof LayerFileInfo>;

/** How a page reads a layer file: its bytes paths, for this page session only. */
export const LayerFileSource = Obj({
  info: LayerFileInfo,
  /** The whole file, read by range (PMTiles, GeoTIFF) or whole (a vector overlay's GeoJSON); null for MBTiles. */
  path: Nullable(Type.String()),
  /** MBTiles: a tile's bytes path with {z}, {x} and {y} (XYZ scheme) to replace; null for the others. */
  tiles: Nullable(Type.String()),
  /** A GeoTIFF's CRS as a proj4 definition, for the page to register under EPSG:<code>; null for the others. */
  proj4: Nullable(Type.String()),
});
export type LayerFileSource = Static<typeof LayerFileSource>;

const ByPath = Type.String({ minLength: 1, maxLength: 4096 });

/** An EPSG code's definition, for the page to turn typed coordinates into longitude and latitude (go to coordinate). */
export const CrsInfo = Obj({
  code: Type.Integer({ minimum: 1, maximum: 32767 }),
  name: Type.String(),
  /** Its proj4 definition, a datum shift by grid files made optional (neither the page nor the host has them). */
  proj4: Type.String(),
  /** Whether its accurate datum shift is by a grid the definition now passes over: placed within metres, not centimetres. */
  byGrid: Type.Boolean(),
});
export type CrsInfo = Static<typeof CrsInfo>;

export const LAYER_FILES_API = {
  addLayerFileBegin: {
    callers: PAGE_AND_CLI,
    description: "Starts sending a file's bytes to the host (browser mode: the page has no path): its name and size; refused with too_large past the limit or the disk's free space",
    args: Obj({ name: Type.String({ minLength: 1, maxLength: 1000 }), size: Type.Integer({ minimum: 1, maximum: LAYER_FILE_MAX_BYTES }) }),
    result: Obj({ upload: UploadId, chunkBytes: Type.Integer() }),
  },
  addLayerFileChunk: {
    callers: PAGE_AND_CLI,
    description: 'One chunk of an upload, in base64, at its offset (a multiple of chunkBytes; chunks may come in any order, a chunk sent again is written again)',
    args: Obj({ upload: UploadId, offset: Type.Integer({ minimum: 0 }), data: Type.String({ minLength: 1, maxLength: LAYER_CHUNK_BASE64 }) }),
    result: Nothing,
  },
  addLayerFileEnd: {
    callers: PAGE_AND_CLI,
    description: 'Ends an upload whose every chunk came: the host tells the format by its bytes and keeps the file (a vector overlay turned into GeoJSON), or refuses it in words and removes it',
    args: Obj({ upload: UploadId }),
    result: LayerFileInfo,
  },
  addLayerFileCancel: {
    callers: PAGE_AND_CLI, description: "Drops an upload and what it wrote (Cancel); nothing when it is gone already",
    args: Obj({ upload: UploadId }), result: Nothing,
  },
  addLayerFileChosen: {
    // Electron: main hands the host the path the user chose in its dialog, and the page a ticket for it.
    callers: PAGE_ONLY,
    description: "Copies the file the user chose in the app's open dialog (the ticket the dialog gave the page; once, within minutes) and keeps it as addLayerFileEnd does; progress in bytes, cancellable",
    args: Obj({ ticket: UploadId }),
    result: LayerFileInfo,
    progress: Obj({ done: Type.Integer(), total: Type.Integer() }),
  },
  addLayerFilePath: {
    // A path names any file the user may read: the command line's.
    callers: CLI_ONLY,
    description: 'Copies a file from a path and keeps it as addLayerFileEnd does; progress in bytes, cancellable',
    args: Obj({ path: ByPath }),
    result: LayerFileInfo,
    progress: Obj({ done: Type.Integer(), total: Type.Integer() }),
  },
  layerFile: {
    callers: PAGE_AND_CLI, description: 'What the host found in a file it keeps; not_found when it keeps none of that id',
    args: Obj({ file: LayerFileId }), result: LayerFileInfo,
  },
  removeLayerFile: {
    callers: PAGE_AND_CLI,
    description: 'Removes a file the host keeps that no saved layer uses (one added and then not kept); refused while a saved layer uses it (saveLayers without that layer removes its file)',
    args: Obj({ file: LayerFileId }), result: Nothing,
  },
  crsDefinition: {
    // The page cannot read the EPSG definitions (40 MB, a package of the host's); one code's costs one small file.
    callers: PAGE_AND_CLI,
    description: "EPSG:`code`'s name and proj4 definition (a horizontal CRS), as the import reads it: for placing coordinates typed in it; invalid_crs for a code Furrow has no usable definition of",
    args: Obj({ code: Type.Integer({ minimum: 1, maximum: 32767 }) }),
    result: CrsInfo,
  },
  layerFileSource: {
    // A page's only: the paths are its session's bytes paths.
    callers: PAGE_ONLY, description: "A kept file's bytes paths for this page (whole by range, or an MBTiles file's tiles by name) and what it holds",
    args: Obj({ file: LayerFileId }), result: LayerFileSource,
  },
} satisfies Contract;
