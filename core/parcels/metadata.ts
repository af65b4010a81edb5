import { MAX_METADATA_KEYS, MAX_METADATA_KEY_LENGTH, MAX_METADATA_STRING_LENGTH } from './limits.ts';
import { charLength, describeValue, isPlainObject, joinPath, longerThan, report, reporter } from './problems.ts';
import type { ParcelProblem, Reporter } from './problems.ts';

export type MetadataValue = string | number | boolean;
export type Metadata = Record<string, MetadataValue>;

/**
 * Checks a present metadata value (absent metadata is the caller's business: it
 * defaults to {}). Returns a copy on success, in which a "__proto__" key from JSON stays an
 * ordinary key instead of replacing the prototype. Paths are built only for problems: most
 * metadata is fine, and a bulk create checks a lot of it.
 */
export function checkMetadata(value: unknown, r: Reporter, path: string): Metadata | null {
  if (!isPlainObject(value)) {
    report(r, path, 'metadata_invalid', `metadata must be an object of key-value pairs, got ${describeValue(value)}`);
    return null;
  }
  const keys = Object.keys(value);
  let ok = true;
  if (keys.length > MAX_METADATA_KEYS) {
    report(r, path, 'metadata_invalid', `metadata has ${keys.length} keys; at most ${MAX_METADATA_KEYS} are allowed`);
    ok = false;
  }
  for (const key of keys) {
    if (key === '') {
      report(r, joinPath(path, key), 'metadata_invalid', 'metadata keys must not be empty');
      ok = false;
    } else if (longerThan(key, MAX_METADATA_KEY_LENGTH)) {
      report(r, joinPath(path, key), 'metadata_invalid',
        `metadata key ${describeValue(key)} has ${charLength(key)} characters; at most ${MAX_METADATA_KEY_LENGTH} are allowed`);
      ok = false;
    }
    const v = value[key];
    if (typeof v === 'string') {
      if (longerThan(v, MAX_METADATA_STRING_LENGTH)) {
        report(r, joinPath(path, key), 'metadata_invalid',
          `metadata value of ${describeValue(key)} has ${charLength(v)} characters; at most ${MAX_METADATA_STRING_LENGTH} are allowed`);
        ok = false;
      }
    } else if (typeof v === 'number') {
      // JSON cannot carry NaN or Infinity, but a caller inside the process can.
      if (!Number.isFinite(v)) {
        report(r, joinPath(path, key), 'metadata_invalid', `metadata value of ${describeValue(key)} must be a finite number, got ${v}`);
        ok = false;
      }
    } else if (typeof v !== 'boolean') {
      report(r, joinPath(path, key), 'metadata_invalid',
        `metadata value of ${describeValue(key)} must be a string, number or boolean, got ${describeValue(v)}`);
      ok = false;
    }
  }
  return ok ? copyOf(value, keys) : null;
}

/**
 * What Object.fromEntries(Object.entries(value)) returns, without the two arrays of entries: every key an own
 * data property, "__proto__" included (a plain assignment would set the prototype instead).
 */
function copyOf(value: Record<string, unknown>, keys: readonly string[]): Metadata {
  const out: Metadata = {};
  for (const key of keys) {
    if (key === '__proto__') Object.defineProperty(out, key, { value: value[key], enumerable: true, writable: true, configurable: true });
    else out[key] = value[key] as MetadataValue;
  }
  return out;
}

/** Problems of a metadata value that is present; `path` is where it sits, e.g. "parcels/3/metadata". */
export function validateMetadata(value: unknown, index: number, path: string): ParcelProblem[] {
  const r = reporter(index);
  checkMetadata(value, r, path);
  return r.problems;
}
