// The map's parcel tiles and the exact parcel under a click (core/api-parcel-tiles.ts): the tiles through the asking
// page session's bytes readers (backend/parcel-tiles.ts), the count of a view and the click on the mirror.
import { RpcCode, RpcError, type HandlersOf } from '../core/rpc.ts';
import type { PARCEL_TILES_API } from '../core/api-parcel-tiles.ts';
import { pickShape } from '../core/geo/pick.ts';
import { parcelFeatures } from './views.ts';
import { PARCEL_TILE_MAX_ZOOM, type ParcelTiles } from './parcel-tiles.ts';
import type { ByteSession } from './bytes.ts';
import type { HostContext } from './context.ts';

/** The parcels within a click's tolerance whose exact geometry is tested: more in so small a box is not a click on one. */
const PICK_CANDIDATES = 500;

export function parcelTileHandlers(ctx: HostContext, tiles: ParcelTiles, scope: ByteSession | null): HandlersOf<typeof PARCEL_TILES_API> {
  return {
    parcelTiles: ({ account, crops = false }) => {
      if (!scope) throw new RpcError(RpcCode.forbidden, "'parcelTiles' is for the app's page");
      ctx.account(account);
      return { template: tiles.template(scope, account, crops), maxZoom: PARCEL_TILE_MAX_ZOOM };
    },

    viewportCount: ({ account, bbox, upTo }) => {
      ctx.account(account);
      const count = ctx.mirror.read.viewportCount(bbox, upTo + 1, account);
      return { count: Math.min(count, upTo), more: count > upTo };
    },

    parcelAt: ({ account, at, pixel, pixels = 3 }) => {
      ctx.account(account);
      const k = Math.cos((at[1] * Math.PI) / 180);
      const dx = pixel * pixels;
      const dy = pixel * pixels * k;
      const hits = ctx.mirror.read.viewport([at[0] - dx, at[1] - dy, at[0] + dx, at[1] + dy], PICK_CANDIDATES, account);
      const shapes = hits.map((h) => ({ hit: h, geometry: JSON.parse(h.geometry) as { type: string; coordinates: unknown } }));
      const picked = pickShape(shapes, at, pixel, pixels);
      return picked ? parcelFeatures(ctx.mirror, [picked.hit])[0]! : null;
    },
  };
}
