// Accounts as every store has them: the row, and the rules that are not SQL (e-mail, limits, embedded_url).
import { randomBytes } from 'node:crypto';
import { ApiError } from '../errors.ts';
import { ErrorCode } from '../../core/errors.ts';
import { DEFAULT_MAX_PARCEL_HECTARES } from '../../core/parcels/validate.ts';
import type { AccountSummary } from '../../core/schemas/accounts.ts';

export interface AccountRow {
  id: string;
  organization_id: string;
  account_email: string;
  state: 'active' | 'deactivated';
  auth_id: string;
  max_parcel_hectares: number | null;
  created: string;
  modified: string;
  deactivated: string | null;
  /** In every account_access token; a token of another epoch is refused (store/tokens.ts, auth.ts). */
  token_epoch: number;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** The embedded map's credential: 24 random bytes, 32 base64url characters. */
export const newAuthId = (): string => randomBytes(24).toString('base64url');

export const embeddedUrl = (embedUrl: string, authId: string): string => `${embedUrl}/?auth_id=${encodeURIComponent(authId)}`;
export const parcelLimit = (a: Pick<AccountRow, 'max_parcel_hectares'>): number => a.max_parcel_hectares ?? DEFAULT_MAX_PARCEL_HECTARES;

export function summarize(a: AccountRow, embedUrl: string): AccountSummary {
  return {
    id: a.id,
    account_email: a.account_email,
    embedded_url: embeddedUrl(embedUrl, a.auth_id),
    state: a.state,
    max_parcel_hectares: parcelLimit(a),
    created: a.created,
    deactivated: a.deactivated,
  };
}

/** A new account's e-mail, trimmed, and its case-insensitive form (unique within the organization). */
export function accountEmail(email: string): { email: string; norm: string } {
  const trimmed = email.trim();
  if (!EMAIL.test(trimmed) || trimmed.length > 254) {
    throw new ApiError(ErrorCode.validationFailed, `'${email}' is not a valid account_email`, [
      { path: 'body/account_email', code: 'format', message: 'account_email must be an e-mail address' },
    ]);
  }
  return { email: trimmed, norm: trimmed.toLowerCase() };
}

/** The e-mail is taken by an account of the organization in `state`. */
export const emailTaken = (state: string): ApiError => new ApiError(ErrorCode.emailTaken, state === 'deactivated'
  ? 'This account_email belongs to a deactivated account; reactivate it or delete it permanently to reuse the address'
  : 'An account with this account_email already exists');

export const notDeactivated = (): ApiError => new ApiError(ErrorCode.conflict, 'Only a deactivated account can be reactivated');
export const purgeNeedsDeactivation = (): ApiError => new ApiError(ErrorCode.conflict, 'Deactivate the account before deleting it permanently');

export function checkParcelLimit(hectares: number | null): void {
  if (hectares !== null && !(Number.isFinite(hectares) && hectares > 0)) {
    throw new ApiError(ErrorCode.validationFailed, 'The parcel limit must be a positive number of hectares');
  }
}
