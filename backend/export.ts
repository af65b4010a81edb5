// Exports (core/api-export.ts): parcels as GeoJSON or CSV with WKT, written to a path the command line names
// (db/export.ts: as they were when it began, cancellable, never half-written). The page downloads what the host
// writes for it instead (backend/downloads.ts exportDownload), named with fileBase.
import { RpcError, type HandlersOf } from '../core/rpc.ts';
import type { EXPORT_API } from '../core/api-export.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import type { HostContext } from './context.ts';

/** A file name from a farm's or parcel's name: letters, digits, spaces, dots, dashes and underscores kept, the rest dropped. */
export const fileBase = (name: string): string => name.normalize('NFC').replace(/[^\p{L}\p{N} ._-]+/gu, '').replace(/\s+/g, ' ').trim().slice(0, 80) || 'parcels';

export function exportHandlers(ctx: HostContext): Pick<HandlersOf<typeof EXPORT_API>, 'exportFile'> {
  return {
    exportFile: async ({ path, account, farm }, call) => {
      if (account !== undefined) ctx.account(account);
      if (farm !== undefined && !ctx.mirror.read.farm(farm)) throw new RpcError(ApiErrorCode.notFound, `No farm ${farm}`);
      const { exportFile } = await import('../db/export.ts');
      return exportFile(ctx.mirror, path, { accountId: account, farmLocalId: farm, signal: call.signal, onProgress: (done, total) => call.progress({ done, total }) });
    },
  };
}
