// The attribute table's columns as one name each, across the contract (core/api-table.ts), the host's SQL
// (db/table.ts) and the page (renderer/features/table/): the parcel's own columns by name, a metadata key as
// 'meta:<key>'. Pure: no I/O.

/** Rows one range of the table reads at most (a screen is ~30): cheap to answer, small to send. */
export const MAX_TABLE_RANGE = 500;
/** Ids one call may name or answer: a selection of the table's rows (every row of a 100,000-parcel account). */
export const MAX_TABLE_IDS = 100_000;
/**
 * Parcels one bulk edit changes at most: its undo entry keeps each row as it was (its shape included), so 20,000 is
 * some 20 MB of history; a larger change is several edits.
 */
export const MAX_BULK_EDIT = 20_000;
/** Filters one query may hold (each is a condition of its WHERE). */
export const MAX_TABLE_FILTERS = 20;
/** Metadata keys shown as columns at most: past that a table is not read across. */
export const MAX_TABLE_KEYS = 100;

export type BaseColumn = 'name' | 'hectares' | 'farm' | 'state' | 'crop';
export const BASE_COLUMNS: readonly BaseColumn[] = ['name', 'hectares', 'farm', 'state', 'crop'];

export type Column = { base: BaseColumn } | { key: string };

const META = 'meta:';

/** A column's name as the contract spells it. */
export const columnId = (c: Column): string => ('base' in c ? c.base : META + c.key);

/** A column from its name, or null when it names none. */
export function parseColumn(id: string): Column | null {
  if (id.startsWith(META)) return id.length > META.length ? { key: id.slice(META.length) } : null;
  return (BASE_COLUMNS as readonly string[]).includes(id) ? { base: id as BaseColumn } : null;
}

/** The heading of a column. */
export const columnTitle = (id: string): string => {
  const c = parseColumn(id);
  if (!c) return id;
  if ('key' in c) return c.key;
  return { name: 'Name', hectares: 'Hectares', farm: 'Farm', state: 'Sync state', crop: 'Active crop' }[c.base];
};
