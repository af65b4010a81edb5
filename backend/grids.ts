// The NTv2 grid files some coordinate systems' datum shifts need (db/import/epsg.ts): looked for in the grids folder
// of FURROW_HOME first, where the user puts them, then in PROJ's own folders (db/import/grid-dirs.ts).
import { join } from 'node:path';
import { projGridDirs } from '../db/import/grid-dirs.ts';

export const gridsFolder = (home: string): string => join(home, 'grids');

export const gridDirs = (home: string): string[] => [gridsFolder(home), ...projGridDirs()];
