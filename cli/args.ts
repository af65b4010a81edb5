// Reading the CLI's arguments: every number is checked (finite, whole where it must be, in range) and a bad one is a
// usage error naming it, never a NaN passed on (a NaN limit would turn the check it feeds off). The FURROW_*
// variables are the backend's settings (backend/settings.ts); the CLI reports a bad one as a usage error too.
import { wholeNumber } from '../core/whole-number.ts';

/** Bad usage: the CLI prints the message and the usage text, and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

const DECIMAL = /^[+]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A number of hectares > 0 and ≤ max, written in decimal ("12.5", "1e3"). */
export function parseHectares(text: string, what: string, max = 10_000_000): number {
  const s = text.trim();
  const n = DECIMAL.test(s) ? Number(s) : NaN;
  if (!Number.isFinite(n) || n <= 0 || n > max) throw new UsageError(`${what} must be a number of hectares above 0 and at most ${max.toLocaleString('en-US')} (got '${text}')`);
  return n;
}

/** A whole number within [min, max]. */
export function parseWhole(text: string, what: string, min: number, max: number): number {
  const n = wholeNumber(text, min, max);
  if (n === null) throw new UsageError(`${what} must be a whole number from ${min} to ${max} (got '${text}')`);
  return n;
}
