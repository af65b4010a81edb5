// The app's backend contract, the attribute table: every parcel of a farm or of an account as rows — name, hectares,
// farm, sync state, active crop, one column per metadata key — sorted and filtered by any column and read a range at
// a time (the host reads the mirror with SQL: a table of 100,000 rows never crosses whole), and bulk edits of a
// selection as one undoable edit. Part of API (core/api.ts).
import { Type, type Static } from '@sinclair/typebox';
import { PAGE_AND_CLI, type Contract } from './rpc.ts';
import { AccountId, Id, MetadataValue, Nullable, Obj, SyncState } from './api-schemas.ts';
import { MAX_METADATA_FILTER_KEY_LENGTH, MAX_METADATA_FILTER_VALUE_LENGTH } from './schemas/common.ts';
import { MAX_BULK_EDIT, MAX_TABLE_FILTERS, MAX_TABLE_IDS, MAX_TABLE_RANGE } from './table/columns.ts';

/**
 * A column: 'name', 'hectares', 'farm', 'state', 'crop', or 'meta:<key>' for a metadata key (core/table/columns.ts).
 * Checked by pattern here; the host reads a metadata key with a bound parameter, never in the SQL's text.
 */
export const TableColumn = Type.String({ pattern: `^(name|hectares|farm|state|crop|meta:[\\s\\S]{1,${2 * MAX_METADATA_FILTER_KEY_LENGTH}})$` });
export type TableColumn = Static<typeof TableColumn>;

/** One filter on a column: text containing (any case), equal to (any case), below or above a number, empty, not empty. */
export const TableFilter = Type.Union([
  Obj({ column: TableColumn, op: Type.Union([Type.Literal('contains'), Type.Literal('equals')]), value: Type.String({ maxLength: 2 * MAX_METADATA_FILTER_VALUE_LENGTH }) }),
  Obj({ column: TableColumn, op: Type.Union([Type.Literal('lt'), Type.Literal('gt')]), value: Type.Number() }),
  Obj({ column: TableColumn, op: Type.Union([Type.Literal('empty'), Type.Literal('notEmpty')]) }),
]);
export type TableFilter = Static<typeof TableFilter>;

/** Which rows, in which order: an account's parcels (one farm's with `farm`), every filter met, sorted by one column. */
export const TableQuery = Obj({
  account: AccountId,
  farm: Type.Optional(Id),
  sort: Type.Optional(Obj({ column: TableColumn, desc: Type.Optional(Type.Boolean()) })),
  filters: Type.Optional(Type.Array(TableFilter, { maxItems: MAX_TABLE_FILTERS })),
});
export type TableQuery = Static<typeof TableQuery>;

export const TableRow = Obj({
  id: Id, name: Type.String(), hectares: Type.Number(), farm: Type.String(), state: SyncState,
  /** The active crop's name (the newest sowing's), null without one. */
  crop: Nullable(Type.String()),
  metadata: Type.Record(Type.String(), MetadataValue),
});
export type TableRow = Static<typeof TableRow>;

export const TablePage = Obj({
  /** Rows the query matches, and where this range starts among them. */
  total: Type.Integer(), offset: Type.Integer(),
  rows: Type.Array(TableRow),
  /** With `find`: where that parcel stands among the rows, from 0; null when the query does not match it. */
  found: Type.Optional(Nullable(Type.Integer())),
});
export type TablePage = Static<typeof TablePage>;

/** What a bulk edit does to every parcel selected: a metadata key set (or removed: null), and/or a crop added to each. */
export const BulkEdit = Obj({
  metadata: Type.Optional(Obj({ key: Type.String({ minLength: 1, maxLength: 2 * MAX_METADATA_FILTER_KEY_LENGTH }), value: MetadataValue })),
  crop: Type.Optional(Obj({
    name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S' }),
    campaign: Type.Optional(Nullable(Type.String({ maxLength: 120 }))),
    family: Type.Optional(Nullable(Type.Union([Obj({ id: Type.Integer({ minimum: 1 }) }), Obj({ name: Type.String({ minLength: 1, maxLength: 120, pattern: '\\S' }) })]))),
  })),
});
export type BulkEdit = Static<typeof BulkEdit>;

export const TABLE_API = {
  parcelTable: {
    callers: PAGE_AND_CLI,
    description: 'A range of the attribute table: the rows a query matches, sorted, from `offset` (at most 500); `find` a parcel: where it stands',
    args: Obj({ query: TableQuery, offset: Type.Integer({ minimum: 0, maximum: 10_000_000 }), limit: Type.Integer({ minimum: 1, maximum: MAX_TABLE_RANGE }), find: Type.Optional(Id) }),
    result: TablePage,
  },
  parcelTableKeys: {
    callers: PAGE_AND_CLI, description: "The metadata keys of an account's (a farm's) parcels, by name: the table's metadata columns",
    args: Obj({ account: AccountId, farm: Type.Optional(Id) }), result: Type.Array(Type.String()),
  },
  parcelTableIds: {
    callers: PAGE_AND_CLI, description: "The ids of a range of the table's rows, in its order: a shift-selection, or every row shown",
    args: Obj({ query: TableQuery, offset: Type.Integer({ minimum: 0, maximum: 10_000_000 }), limit: Type.Integer({ minimum: 1, maximum: MAX_TABLE_IDS }) }),
    result: Type.Array(Id),
  },
  bulkEditParcels: {
    callers: PAGE_AND_CLI,
    description: "Sets (or removes) a metadata key and/or adds an active crop on every parcel given, as one edit: undone in one step, synced in batches",
    args: Obj({ account: AccountId, parcels: Type.Array(Id, { minItems: 1, maxItems: MAX_BULK_EDIT }), edit: BulkEdit }),
    result: Obj({ parcels: Type.Integer() }),
  },
} satisfies Contract;
