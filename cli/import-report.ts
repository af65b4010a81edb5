// How the CLI words an import's outcome: what was imported and left out, or why nothing was and what to do.

import type { Static } from '@sinclair/typebox';
import type { ImportSummary } from '../core/api.ts';
import type { ImportFailure } from '../backend/import-protocol.ts';
import { crsWords } from '../core/geo/crs-words.ts';

/** Problems listed one per line; past this many, the rest are counted (a whole file of bad features is one cause). */
const MAX_LINES = 100;

/**
 * File text reaches these lines (a .prj's name, a feature's name or id): control characters are shown escaped,
 * never sent raw to the terminal, where an escape sequence could rewrite the screen or hide a line.
 */
export const printable = (s: string): string =>
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

export function importReportLines(r: Static<typeof ImportSummary>): string[] {
  const lines = [`Imported ${r.imported} parcel(s) into '${r.farmName}'${r.parts ? ` (${r.parts} from split multipolygons)` : ''}.`];
  if (r.crs.reprojected) lines.push(`  from ${crsWords(r.crs)}`);
  for (const note of r.notes) lines.push(`  note: ${note}`);
  if (r.skipped) lines.push(`Left out ${r.skipped} invalid feature(s):`);
  lines.push(...problemLines(r.problems, r.problemCount, '  skipped '));
  return lines.map(printable);
}

/** The first MAX_LINES problems, then a count of the rest. */
function problemLines(problems: readonly { message: string }[], count: number, prefix: string): string[] {
  const lines = problems.slice(0, MAX_LINES).map((p) => `${prefix}${p.message}`);
  if (count > MAX_LINES) lines.push(`  … and ${count - MAX_LINES} more problem(s)`);
  return lines;
}

export function importErrorLines(message: string, f: Omit<ImportFailure, 'message'> | undefined): string[] {
  const lines = [message, ...(f ? problemLines(f.problems, f.problemCount, '  ') : [])];
  const c = f?.counts;
  if (f?.code === 'invalid_features' && c && c.valid > 0) {
    lines.push(`To import only the ${c.valid} valid feature(s), run the same command again with --skip-invalid.`);
  }
  // A line of the message itself (it may span lines) stays a line; a control character inside one is escaped.
  return lines.flatMap((l) => l.split('\n')).map(printable);
}
