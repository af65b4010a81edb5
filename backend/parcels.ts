// Parcels (core/api-parcels.ts): the map's parcels in a box and search as you type, answered as the JSON texts the
// mirror writes (core/rpc.ts JsonItems), one parcel, and the edits, validated by the writer with the service's own
// rules. Every write is followed by its change events (Jobs.write).
import { JsonItems, type HandlersOf } from '../core/rpc.ts';
import type { PARCELS_API, ParcelCollection, ParcelFeature } from '../core/api-parcels.ts';
import { parcelFeature } from './views.ts';
import type { HostContext } from './context.ts';

export function parcelHandlers(ctx: HostContext): HandlersOf<typeof PARCELS_API> {
  return {
    viewport: ({ account, bbox, limit = 5000, metadata, crops = false, campaign }) => {
      ctx.account(account);
      const features = ctx.mirror.read.viewportJson(bbox, limit, account, metadata, crops && campaign !== undefined ? { campaign } : crops);
      return JsonItems.object<ParcelCollection>({ type: 'FeatureCollection', truncated: features.length > limit }, { features: features.slice(0, limit) });
    },

    parcel: ({ id }) => parcelFeature(ctx.mirror, id),

    search: ({ account, text, limit = 50 }) => {
      ctx.account(account);
      return JsonItems.array<ParcelFeature>(ctx.mirror.read.searchJson(text, limit, account));
    },

    createParcel: (args) => ctx.jobs.write(() => {
      const farm = ctx.farm(args.farm);
      // The service's own input shape, so that the writer validates exactly as the service will.
      const geom = 'geometry' in args
        ? { type: 'Feature', properties: {}, geometry: args.geometry }
        : { type: 'Feature', properties: { metadata: { hectares: args.hectares } }, geometry: { type: 'Point', coordinates: args.point } };
      const { created } = ctx.mirror.write.createParcels(farm.local_id, [{ name: args.name, metadata: args.metadata ?? {}, geom }], { label: `Create parcel ${args.name}` });
      return parcelFeature(ctx.mirror, created[0]!.local_id);
    }),

    updateParcel: ({ id, name, metadata, geometry }) => ctx.jobs.write(() => {
      ctx.mirror.write.updateParcel(id, { name, metadata, ...(geometry ? { geom: { type: 'Feature', properties: {}, geometry } } : {}) });
      return parcelFeature(ctx.mirror, id);
    }),

    deleteParcel: ({ id }) => ctx.jobs.write(() => {
      ctx.mirror.write.deleteParcel(id);
      return null;
    }),
  };
}
