// Crop rules every store applies the same way (the rows and queries: sqlite/crops.ts).
import { ApiError } from '../errors.ts';
import { ErrorCode } from '../../core/errors.ts';

export function checkDates(sowing: string | null, closure: string | null): void {
  if (sowing && closure && closure < sowing) {
    throw new ApiError(ErrorCode.validationFailed, `closure (${closure}) is before sowing (${sowing})`, [
      { path: 'body/closure', code: 'closure_before_sowing', message: 'closure must not be before sowing' },
    ]);
  }
}

/** A parcel's current crop as the embedded map shows it. */
export interface CurrentCrop { name: string | null; variety: string | null; campaign: string | null; sowing: string | null; family: string | null }

export interface CropQuery { parcel?: number; is_active?: boolean; limit: number; offset: number }
