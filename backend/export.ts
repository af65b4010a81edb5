// Exports (core/api-export.ts): parcels as GeoJSON or CSV with WKT, written to a path the command line names
// (db/export.ts: as they were when it began, cancellable, never half-written). The page downloads what the host
// writes for it instead (backend/downloads.ts exportDownload), named with fileBase.
import { RpcError, type HandlersOf } from '../core/rpc.ts';
import type { EXPORT_API } from '../core/api-export.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import type { HostContext } from './context.ts';
import type { Projection } from '../db/export-crs.ts';
import { gridDirs, gridsFolder } from './grids.ts';
import { projGridDirs } from '../db/import/grid-dirs.ts';

/** A file name from a farm's or parcel's name: letters, digits, spaces, dots, dashes and underscores kept, the rest dropped. */
export const fileBase = (name: string): string => name.normalize('NFC').replace(/[^\p{L}\p{N} ._-]+/gu, '').replace(/\s+/g, ' ').trim().slice(0, 80) || 'parcels';

/** "Cortijo La Campana EPSG-25830.geojson": a file in another CRS than WGS84 says which in its name. */
export const exportFileName = (base: string, format: string, crs?: number): string =>
  `${fileBase(base)}${crs !== undefined && crs !== 4326 ? ` EPSG-${crs}` : ''}.${format}`;

/** The projection to EPSG:`crs` for an export (null: WGS84), its refusal in the API's terms (invalid_crs). */
export async function projectionFor(crs: number | undefined, home: string | undefined): Promise<Projection | null> {
  if (crs === undefined || crs === 4326) return null;
  const [{ exportProjection }, { CrsError }] = await Promise.all([import('../db/export-crs.ts'), import('../core/geo/crs.ts')]);
  try {
    return exportProjection(crs, home === undefined ? projGridDirs() : gridDirs(home));
  } catch (err) {
    if (!(err instanceof CrsError)) throw err;
    const way = err.code === 'grid_missing' && home !== undefined ? `: put it in ${gridsFolder(home)}` : '';
    throw new RpcError(ApiErrorCode.invalidCrs, `Cannot export in EPSG:${crs}: ${err.message}${way}`, { code: err.code, grids: err.grids });
  }
}

/** A CRS refused while the parcels are written (one outside what it covers), in the API's terms. */
export async function exportRefusal(err: unknown): Promise<unknown> {
  const { CrsError } = await import('../core/geo/crs.ts');
  return err instanceof CrsError ? new RpcError(ApiErrorCode.invalidCrs, `Not exported: ${err.message}`, { code: err.code, grids: err.grids }) : err;
}

export function exportHandlers(ctx: HostContext): Pick<HandlersOf<typeof EXPORT_API>, 'exportFile'> {
  return {
    exportFile: async ({ path, account, farm, crs }, call) => {
      if (account !== undefined) ctx.account(account);
      if (farm !== undefined && !ctx.mirror.read.farm(farm)) throw new RpcError(ApiErrorCode.notFound, `No farm ${farm}`);
      const projection = await projectionFor(crs, ctx.home);
      const { exportFile } = await import('../db/export.ts');
      return exportFile(ctx.mirror, path, { accountId: account, farmLocalId: farm, projection, signal: call.signal, onProgress: (done, total) => call.progress({ done, total }) })
        .catch(async (err: unknown) => { throw await exportRefusal(err); });
    },
  };
}
