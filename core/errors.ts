// Stable error codes of the service's error bodies. Clients (the sync engine, the app) branch on `code`,
// never on the message text, except for the two messages the spec fixes ('Invalid token', 'Account not found').

export const ErrorCode = {
  invalidToken: 'invalid_token',
  invalidApiKey: 'invalid_api_key',
  notAuthenticated: 'not_authenticated',
  accountNotFound: 'account_not_found',
  accountRequired: 'account_required',
  forbidden: 'forbidden',
  notFound: 'not_found',
  invalidId: 'invalid_id',
  validationFailed: 'validation_failed',
  invalidParcels: 'invalid_parcels',
  malformedJson: 'malformed_json',
  payloadTooLarge: 'payload_too_large',
  unsupportedMediaType: 'unsupported_media_type',
  emailTaken: 'email_taken',
  conflict: 'conflict',
  gatewayTimeout: 'gateway_timeout',
  requestTimeout: 'request_timeout',
  tooManyConnections: 'too_many_connections',
  serviceBusy: 'service_busy',
  insufficientStorage: 'insufficient_storage',
  methodNotAllowed: 'method_not_allowed',
  invalidCursor: 'invalid_cursor',
  cursorExpired: 'cursor_expired',
  internal: 'internal_error',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * errors[].code of a query string refused with validation_failed, besides Ajv's keywords (`type`: not an integer
 * written in decimal digits, `minimum`, `maximum`, `maxLength`, `pattern`, `unknown_field`). Stable, like ErrorCode.
 */
export const QueryProblem = {
  tooManyFilters: 'too_many_filters',
  filterKeyTooLong: 'filter_key_too_long',
  filterValueTooLong: 'filter_value_too_long',
  bboxInvalid: 'bbox_invalid',
} as const;
export type QueryProblem = (typeof QueryProblem)[keyof typeof QueryProblem];

/** The spec's fixed error messages. */
export const INVALID_TOKEN_MESSAGE = 'Invalid token';
export const ACCOUNT_NOT_FOUND_MESSAGE = 'Account not found';
export const MISSING_FARM_ID_MESSAGE = 'Missing Farm ID';

export interface ErrorDetail {
  /** Index of the offending item in the request's array (parcels), when there is one. */
  index?: number;
  /** Where in the request the problem is, e.g. "parcels/3/geom/geometry". */
  path: string;
  code: string;
  message: string;
}

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  /** DRF-compatible alias of message; clients written for the hosted original read `detail`. */
  detail: string;
  errors?: ErrorDetail[];
}

export function errorBody(code: ErrorCode, message: string, errors?: ErrorDetail[]): ErrorBody {
  return errors && errors.length > 0 ? { code, message, detail: message, errors } : { code, message, detail: message };
}
