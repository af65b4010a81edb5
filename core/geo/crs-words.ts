// How the app's import preview and the CLI name a file's coordinate system (core/api-imports.ts ImportCrs). Pure, and
// without proj4: the renderer imports it.

export interface CrsFacts {
  code: number | null; name: string; reprojected: boolean; shift: 'none' | 'helmert' | 'grid'; grid: string | null; accuracy: number | null;
}

/** "EPSG:25830 · ETRS89 / UTM zone 30N" (the EPSG code first, as QGIS shows it), or the .prj's own name. */
export const crsName = (c: Pick<CrsFacts, 'code' | 'name'>): string => (c.code === null ? `${c.name} (no EPSG code)` : `EPSG:${c.code} · ${c.name}`);

/**
 * "EPSG:25830 · ETRS89 / UTM zone 30N, reprojected to WGS84", with how the datum was shifted when it was: by Helmert
 * parameters (and how accurate EPSG says they are), or by an NTv2 grid.
 */
export function crsWords(c: CrsFacts): string {
  if (!c.reprojected) return `${crsName(c)} (longitude/latitude)`;
  const shift = c.shift === 'helmert'
    ? ` (datum shifted with published Helmert parameters${c.accuracy === null ? '' : `, accurate to about ${c.accuracy} m`})`
    : c.shift === 'grid' ? ` (datum shifted with the NTv2 grid ${c.grid ?? ''})` : '';
  return `${crsName(c)}, reprojected to WGS84${shift}`;
}
