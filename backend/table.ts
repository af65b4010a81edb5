// The attribute table (core/api-table.ts): ranges of an account's (a farm's) parcels as rows, filtered and sorted by
// the host in SQL (db/table.ts), the ids of a range for a selection, and a bulk edit of a selection as one undoable
// edit (db/writer.ts bulkEditParcels). The page never holds more of the table than it shows.
import type { HandlersOf } from '../core/rpc.ts';
import { RpcError } from '../core/rpc.ts';
import type { TABLE_API } from '../core/api-table.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import { ParcelTable, TableQueryError } from '../db/table.ts';
import { EditError, type BulkParcelEdit } from '../db/writer.ts';
import { cropInput } from './rotations.ts';
import type { HostContext } from './context.ts';

export function tableHandlers(ctx: HostContext): HandlersOf<typeof TABLE_API> {
  const table = new ParcelTable(ctx.mirror.syncDb);
  /** The query's account and farm exist and the farm is the account's: one account never reads another's rows. */
  const known = (q: { account: string; farm?: string }) => {
    ctx.account(q.account);
    if (q.farm !== undefined && ctx.farm(q.farm).account_id !== q.account) throw new RpcError(ApiErrorCode.notFound, `No farm ${q.farm} in this account`);
  };
  const answered = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      if (err instanceof TableQueryError) throw new RpcError(ApiErrorCode.invalidChoice, err.message);
      throw err;
    }
  };
  return {
    parcelTable: ({ query, offset, limit, find }) => answered(() => {
      known(query);
      return {
        total: table.count(query), offset, rows: table.rows(query, offset, limit),
        ...(find !== undefined ? { found: table.indexOf(query, find) } : {}),
      };
    }),

    parcelTableKeys: (q) => {
      known(q);
      return table.keys(q.account, q.farm);
    },

    parcelTableIds: ({ query, offset, limit }) => answered(() => {
      known(query);
      return table.ids(query, offset, limit);
    }),

    bulkEditParcels: ({ account, parcels, edit }) => ctx.jobs.write(() => {
      ctx.account(account);
      const m = ctx.mirror;
      for (const id of parcels) {
        const p = m.read.parcel(id);
        if (!p || p.deleted || p.account_id !== account) throw new RpcError(ApiErrorCode.notFound, `No parcel ${id} in this account`);
      }
      const out: BulkParcelEdit = {};
      if (edit.metadata) out.metadata = edit.metadata;
      if (edit.crop) {
        const c = cropInput(m, account, { name: edit.crop.name, ...(edit.crop.campaign !== undefined ? { campaign: edit.crop.campaign } : {}), ...(edit.crop.family !== undefined ? { family: edit.crop.family } : {}) });
        out.crop = { name: c.name, campaign: c.campaign, family_id: c.family_id, family_name: c.family_name };
      }
      if (!out.metadata && !out.crop) throw new RpcError(ApiErrorCode.invalidParcel, 'A bulk edit sets a metadata key or adds a crop: neither was given');
      try {
        return { parcels: m.write.bulkEditParcels(parcels, out) };
      } catch (err) {
        // A crop refused carries the crop's code; a parcel's metadata refused, the parcel's (backend/jobs.ts).
        if (err instanceof EditError && out.crop && err.problems.some((p) => !('index' in p))) throw new RpcError(ApiErrorCode.invalidCrop, err.message, err.problems);
        throw err;
      }
    }),
  };
}
