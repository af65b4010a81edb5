// The attribute table's reads (core/api-table.ts): an account's (a farm's) parcels as rows, filtered and sorted by any
// column in SQL, read a range at a time. A range is found in two steps: the range's rowids in order (every filter and
// the sort evaluated over the parcels' own columns and indexes), then the shown columns for those rows alone — SQLite
// computes a sorted query's columns for every row before it sorts, and a sync state or an active crop per row of
// 100,000 would cost a whole table's worth for 40 rows.
import type { Db } from './open.ts';
import { parseColumn, MAX_TABLE_KEYS, type Column } from '../core/table/columns.ts';
import type { TableFilter, TableQuery, TableRow } from '../core/api-table.ts';
import type { SyncState } from '../core/api-schemas.ts';

/** SQL text and the parameters it binds, in order. */
interface Sql { sql: string; params: unknown[] }
const sql = (text: string, ...params: unknown[]): Sql => ({ sql: text, params });

/**
 * A parcel's most pressing open sync state as a rank (db/reader.ts openState's order: a conflict, a rejection, a
 * blocked account, an unknown outcome, a request out, a queued change), null when synced.
 */
const STATE_RANK = `(SELECT max(rank) FROM (
    SELECT CASE o.state WHEN 'conflict' THEN 6 WHEN 'rejected' THEN 5 WHEN 'blocked' THEN 4 WHEN 'uncertain' THEN 3 WHEN 'in_flight' THEN 2 ELSE 1 END AS rank
      FROM outbox o WHERE o.entity = 'parcel' AND o.local_id = p.local_id AND o.state != 'committed'
    UNION ALL SELECT 6 FROM conflicts c WHERE c.entity = 'parcel' AND c.local_id = p.local_id AND c.resolved IS NULL))`;
const STATE_NAME = `(CASE ${STATE_RANK} WHEN 6 THEN 'conflict' WHEN 5 THEN 'rejected' WHEN 4 THEN 'blocked' WHEN 3 THEN 'uncertain'
    WHEN 2 THEN 'sending' WHEN 1 THEN 'pending' ELSE 'synced' END)`;
/** The active crop: the newest sowing's (as the map's crop colours pick it, db/reader.ts FEATURE_WITH_CROP_JSON). */
const CROP = `(SELECT c.name FROM crops c WHERE c.parcel_local_id = p.local_id AND c.deleted = 0 AND c.is_active = 1
    ORDER BY c.sowing IS NULL, c.sowing DESC, c.created DESC LIMIT 1)`;

/**
 * A metadata key's value: by a JSON path bound as a parameter where the key can be quoted in one, else by json_each
 * (a key holding a double quote or a backslash), never the key in the SQL's text.
 */
const metaValue = (key: string): Sql => (/^[^"\\]*$/.test(key)
  ? sql('json_extract(p.metadata, ?)', `$."${key}"`)
  : sql('(SELECT j.value FROM json_each(p.metadata) j WHERE j.key = ?)', key));

/** A column's value for a filter (the state by name). */
function value(c: Column): Sql {
  if ('key' in c) return metaValue(c.key);
  switch (c.base) {
    case 'name': return sql('p.name');
    case 'hectares': return sql('p.hectares');
    case 'farm': return sql('f.name');
    case 'state': return sql(STATE_NAME);
    case 'crop': return sql(CROP);
  }
}

/** A column's value for sorting: the state by how pressing it is, synced first. */
const sortValue = (c: Column): Sql => ('base' in c && c.base === 'state' ? sql(`coalesce(${STATE_RANK}, 0)`) : value(c));

const isText = (c: Column) => 'key' in c || c.base === 'name' || c.base === 'farm' || c.base === 'crop';

function condition(f: TableFilter): Sql {
  const c = parseColumn(f.column);
  if (!c) throw new TableQueryError(`No column ${f.column}`);
  const v = value(c);
  switch (f.op) {
    case 'contains': return sql(`instr(lower(${v.sql}), lower(?)) > 0`, ...v.params, f.value);
    case 'equals': return sql(`lower(${v.sql}) = lower(?)`, ...v.params, f.value);
    // Numbers only: SQLite orders any text after every number, so "below 5" would never hold for text and always above.
    case 'lt': return sql(`(typeof(${v.sql}) IN ('integer', 'real') AND ${v.sql} < ?)`, ...v.params, ...v.params, f.value);
    case 'gt': return sql(`(typeof(${v.sql}) IN ('integer', 'real') AND ${v.sql} > ?)`, ...v.params, ...v.params, f.value);
    case 'empty': return sql(`coalesce(${v.sql}, '') = ''`, ...v.params);
    case 'notEmpty': return sql(`coalesce(${v.sql}, '') != ''`, ...v.params);
  }
}

/** A query the table cannot answer (a column that names none): the caller's mistake, said plainly. */
export class TableQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TableQueryError';
  }
}

