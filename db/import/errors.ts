import type { ImportProblem } from './convert.ts';

export type ImportErrorCode =
  | 'invalid_features' // some features cannot become parcels: `problems` lists each one
  | 'unreadable' // not a file of the format it claims to be
  | 'zip_too_large' // a zip whose layer files would inflate past FURROW_IMPORT_MAX_BYTES, or at a ratio no real file reaches
  | 'zip_overlapping' // a zip whose entries share bytes (an overlapping zip bomb)
  | 'unsupported_format'
  | 'file_changed' // the file was written to while it was being imported (it is read twice: split, then parsed)
  | 'projection' // coordinates are not WGS84 longitude/latitude
  | 'external_link' // a KML/KMZ NetworkLink to content outside the file (never fetched)
  | 'empty' // nothing to import
  | 'nothing_new' // with skipDuplicates: every valid parcel of the file is in the account already
  | 'no_account'
  | 'no_farm_name'
  | 'no_farm' // ImportOptions.farmId is not a live farm of the account
  | 'cancelled'; // stopped by the user (ImportOptions.cancelled): rolled back whole

/** How to get a file into WGS84 longitude/latitude, the only coordinates Furrow takes (it cannot reproject). */
export const REPROJECT = 'reproject it to WGS84 (EPSG:4326) first, e.g. in QGIS with Export › Save Features As… and CRS EPSG:4326, or with ogr2ogr -t_srs EPSG:4326';

/** With 'invalid_features': how many of the file's features are valid and how many are not. */
export interface FeatureCounts { features: number; valid: number; invalid: number }

/** Nothing of the file was imported; `problems` holds every invalid feature when code is 'invalid_features'. */
export class ImportError extends Error {
  constructor(readonly code: ImportErrorCode, message: string, readonly problems: readonly ImportProblem[] = [], readonly counts?: FeatureCounts) {
    super(message);
    this.name = 'ImportError';
  }
}
