// Farms (core/api-farms.ts): an account's farms with their totals, the box around a farm's parcels, a new farm.
import type { HandlersOf } from '../core/rpc.ts';
import type { FARMS_API } from '../core/api-farms.ts';
import { farmSummaries, farmSummary } from './views.ts';
import type { HostContext } from './context.ts';

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

    createFarm: ({ account, name }) => {
      ctx.account(account);
      return ctx.jobs.write(() => farmSummary(ctx.mirror, ctx.mirror.write.createFarm(account, name).local_id));
    },
  };
}
