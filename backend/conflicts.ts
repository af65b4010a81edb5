// Conflicts (core/api-conflicts.ts): a parcel's open conflict with what differs between its two sides, and settling
// one — a side whole, or field by field — with the duplicates a choice leaves on the service deleted there.
import { RpcError, type HandlersOf } from '../core/rpc.ts';
import type { CONFLICTS_API } from '../core/api-conflicts.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import { parcelConflict } from './parcel-conflict.ts';
import type { HostContext } from './context.ts';

const syncJobs = () => import('./sync-jobs.ts');

export function conflictHandlers(ctx: HostContext): HandlersOf<typeof CONFLICTS_API> {
  return {
    parcelConflict: ({ id }) => parcelConflict(ctx.mirror, id),

    resolve: async ({ conflict, keep, fields }) => {
      const c = ctx.mirror.read.openConflict(conflict);
      if (!c) throw new RpcError(ApiErrorCode.notFound, `No open conflict #${conflict}`);
      const [{ resolveConflict }, { FieldChoiceError }] = await Promise.all([import('../sync/conflicts.ts'), import('../sync/conflict-fields.ts')]);
      const r = await ctx.jobs.write(() => {
        try {
          return resolveConflict(ctx.mirror.syncDb, conflict, keep, fields);
        } catch (err) {
          if (err instanceof FieldChoiceError) throw new RpcError(ApiErrorCode.invalidChoice, err.message);
          throw err;
        }
      });
      const deleted = r.deleteOnService.length ? await (await syncJobs()).deleteOnService(ctx.mirror, ctx.credentials, c.account_id, c.entity, r.deleteOnService) : [];
      return { effect: r.effect, deletedOnService: deleted };
    },
  };
}
