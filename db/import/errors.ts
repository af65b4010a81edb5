import type { ImportProblem } from './convert.ts';

export type ImportErrorCode =
  | 'invalid_features' // some features cannot become parcels: `problems` lists each one
  | 'unreadable' // not a file of the format it claims to be
  | 'unsupported_format'
  | 'projection' // coordinates are not WGS84 longitude/latitude
  | 'empty' // nothing to import
  | 'no_account'
  | 'no_farm_name';

/** Nothing of the file was imported; `problems` holds every invalid feature when code is 'invalid_features'. */
export class ImportError extends Error {
  constructor(readonly code: ImportErrorCode, message: string, readonly problems: readonly ImportProblem[] = []) {
    super(message);
    this.name = 'ImportError';
  }
}
