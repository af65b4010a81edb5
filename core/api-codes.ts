// The app API's version and refusal codes, apart from its schemas (core/api.ts): a process that only needs these
// (the CLI answering `status`) does not load TypeBox to start.

/** Bumped on any change a client of the previous version could misread; the host refuses another version. */
export const API_VERSION = 1;

/** Stable codes of the backend's refusals (besides core/rpc.ts RpcCode). */
export const ApiErrorCode = {
  notFound: 'not_found',
  invalidParcel: 'invalid_parcel',
  unsyncedWork: 'unsynced_work',
  importFailed: 'import_failed',
  busy: 'busy',
  versionMismatch: 'version_mismatch',
  noAccount: 'no_account',
  connectRefused: 'connect_refused',
  /** A crop the service would refuse (core/crops/validate.ts), with every problem in the details. */
  invalidCrop: 'invalid_crop',
  /** A rotation rule set that cannot be kept (core/crops/rule-set.ts ruleSetProblem). */
  invalidRules: 'invalid_rules',
  /** More than the app takes at once (a dropped file above IMPORT_PREVIEW_MAX_BYTES: the CLI imports any size). */
  tooLarge: 'too_large',
  /** The disk holding the app's data (FURROW_HOME) is full: nothing was written; free space there and try again. */
  diskFull: 'disk_full',
  /** The service could not be reached, or refused, for something only it can answer (the embedded map's address). */
  serviceUnavailable: 'service_unavailable',
  /** A conflict settled field by field with a field it does not have, or into a parcel the service would refuse. */
  invalidChoice: 'invalid_choice',
  /** An import preview that is no longer kept (imported, discarded, replaced by the account's next one, expired): drop the file again. */
  previewGone: 'preview_gone',
  /** A new farm named like one the account has (choose that farm, or another name). */
  farmExists: 'farm_exists',
  /** No organization's key by that id here (core/api-accounts.ts), or the account is not one of its accounts. */
  noOrganization: 'no_organization',
  /** Not an e-mail the service accepts for an account (core/accounts/email.ts). */
  invalidEmail: 'invalid_email',
  /** The organization already has an account with that e-mail (a deactivated one keeps its address). */
  emailTaken: 'email_taken',
  /** A pasted or fetched token that is not this account's, expired, or refused by the service. */
  invalidToken: 'invalid_token',
  /** A token provider address the app does not use (core/accounts/token-provider.ts). */
  invalidUrl: 'invalid_url',
  /** The token provider did not give a token (its answer, or no answer). */
  tokenProviderFailed: 'token_provider_failed',
  /** Tokens are pasted or fetched only for an account connected with its own token, not by an organization's key. */
  notAccountMode: 'not_account_mode',
  /** The account's farms on the service changed since the preview the user confirmed: look again. */
  previewChanged: 'preview_changed',
  /**
   * A coordinate system an export cannot be written in: an EPSG code Furrow has no definition of, a datum without a
   * known shift to WGS84, a grid file it does not find (the message names it); details `{code, grids}`.
   */
  invalidCrs: 'invalid_crs',
  /** A grid file the app does not keep (importGrid): not NTv2, or not one an EPSG definition names. */
  invalidGrid: 'invalid_grid',
  /** A FURROW_* setting of the backend's environment it cannot use (backend/settings.ts): the message names it; details `{variable}`. */
  badSetting: 'bad_setting',
  /** An online map source (a WMTS or WMS capabilities document) could not be read: the message says why (offline, its answer). */
  sourceUnavailable: 'source_unavailable',
  /** A file the map cannot show as a layer (not a format it reads, no EPSG code, damaged): the message says why. */
  unsupportedLayerFile: 'unsupported_layer_file',
  /** An upload that is no longer under way (ended, cancelled, idle too long, its page gone), or a ticket spent or unknown: send the file again. */
  uploadGone: 'upload_gone',
  /** A call the state does not allow now: the system's location reported while another source is chosen, a walk started while one is kept, a walk paused that is none (core/api-position.ts). */
  conflict: 'conflict',
  /**
   * A page asked the host to try more new receivers on the network (TCP, gpsd, UDP) within a minute than it will
   * (backend/position/target-limit.ts): details `{retryAfterS}`. Receivers tried before are not limited.
   */
  tooManyTargets: 'too_many_targets',
} as const;
