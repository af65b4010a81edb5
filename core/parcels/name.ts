import { MAX_NAME_LENGTH } from './limits.ts';
import { charLength, describeValue, longerThan, report } from './problems.ts';
import type { Reporter } from './problems.ts';

/** The trimmed name, or null after reporting why it cannot be stored. */
export function checkName(value: unknown, r: Reporter, path: string): string | null {
  if (typeof value !== 'string') {
    const got = value === undefined ? 'it is missing' : `got ${describeValue(value)}`;
    report(r, path, 'name_missing', `name is required and must be a non-empty string; ${got}`);
    return null;
  }
  const name = value.trim();
  if (name === '') {
    report(r, path, 'name_missing', 'name is required and must not be empty or only whitespace');
    return null;
  }
  if (longerThan(name, MAX_NAME_LENGTH)) {
    report(r, path, 'name_too_long', `name has ${charLength(name)} characters; at most ${MAX_NAME_LENGTH} are allowed`);
    return null;
  }
  return name;
}
