// Plants for the map and the parcel panel (core/api.ts: plantsInView, plants): the trees detected on the service,
// as pulled into the mirror, found by where they stand (plants_rtree) or by their parcel (db/plants.ts).
import type { PlantHit } from '../db/plants.ts';
import { RpcError, type HandlersOf } from '../core/rpc.ts';
import type { Api, PlantFeature } from '../core/api.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import { accountOf } from './views.ts';
import type { HostContext } from './context.ts';

/** Plants answered when no limit is given: an orchard's trees in view, or on one parcel. */
const DEFAULT_LIMIT = 10_000;

const plantFeature = (h: PlantHit): PlantFeature => ({
  type: 'Feature', id: h.server_id, geometry: { type: 'Point', coordinates: JSON.parse(h.point) as number[] },
  properties: {
    crown: h.shape === null ? null : (JSON.parse(h.shape) as PlantFeature['properties']['crown']),
    area: Number(h.area), info: h.info === null ? null : JSON.parse(h.info), parcel: h.parcel, crop: h.crop,
  },
});

export function plantHandlers(ctx: HostContext): Pick<HandlersOf<Api>, 'plantsInView' | 'plants'> {
  return {
    plantsInView: ({ account, bbox, limit = DEFAULT_LIMIT }) => {
      const m = ctx.mirror;
      accountOf(m, account);
      const hits = m.read.plantsInBox(account, bbox, limit + 1);
      return { type: 'FeatureCollection', features: hits.slice(0, limit).map(plantFeature), truncated: hits.length > limit };
    },

    plants: ({ parcel, limit = DEFAULT_LIMIT }) => {
      const m = ctx.mirror;
      const p = m.read.parcel(parcel);
      if (!p || p.deleted) throw new RpcError(ApiErrorCode.notFound, `No parcel ${parcel}`);
      // Plants come from the service: a parcel it does not have yet has none.
      if (p.server_id === null) return { count: 0, truncated: false, features: [] };
      const { count, plants } = m.read.parcelPlants(p.account_id, p.server_id, limit);
      return { count, truncated: count > plants.length, features: plants.map(plantFeature) };
    },
  };
}
