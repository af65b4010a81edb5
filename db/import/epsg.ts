// The EPSG definitions (the epsg-index package: one small JSON file per code, and all of them in one 8 MB file) and
// the NTv2 grid files some datum shifts need, read from disk for core/geo/crs.ts. Nothing is read until a file in
// another CRS than WGS84 arrives: a code costs one small file; all.json is read only to identify a .prj that names no
// EPSG code (core/geo/crs-match.ts), and is not kept (about 40 MB once parsed).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CrsError, gridSource, loadGrid, datumShiftOf, type CrsDefinition } from '../../core/geo/crs.ts';
import { definitionOf, HORIZONTAL_KINDS, isEpsgCode, type EpsgEntry } from '../../core/geo/crs-match.ts';

let root: string | null = null;
/** epsg-index's folder, found as Node finds the package (beside the sources, or the built bundle). */
function packageRoot(): string {
  root ??= dirname(createRequire(import.meta.url).resolve('epsg-index/package.json'));
  return root;
}

const cache = new Map<number, CrsDefinition | null>();

/**
 * The definition of EPSG:`code`, null when the package has none (or only a vertical, compound or geocentric CRS,
 * which no file's two coordinates are in: `kind` says which it was). Throws crs_unsupported for one proj4 cannot use.
 */
export function epsgDefinition(code: number): { def: CrsDefinition | null; kind: string | null } {
  if (!Number.isInteger(code) || !isEpsgCode(code)) return { def: null, kind: null };
  const file = join(packageRoot(), 's', `${code}.json`);
  if (!existsSync(file)) return { def: null, kind: null };
  const entry = JSON.parse(readFileSync(file, 'utf8')) as EpsgEntry;
  if (!HORIZONTAL_KINDS.has(entry.kind)) return { def: null, kind: entry.kind };
  if (!cache.has(code)) cache.set(code, definitionOf(entry));
  const def = cache.get(code)!;
  if (!def) {
    throw new CrsError('crs_unsupported', entry.proj4
      ? `EPSG:${code} (${entry.name}) is defined on an ellipsoid proj4 does not know (${entry.proj4})`
      : `EPSG:${code} (${entry.name}) has no definition proj4 can use in the EPSG definitions Furrow has`);
  }
  return { def, kind: entry.kind };
}

/** Every EPSG entry of the package (all.json, 8 MB), read now and not kept. */
export function epsgEntries(): EpsgEntry[] {
  const all = JSON.parse(readFileSync(join(packageRoot(), 'all.json'), 'utf8')) as Record<string, EpsgEntry>;
  return Object.values(all);
}

/**
 * The NTv2 grid files the EPSG definitions name (+nadgrids=BETA2007.gsb…): the only ones the app keeps for the user
 * (backend/grids.ts), so a page cannot have it store files under names nothing reads.
 */
export function gridNames(): Set<string> {
  const names = new Set<string>();
  for (const e of epsgEntries()) {
    const list = e.proj4 && /\+nadgrids=(\S+)/.exec(e.proj4)?.[1];
    for (const g of list ? list.split(',') : []) {
      const name = g.replace(/^@/, '');
      if (/^[A-Za-z0-9._-]+\.gsb$/i.test(name)) names.add(name);
    }
  }
  return names;
}

/** The largest grid file read (OSTN15's is 15 MB; a national NTv2 grid is rarely over 50 MB). */
const MAX_GRID_BYTES = 200 * 1024 * 1024;

/**
 * Loads the grids `def` shifts its datum with from the first of `dirs` that has each (core/geo/crs.ts loadGrid: once,
 * and again when the file changed), and returns the names found: reprojector() takes those. Ones not found stay
 * missing, and core/geo/crs.ts unusable() names them.
 */
export function gridsFor(def: CrsDefinition, dirs: readonly string[]): Set<string> {
  const found = new Set<string>();
  const shift = datumShiftOf(def.proj4);
  if (shift.kind !== 'grid') return found;
  for (const name of shift.grids) {
    if (/[/\\]/.test(name)) continue;
    for (const dir of dirs) {
      const file = join(dir, name);
      let st;
      try {
        st = statSync(file);
      } catch {
        continue;
      }
      if (!st.isFile()) continue;
      if (st.size > MAX_GRID_BYTES) throw new CrsError('grid_unreadable', `${file} is ${Math.round(st.size / 1048576)} MB, more than an NTv2 grid Furrow reads`);
      const source = `${file} ${st.size} ${st.mtimeMs}`;
      if (gridSource(name) !== source) {
        const bytes = readFileSync(file);
        loadGrid(name, bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, source);
      }
      found.add(name);
      break;
    }
  }
  return found;
}
