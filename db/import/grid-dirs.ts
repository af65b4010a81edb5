// Where the NTv2 grid files some datum shifts need (db/import/epsg.ts loadGridsFor) are looked for. A module of its
// own, without proj4 or the EPSG definitions, so the app's backend can name the folders without loading them.
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * PROJ's own data folders (PROJ_DATA, PROJ_LIB, the user's, the system's), where a user with QGIS or PROJ installed
 * has its grids. The app looks in its home's grids folder first (backend/grids.ts).
 */
export function projGridDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs = [env['PROJ_DATA'], ...(env['PROJ_LIB'] ?? '').split(':'), join(homedir(), '.local', 'share', 'proj'), '/usr/local/share/proj', '/usr/share/proj'];
  return [...new Set(dirs.filter((d): d is string => typeof d === 'string' && d !== ''))];
}
