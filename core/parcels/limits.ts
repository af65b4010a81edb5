// Limits of the parcel API (spec: "Limits", "POST /api/parcels/"). Re-exported by validate.ts.

export const DEFAULT_MAX_PARCEL_HECTARES = 100;
export const MAX_PARCELS_PER_REQUEST = 50;
export const MAX_POSITIONS_PER_PARCEL = 10_000;
export const MAX_NAME_LENGTH = 255;
export const MAX_METADATA_KEYS = 200;
export const MAX_METADATA_KEY_LENGTH = 200;
export const MAX_METADATA_STRING_LENGTH = 2000;
/**
 * A polygon with every position wrong (say, lon/lat swapped) would otherwise yield
 * one problem per position, up to 10,000 per parcel and 50 parcels per request.
 * Past this many, position problems are counted and summarised on the last one.
 */
export const MAX_POSITION_PROBLEMS_PER_PARCEL = 20;
/** Point parcels stay clear of the poles so their generated square is well formed. */
export const MAX_POINT_LATITUDE = 85;
/**
 * Bump whenever a parcel rule changes (a limit, a check, the area computation): mirrors stamp each parcel with
 * the version it was validated under, and a stamp from another version is validated again before it is sent.
 */
export const PARCEL_RULES_VERSION = 1;
