// Farms (core/api-farms.ts): an account's farms with their totals, the box around a farm's parcels, a new farm.
import type { HandlersOf } from '../core/rpc.ts';
import type { FARMS_API } from '../core/api-farms.ts';
import { farmSummaries, farmSummary } from './views.ts';
import type { HostContext } from './context.ts';
import { RpcError } from '../core/rpc.ts';
import { ApiErrorCode } from '../core/api-codes.ts';

/** The list's page when the caller names none: a screen's worth, and cheap to read at any farm's size. */
const PARCEL_PAGE = 50;

export function farmHandlers(ctx: HostContext): HandlersOf<typeof FARMS_API> {
  return {
    farms: ({ account }) => {
      ctx.account(account);
      return farmSummaries(ctx.mirror, account);
    },

    farmExtent: ({ farm }) => {
      ctx.farm(farm);
      return ctx.mirror.read.farmExtent(farm);
    },

    farmParcels: (args) => {
      const limit = args.limit ?? PARCEL_PAGE;
      if ('around' in args) {
        const p = ctx.mirror.read.parcel(args.around);
        if (!p || p.deleted) throw new RpcError(ApiErrorCode.notFound, `No parcel ${args.around}`);
        ctx.farm(p.farm_local_id);
        const at = ctx.mirror.read.farmParcelIndex(p.farm_local_id, p.local_id, p.name);
        const offset = Math.floor(at / limit) * limit;
        return { farm: p.farm_local_id, offset, ...ctx.mirror.read.farmParcelPage(p.farm_local_id, offset, limit) };
      }
      ctx.farm(args.farm);
      const offset = args.offset ?? 0;
      return { farm: args.farm, offset, ...ctx.mirror.read.farmParcelPage(args.farm, offset, limit) };
    },

    createFarm: ({ account, name }) => {
      ctx.account(account);
      return ctx.jobs.write(() => farmSummary(ctx.mirror, ctx.mirror.write.createFarm(account, name).local_id));
    },
  };
}