/** The FROM and WHERE of a query, and its ORDER BY (the sort column, empty last, then name and id: a total order). */
function parts(q: TableQuery): { from: Sql; order: Sql } {
  const where: Sql[] = [sql('p.account_id = ? AND p.deleted = 0', q.account)];
  if (q.farm !== undefined) where.push(sql('p.farm_local_id = ?', q.farm));
  for (const f of q.filters ?? []) where.push(condition(f));
  // The farms joined only when the farm's name is sorted or filtered on: a range of the plain table reads parcels alone.
  const farmUsed = q.sort?.column === 'farm' || (q.filters ?? []).some((f) => f.column === 'farm');
  const from = sql(`FROM parcels p ${farmUsed ? 'JOIN farms f ON f.local_id = p.farm_local_id ' : ''}WHERE ${where.map((w) => w.sql).join(' AND ')}`, ...where.flatMap((w) => w.params));
  const col = parseColumn(q.sort?.column ?? 'name');
  if (!col) throw new TableQueryError(`No column ${q.sort?.column}`);
  const s = sortValue(col);
  const dir = q.sort?.desc ? 'DESC' : 'ASC';
  const collate = isText(col) ? ' COLLATE NOCASE' : '';
  const empty = `(${s.sql} IS NULL OR ${s.sql} = '')`;
  const order = sql(`ORDER BY ${empty}, ${s.sql}${collate} ${dir}, p.name COLLATE NOCASE ${dir}, p.local_id ${dir}`, ...s.params, ...s.params, ...s.params);
  return { from, order };
}

interface RawRow { id: string; name: string; hectares: number; farm: string; state: SyncState; crop: string | null; metadata: string; rid: number }

export class ParcelTable {
  constructor(private readonly db: Db) {}

  /** How many rows the query matches. */
  count(q: TableQuery): number {
    const { from } = parts(q);
    return this.db.prepare(`SELECT count(*) ${from.sql}`).pluck().get(...from.params) as number;
  }

  /** The rows from `offset`, at most `limit`, in the query's order. */
  rows(q: TableQuery, offset: number, limit: number): TableRow[] {
    const { from, order } = parts(q);
    const rids = this.db.prepare(`SELECT p.rowid ${from.sql} ${order.sql} LIMIT ? OFFSET ?`).pluck().all(...from.params, ...order.params, limit, offset) as number[];
    if (!rids.length) return [];
    const raw = this.db.prepare(`SELECT p.rowid AS rid, p.local_id AS id, p.name, p.hectares, f.name AS farm, ${STATE_NAME} AS state, ${CROP} AS crop, p.metadata
        FROM parcels p JOIN farms f ON f.local_id = p.farm_local_id WHERE p.rowid IN (SELECT value FROM json_each(?))`).all(JSON.stringify(rids)) as RawRow[];
    const byRid = new Map(raw.map((r) => [r.rid, r]));
    // A row deleted between the two reads (an import's thread commits on its own connection) is left out.
    return rids.flatMap((rid) => byRid.get(rid) ?? []).map(({ rid: _rid, metadata, ...r }) => ({ ...r, metadata: JSON.parse(metadata) as TableRow['metadata'] }));
  }

  /** The rowids of every row, in the query's order (an export of what the table shows: db/export.ts). */
  rowids(q: TableQuery): number[] {
    const { from, order } = parts(q);
    return this.db.prepare(`SELECT p.rowid ${from.sql} ${order.sql}`).pluck().all(...from.params, ...order.params) as number[];
  }

  /** The local ids from `offset`, at most `limit`, in the query's order. */
  ids(q: TableQuery, offset: number, limit: number): string[] {
    const { from, order } = parts(q);
    return this.db.prepare(`SELECT p.local_id ${from.sql} ${order.sql} LIMIT ? OFFSET ?`).pluck().all(...from.params, ...order.params, limit, offset) as string[];
  }

  /** Where a parcel stands among the query's rows, from 0; null when the query does not match it. */
  indexOf(q: TableQuery, localId: string): number | null {
    const { from, order } = parts(q);
    const at = this.db.prepare(`SELECT n FROM (SELECT p.local_id AS id, row_number() OVER (${order.sql}) - 1 AS n ${from.sql}) WHERE id = ?`)
      .pluck().get(...order.params, ...from.params, localId) as number | undefined;
    return at ?? null;
  }

  /** The metadata keys of an account's (a farm's) live parcels, by name, at most MAX_TABLE_KEYS. */
  keys(account: string, farm?: string): string[] {
    return this.db.prepare(`SELECT DISTINCT j.key FROM parcels p, json_each(p.metadata) j
        WHERE p.account_id = ? AND p.deleted = 0 AND (? IS NULL OR p.farm_local_id = ?) ORDER BY j.key LIMIT ${MAX_TABLE_KEYS}`)
      .pluck().all(account, farm ?? null, farm ?? null) as string[];
  }
}
