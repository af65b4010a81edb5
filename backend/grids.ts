// The NTv2 grid files some coordinate systems' datum shifts need (db/import/epsg.ts): looked for in the grids folder
// of FURROW_HOME first, where the user puts them (by hand, or through the import preview: importGrid), then in PROJ's
// own folders (db/import/grid-dirs.ts).
import { randomUUID } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projGridDirs } from '../db/import/grid-dirs.ts';
import { RpcCode, RpcError } from '../core/rpc.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import { IMPORT_GRID_MAX_BYTES } from '../core/api-imports.ts';
import { ensurePrivateDir } from '../platform/node/private-files.ts';

export const gridsFolder = (home: string): string => join(home, 'grids');

export const gridDirs = (home: string): string[] => [gridsFolder(home), ...projGridDirs()];

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Keeps the grid file `name` (its bytes in base64) in the grids folder, replacing one of that name: only a name an EPSG
 * definition gives a grid (db/import/epsg.ts gridNames), and only NTv2 bytes (core/geo/crs.ts ntv2Problem), so
 * nothing else can be stored there through the app; written whole, then renamed into place.
 */
export async function saveGrid(home: string, name: string, data: string): Promise<{ name: string; bytes: number }> {
  if (Math.floor((data.length * 3) / 4) > IMPORT_GRID_MAX_BYTES + 2) {
    throw new RpcError(ApiErrorCode.tooLarge, `${name} is larger than a grid file the app keeps (${IMPORT_GRID_MAX_BYTES / 1048576} MB): put it in ${gridsFolder(home)} yourself`);
  }
  if (data.length % 4 !== 0 || !BASE64.test(data)) throw new RpcError(RpcCode.invalidArguments, `importGrid: the file's data is not base64 (${name})`);
  const [{ gridNames }, { ntv2Problem }] = await Promise.all([import('../db/import/epsg.ts'), import('../core/geo/crs.ts')]);
  if (!gridNames().has(name)) throw new RpcError(ApiErrorCode.invalidGrid, `${name} is not a grid file any EPSG coordinate system Furrow knows uses`);
  const bytes = Buffer.from(data, 'base64');
  const problem = ntv2Problem(bytes);
  if (problem) throw new RpcError(ApiErrorCode.invalidGrid, `The file chosen as ${name} is not an NTv2 grid file (.gsb): ${problem}`);
  const folder = gridsFolder(home);
  ensurePrivateDir(folder);
  const tmp = join(folder, `.${randomUUID()}.tmp`);
  try {
    writeFileSync(tmp, bytes, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, join(folder, name));
  } finally {
    rmSync(tmp, { force: true });
  }
  return { name, bytes: bytes.length };
}
