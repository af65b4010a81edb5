// A new farm's name checked with core's rules (core/parcels/name.ts, the service's own), worded for the form.
import { checkName } from '../../../core/parcels/name.ts';
import { reporter } from '../../../core/parcels/problems.ts';

/** The name as it will be stored, or why it cannot be, in words for a person ("Farm name: …"). */
export function farmNameProblem(name: string): { name: string | null; problem: string | null } {
  const r = reporter(0, 'Farm name');
  const checked = checkName(name, r, 'name');
  return { name: checked, problem: r.problems[0]?.message.replace(/^Farm name: name /, 'The farm name ') ?? null };
}
