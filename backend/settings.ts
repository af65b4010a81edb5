// The backend's settings read from its environment: the FURROW_* waits and bounds of the sync engine and its HTTP
// client (sync/context.ts DurationOptions). Every value is checked — whole, in range — and a bad one is refused
// naming the variable, never a NaN passed on (a NaN limit would turn the check it feeds off). The CLI reports the
// refusal as a usage error (exit 2); the app, as the `bad_setting` refusal of the call that needed the setting.
import type { DurationOptions } from '../sync/context.ts';
import { RpcError } from '../core/rpc.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import { wholeNumber } from '../core/whole-number.ts';

/** A FURROW_* variable whose value cannot be used: the message names it, its unit, its range and the value. */
export class SettingsError extends Error {
  constructor(readonly variable: string, message: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

const HOUR = 3_600_000;

/** The FURROW_*_MS variables: how long a sync waits (settling, retries) and how long a request may take. */
export const DURATION_VARS = {
  FURROW_SETTLE_MS: { min: 0, max: HOUR, option: 'settleMs' },
  FURROW_MAX_WAIT_MS: { min: 0, max: 24 * HOUR, option: 'maxWaitMs' },
  FURROW_HTTP_TIMEOUT_MS: { min: 1, max: HOUR, option: 'timeoutMs' },
  FURROW_HTTP_DEADLINE_MS: { min: 1, max: HOUR, option: 'deadlineMs' },
} as const;

/** FURROW_MAX_ANSWER_BYTES: the largest answer read from the service (default 256 MiB, sync/http.ts MAX_ANSWER_BYTES). */
const ANSWER_BYTES = { min: 1 << 20, max: 2 ** 31 } as const;

function whole(variable: string, unit: string, raw: string, min: number, max: number): number {
  const n = wholeNumber(raw, min, max);
  if (n === null) throw new SettingsError(variable, `${variable} (${unit}) must be a whole number from ${min} to ${max} (got '${raw}')`);
  return n;
}

/** The durations (and the answer cap) set in the environment (unset or empty: the default). A bad value throws SettingsError. */
export function durationsFromEnv(env: NodeJS.ProcessEnv): DurationOptions {
  const out: DurationOptions = {};
  for (const [name, { min, max, option }] of Object.entries(DURATION_VARS)) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') continue;
    out[option] = whole(name, 'milliseconds', raw, min, max);
  }
  const cap = env['FURROW_MAX_ANSWER_BYTES'];
  if (cap !== undefined && cap.trim() !== '') out.maxAnswerBytes = whole('FURROW_MAX_ANSWER_BYTES', 'bytes', cap, ANSWER_BYTES.min, ANSWER_BYTES.max);
  return out;
}

/**
 * FURROW_BYTES_TTL_MS: how long a page's byte resource (a download) stays readable (backend/bytes.ts); unset or
 * empty: its default. A bad value throws SettingsError, as the durations do.
 */
export function bytesTtlFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.FURROW_BYTES_TTL_MS;
  if (raw === undefined || raw.trim() === '') return undefined;
  return whole('FURROW_BYTES_TTL_MS', 'milliseconds', raw, 1, 24 * HOUR);
}

/**
 * durationsFromEnv for a call of the API: a bad value refuses the call with `bad_setting` (the variable in its
 * details), which the app shows as it is and the CLI as a usage error.
 */
export function durationSettings(env: NodeJS.ProcessEnv): DurationOptions {
  try {
    return durationsFromEnv(env);
  } catch (err) {
    if (!(err instanceof SettingsError)) throw err;
    throw new RpcError(ApiErrorCode.badSetting, `The setting ${err.message}: correct it where Furrow is started, then try again.`, { variable: err.variable });
  }
}

/** FURROW_OFFLINE_MAX_TILES: the most tiles one area kept offline is downloaded with (core/tiles/tile-cap.ts). */
const TILE_CAP = { min: 1, max: 10_000_000 } as const;
/** FURROW_OFFLINE_CONCURRENCY: tiles fetched at once by a download (backend/offline-job.ts). */
const CONCURRENCY = { min: 1, max: 16 } as const;

/** The offline downloads' settings (unset or empty: the defaults given). A bad value throws SettingsError. */
export function offlineFromEnv(env: NodeJS.ProcessEnv, defaults: { cap: number; concurrency: number }): { cap: number; concurrency: number } {
  const read = (name: string, unit: string, range: { min: number; max: number }, def: number) => {
    const raw = env[name];
    return raw === undefined || raw.trim() === '' ? def : whole(name, unit, raw, range.min, range.max);
  };
  return {
    cap: read('FURROW_OFFLINE_MAX_TILES', 'tiles', TILE_CAP, defaults.cap),
    concurrency: read('FURROW_OFFLINE_CONCURRENCY', 'requests', CONCURRENCY, defaults.concurrency),
  };
}

/** offlineFromEnv for a call of the API: a bad value refuses the call with `bad_setting`, naming it. */
export function offlineSettings(env: NodeJS.ProcessEnv, defaults: { cap: number; concurrency: number }): { cap: number; concurrency: number } {
  try {
    return offlineFromEnv(env, defaults);
  } catch (err) {
    if (!(err instanceof SettingsError)) throw err;
    throw new RpcError(ApiErrorCode.badSetting, `The setting ${err.message}: correct it where Furrow is started, then try again.`, { variable: err.variable });
  }
}
