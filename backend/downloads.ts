// Downloads (core/api-export.ts exportDownload): a file the host writes for one page session and registers as a byte resource
// (backend/bytes.ts), which the page then downloads at the path answered, of any size — the bytes stream from disk
// through either shell, never as one string in an answer. The first: exportDownload, the app's Export buttons (in WGS84
// or a chosen EPSG coordinate system: backend/export.ts projectionFor).
import { writeFile, rm } from 'node:fs/promises';
import { RpcCode, RpcError, type HandlersOf } from '../core/rpc.ts';
import type { EXPORT_API } from '../core/api-export.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import type { Mirror } from '../db/mirror.ts';
import type { ByteSession } from './bytes.ts';
import { accountOf, farmOf } from './views.ts';
import { exportFileName, exportRefusal, projectionFor } from './export.ts';

const TYPES = { geojson: 'application/geo+json', csv: 'text/csv; charset=utf-8' } as const;

/**
 * The handlers of a page session whose byte resources are `bytes`; none (the CLI in process, the parent's channel):
 * refused, as the contract's callers already refuse them to anyone but a page.
 */
export function downloadHandlers(mirror: Mirror, bytes: ByteSession | null, home?: string): Pick<HandlersOf<typeof EXPORT_API>, 'exportDownload'> {
  return {
    exportDownload: async ({ account, farm, parcels: asked, unsent, table, format, crs }, call) => {
      if (!bytes) throw new RpcError(RpcCode.forbidden, "'exportDownload' is for the app's page: the command line exports with exportFile");
      const a = accountOf(mirror, account);
      const f = farm === undefined ? undefined : farmOf(mirror, farm);
      if (f && f.account_id !== account) throw new RpcError(ApiErrorCode.notFound, `No farm ${farm} in this account`);
      // The table's rows are its query's account's: one account never exports another's.
      if (table && table.account !== account) throw new RpcError(ApiErrorCode.notFound, 'The table shown is of another account');
      const tableFarm = table?.farm === undefined ? undefined : farmOf(mirror, table.farm);
      if (tableFarm && tableFarm.account_id !== account) throw new RpcError(ApiErrorCode.notFound, `No farm ${table!.farm} in this account`);
      const projection = await projectionFor(crs, home);
      // The unsent ones: read now, written as a selection (what a stale account's user saves before removing it).
      const pending = unsent ? mirror.read.unsentParcels(account) : null;
      const parcels = pending ? pending.ids : table ? undefined : asked;
      const file = bytes.file(format);
      const { exportFile, exportText } = await import('../db/export.ts');
      let count: number;
      try {
        if (parcels) {
          // The page's selection (at most 1,000 parcels, in its order), or the unsent ones: written whole, it is small.
          const r = exportText(mirror.read, { accountId: account, parcelIds: parcels, projection }, format);
          await writeFile(file, r.text, { mode: 0o600, flag: 'wx' });
          count = r.parcels;
        } else {
          // A farm, or the account: page by page from one read transaction, as the CLI's export (db/export.ts).
          const r = await exportFile(mirror, file, {
            accountId: account, farmLocalId: f?.local_id, projection, ...(table ? { table } : {}), signal: call.signal, mode: 0o600, onProgress: (done, total) => call.progress({ done, total }),
          });
          count = r.parcels;
        }
      } catch (err) {
        await rm(file, { force: true });
        throw await exportRefusal(err);
      }
      const base = pending ? `${a.label || 'account'} unsent` : table ? `${tableFarm?.name ?? a.label ?? 'parcels'} table` : parcels?.length === 1 ? mirror.read.parcel(parcels[0]!)?.name : f?.name ?? a.label;
      const fileName = exportFileName(base ?? 'parcels', format, crs);
      let added: { path: string; size: number };
      try {
        added = bytes.add({ file, name: fileName, type: TYPES[format] });
      } catch (err) {
        await rm(file, { force: true });
        throw new RpcError(RpcCode.disconnected, err instanceof Error ? err.message : String(err));
      }
      return { path: added.path, fileName, parcels: count, bytes: added.size, ...(pending ? { otherUnsent: pending.otherChanges } : {}) };
    },
  };
}
