import type { ImportProblem } from './convert.ts';

export type ImportErrorCode =
  | 'invalid_features' // some features cannot become parcels: `problems` lists each one
  | 'unreadable' // not a file of the format it claims to be
  | 'zip_too_large' // a zip whose layer files would inflate past FURROW_IMPORT_MAX_BYTES, or at a ratio no real file reaches
  | 'zip_overlapping' // a zip whose entries share bytes (an overlapping zip bomb)
  | 'unsupported_format'
  | 'file_changed' // the file was written to while it was being imported (it is read twice: split, then parsed)
  | 'projection' // coordinates are not longitude/latitude, and the file does not say what they are (no crs, no .prj)
  | 'crs_unknown' // the file names a coordinate system Furrow cannot identify (an EPSG code it has no definition of, unreadable WKT)
  | 'crs_unsupported' // a coordinate system Furrow identifies but cannot use (a vertical CRS, a projection proj4 lacks)
  | 'crs_ambiguous' // a .prj without an EPSG code that several EPSG CRSs with different datum shifts fit
  | 'datum_unknown' // a datum with no known transformation to WGS84
  | 'grid_missing' // a datum shift that needs an NTv2 grid file Furrow does not find
  | 'grid_unreadable' // a grid file found that is not NTv2
  | 'external_link' // a KML/KMZ NetworkLink to content outside the file (never fetched)
  | 'empty' // nothing to import
  | 'nothing_new' // with skipDuplicates: every valid parcel of the file is in the account already
  | 'no_account'
  | 'no_farm_name'
  | 'no_farm' // ImportOptions.farmId is not a live farm of the account
  | 'cancelled'; // stopped by the user (ImportOptions.cancelled): rolled back whole

/** How to get a file Furrow cannot place into WGS84 longitude/latitude itself. */
export const REPROJECT = 'reproject it to WGS84 (EPSG:4326) first, e.g. in QGIS with Export › Save Features As… and CRS EPSG:4326, or with ogr2ogr -t_srs EPSG:4326';

/** How to fix a file in metres that does not say which CRS they are in (no .prj, no "crs" member). */
export const SAY_CRS = `give it its coordinate system (in QGIS, Layer › Set Layer CRS, then Export › Save Features As…, which writes the .prj or the GeoJSON's "crs"), or ${REPROJECT}`;

/** With 'invalid_features': how many of the file's features are valid and how many are not. */
export interface FeatureCounts { features: number; valid: number; invalid: number }

/** Nothing of the file was imported; `problems` holds every invalid feature when code is 'invalid_features'. */
export class ImportError extends Error {
  /** With 'grid_missing': the grid files the file's datum shift needs. */
  grids: readonly string[] = [];

  constructor(readonly code: ImportErrorCode, message: string, readonly problems: readonly ImportProblem[] = [], readonly counts?: FeatureCounts) {
    super(message);
    this.name = 'ImportError';
  }
}
