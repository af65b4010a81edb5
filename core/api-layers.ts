// The app's backend contract, the map's layers (issue 30): basemaps and reference overlays under the parcels, in
// order, each with its visibility and opacity — the built-in offline world backdrop, online sources (XYZ, WMS,
// WMTS) and the user's own files (MBTiles, PMTiles, GeoTIFF, vector overlays) kept by the host. This computer's
// choice, like the view's (core/api-view.ts): kept by the host in the mirror's settings. Part of API (core/api.ts).
//
// A file layer names its file by the host's id for it (LayerFileId): the file itself lives in the host's private
// folder FURROW_HOME/layers/<id>.<ext> (a copy the host made, or one it wrote: an area made available offline), and
// the page reads it only through the host's bytes paths (core/bytes-protocol.ts) — never by a path of its own.
import { Type, type Static } from '@sinclair/typebox';
import { PAGE_AND_CLI, type Contract } from './rpc.ts';
import { BBox, Nothing, Nullable, Obj } from './api-schemas.ts';
import { MAX_LAYERS } from './layers/layer-rules.ts';

/** A layer's id: letters, digits and dashes (the page makes them; the built-in backdrop's is 'world'). */
export const LayerId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9-]+$' });
/** The host's id for a file it keeps in FURROW_HOME/layers/: 16 random bytes, hex. */
export const LayerFileId = Type.String({ pattern: '^[0-9a-f]{32}$' });
const Url = Type.String({ minLength: 1, maxLength: 2048 });

/** The Natural Earth coastlines and borders bundled with the app: the map is never blank, even offline. */
export const WorldSource = Obj({ kind: Type.Literal('world') });
/** An XYZ tile address with {z}, {x} and {y} (core/basemap.ts's rules). */
export const XyzSource = Obj({ kind: Type.Literal('xyz'), url: Url });
/** A WMS service's GetMap, as national orthophoto services publish them: its address (no query) and layer names. */
export const WmsSource = Obj({
  kind: Type.Literal('wms'), url: Url,
  layers: Type.String({ minLength: 1, maxLength: 500, description: 'LAYERS, comma-separated' }),
  format: Type.Union([Type.Literal('image/png'), Type.Literal('image/jpeg')]),
});
/** A WMTS layer, read from its capabilities document (which the host fetches: the page connects nowhere but home). */
export const WmtsSource = Obj({
  kind: Type.Literal('wmts'), capabilities: Url,
  layer: Type.String({ minLength: 1, maxLength: 200 }), matrixSet: Type.String({ minLength: 1, maxLength: 200 }),
});
/** What a file kept by the host holds, as the host found when it was added. */
export const LayerFileFormat = Type.Union([
  Type.Literal('mbtiles-raster'), Type.Literal('mbtiles-vector'), Type.Literal('pmtiles-raster'), Type.Literal('pmtiles-vector'),
  Type.Literal('geotiff'), Type.Literal('vector'),
]);
export type LayerFileFormat = Static<typeof LayerFileFormat>;
export const FileSource = Obj({ kind: Type.Literal('file'), file: LayerFileId, format: LayerFileFormat });

export const LayerSource = Type.Union([WorldSource, XyzSource, WmsSource, WmtsSource, FileSource]);
export type LayerSource = Static<typeof LayerSource>;

/**
 * An online layer's area made available offline: its tiles, for the area and zooms chosen, in an MBTiles file the
 * host wrote (FURROW_HOME/layers/<file>.mbtiles; `<file>.mbtiles.part` while it is being written — never shown as
 * complete). Within the area and zooms the map draws from the file, online or not.
 */
export const OfflineArea = Obj({
  file: LayerFileId,
  bbox: BBox,
  minZoom: Type.Integer({ minimum: 0, maximum: 22 }),
  maxZoom: Type.Integer({ minimum: 0, maximum: 22 }),
  /** Tiles in the file, and the time the download completed (ISO 8601). */
  tiles: Type.Integer({ minimum: 0 }),
  updated: Type.String({ maxLength: 40 }),
  /**
   * Tiles of the area the server never gave, however often asked (kept without them: offlineKeepPartial); the map
   * shows the layer online there, when it can. Absent when none: areas kept before this field have none.
   */
  missing: Type.Optional(Type.Integer({ minimum: 1 })),
  /**
   * Tiles of the area the server answered empty (204/404: it has no imagery there), not counted in `tiles`: the area
   * is complete without them. Absent when none (and for areas kept before this field).
   */
  empty: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type OfflineArea = Static<typeof OfflineArea>;

export const MapLayer = Obj({
  id: LayerId,
  name: Type.String({ minLength: 1, maxLength: 200 }),
  visible: Type.Boolean(),
  opacity: Type.Number({ minimum: 0, maximum: 1 }),
  source: LayerSource,
  /** Who the source says to credit (shown in the layer's legend entry). */
  attribution: Type.Optional(Type.String({ maxLength: 500 })),
  /** An online layer's area kept offline (XYZ, WMS and WMTS layers only). */
  offline: Type.Optional(OfflineArea),
});
export type MapLayer = Static<typeof MapLayer>;

/** The layers bottom to top (all of them under the parcels); exactly one is the world backdrop. */
export const MapLayers = Type.Array(MapLayer, { maxItems: MAX_LAYERS });

export const LAYERS_API = {
  layers: {
    callers: PAGE_AND_CLI, description: "The map's layers as kept on this computer, bottom to top (the world backdrop alone when none were chosen)",
    args: Obj({}), result: Obj({ layers: MapLayers }),
  },
  saveLayers: {
    callers: PAGE_AND_CLI, description: "Keeps the map's layers, bottom to top, on this computer (checked with core/layers/layer-rules.ts)",
    args: Obj({ layers: MapLayers }), result: Nothing,
  },
  onlineCapabilities: {
    callers: PAGE_AND_CLI, description: "A WMTS or WMS service's capabilities document, fetched by the host (https, or http from this computer), as text; offline, the last copy it kept",
    args: Obj({ url: Url }),
    /** `stale`: the service could not be reached, and this is the copy the host kept when it last could. */
    result: Obj({ text: Type.String(), url: Type.String(), stale: Type.Boolean() }),
  },
  layerProbe: {
    callers: PAGE_AND_CLI,
    description: "Whether an online layer's server gives one of its tiles (XYZ numbering), fetched once by the host from the layer as it keeps it: 'tile', 'none' (404/204/410: no tile there, beyond the server's coverage) or 'failed' with why (offline, refused, a server error). The page asks it before saying a layer is unavailable: an image's error has no status, and a 404 beyond a server's coverage is no server down",
    args: Obj({ layer: LayerId, z: Type.Integer({ minimum: 0, maximum: 24 }), x: Type.Integer({ minimum: 0 }), y: Type.Integer({ minimum: 0 }) }),
    result: Obj({ answer: Type.Union([Type.Literal('tile'), Type.Literal('none'), Type.Literal('failed')]), why: Nullable(Type.String()) }),
  },
} satisfies Contract;
