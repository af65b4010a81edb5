// The metadata editor's rows (key and value as typed) and the metadata they make, checked with the rules the service
// applies (core/parcels/metadata.ts checkMetadata) so that what the panel accepts, the service accepts. Only what is
// the editor's own is checked here: two rows with one key, and the key the sync engine keeps for itself.
import { checkMetadata, type Metadata, type MetadataValue } from '../../../core/parcels/metadata.ts';
import { joinPath, reporter } from '../../../core/parcels/problems.ts';
import { REF_KEY } from '../../../core/parcels/client-ref.ts';

export interface MetaRow { key: string; value: string }
export interface RowProblems { key: string[]; value: string[] }
export interface CheckedRows {
  /** The metadata to save, or null while a row has a problem. */
  metadata: Metadata | null;
  /** One entry per row, in order. */
  rows: RowProblems[];
  /** Problems of the whole (too many keys). */
  whole: string[];
}

/** A value as the editor shows it: numbers and booleans as text. */
export const rowsOf = (metadata: Readonly<Record<string, unknown>>): MetaRow[] =>
  Object.entries(metadata).map(([key, value]) => ({ key, value: value === null || value === undefined ? '' : String(value) }));

/**
 * The value a typed text stands for: a number or a boolean the parcel held stays one while its text still reads as
 * one (the service's values keep their JSON type); anything else, and every new value, is a string.
 */
export function valueOf(text: string, before: unknown): MetadataValue {
  if (typeof before === 'number' && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  if (typeof before === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/** A core/ check's message without the reporter's empty label (": metadata key …"), as a sentence. */
export const sentence = (message: string): string => {
  const m = message.replace(/^: /, '');
  return `${m.charAt(0).toUpperCase()}${m.slice(1)}.`;
};

export function checkRows(rows: readonly MetaRow[], before: Readonly<Record<string, unknown>>): CheckedRows {
  const out: RowProblems[] = rows.map(() => ({ key: [], value: [] }));
  const seen = new Map<string, number>();
  const metadata: Record<string, MetadataValue> = {};
  rows.forEach((row, i) => {
    const first = seen.get(row.key);
    if (first !== undefined) out[i]!.key.push(`The key "${row.key}" is already used above: give this one another name, or remove it.`);
    else seen.set(row.key, i);
    if (row.key === REF_KEY) out[i]!.key.push(`The key "${REF_KEY}" is kept by Furrow's sync for the parcel's reference: choose another name.`);
    // A "__proto__" key is an ordinary key in JSON: defined, not assigned, as checkMetadata's own copy does.
    Object.defineProperty(metadata, row.key, { value: valueOf(row.value, before[row.key]), enumerable: true, writable: true, configurable: true });
  });
  const r = reporter(0, '');
  const checked = checkMetadata(metadata, r, 'metadata');
  const whole: string[] = [];
  for (const p of r.problems) {
    const i = rows.findIndex((row) => joinPath('metadata', row.key) === p.path);
    const message = sentence(p.message);
    if (i < 0) { whole.push(message); continue; }
    // checkMetadata says which part is wrong in its words: "metadata value of …" or "metadata key …".
    (/^Metadata value/.test(message) ? out[i]!.value : out[i]!.key).push(message);
  }
  const ok = whole.length === 0 && out.every((p) => p.key.length === 0 && p.value.length === 0);
  return { metadata: ok ? checked : null, rows: out, whole };
}
