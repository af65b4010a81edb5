// Reading the CLI's arguments and environment: every number is checked (finite, whole where it must be, in range)
// and a bad one is a usage error naming it, never a NaN passed on (a NaN limit would turn the check it feeds off).

/** Bad usage: the CLI prints the message and the usage text, and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

const DECIMAL = /^[+]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const WHOLE = /^\d+$/;

/** A number of hectares > 0 and ≤ max, written in decimal ("12.5", "1e3"). */
export function parseHectares(text: string, what: string, max = 10_000_000): number {
  const s = text.trim();
  const n = DECIMAL.test(s) ? Number(s) : NaN;
  if (!Number.isFinite(n) || n <= 0 || n > max) throw new UsageError(`${what} must be a number of hectares above 0 and at most ${max.toLocaleString('en-US')} (got '${text}')`);
  return n;
}

/** A whole number within [min, max]. */
export function parseWhole(text: string, what: string, min: number, max: number): number {
  const s = text.trim();
  const n = WHOLE.test(s) ? Number(s) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`${what} must be a whole number from ${min} to ${max} (got '${text}')`);
  return n;
}

const HOUR = 3_600_000;

/** The FURROW_*_MS variables: how long a sync waits (settling, retries) and how long a request may take. */
export const DURATION_VARS = {
  FURROW_SETTLE_MS: { min: 0, max: HOUR, option: 'settleMs' },
  FURROW_MAX_WAIT_MS: { min: 0, max: 24 * HOUR, option: 'maxWaitMs' },
  FURROW_HTTP_TIMEOUT_MS: { min: 1, max: HOUR, option: 'timeoutMs' },
  FURROW_HTTP_DEADLINE_MS: { min: 1, max: HOUR, option: 'deadlineMs' },
} as const;

export interface DurationOptions { settleMs?: number; maxWaitMs?: number; timeoutMs?: number; deadlineMs?: number; maxAnswerBytes?: number }

/** FURROW_MAX_ANSWER_BYTES: the largest answer read from the service (default 256 MiB, sync/http.ts MAX_ANSWER_BYTES). */
const ANSWER_BYTES = { min: 1 << 20, max: 2 ** 31 } as const;

/** The durations (and the answer cap) set in the environment (unset or empty: the default). A bad value is a usage error naming the variable. */
export function durationsFromEnv(env: NodeJS.ProcessEnv): DurationOptions {
  const out: DurationOptions = {};
  for (const [name, { min, max, option }] of Object.entries(DURATION_VARS)) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') continue;
    out[option] = parseWhole(raw, `${name} (milliseconds)`, min, max);
  }
  const cap = env['FURROW_MAX_ANSWER_BYTES'];
  if (cap !== undefined && cap.trim() !== '') out.maxAnswerBytes = parseWhole(cap, 'FURROW_MAX_ANSWER_BYTES (bytes)', ANSWER_BYTES.min, ANSWER_BYTES.max);
  return out;
}
