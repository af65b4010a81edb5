import { idsIn } from './id-range.ts';
import { cachedStatement } from '../platform/node/statements.ts';
import type { Db } from './open.ts';
import type { CropRow, Entity, FarmRow, ParcelRow, ParcelToSend, Row } from './types.ts';
import { parcelStateOfRow } from './parcel-state.ts';

// Generic row access per entity, so history (undo/redo) and the sync engine treat all three alike.
const TABLE: Record<Entity, string> = { farm: 'farms', parcel: 'parcels', crop: 'crops' };
const COLUMNS: Record<Entity, readonly string[]> = {
  farm: ['local_id', 'account_id', 'server_id', 'name', 'base', 'deleted', 'created', 'modified'],
  parcel: ['local_id', 'account_id', 'farm_local_id', 'server_id', 'key', 'name', 'source_type', 'point', 'geometry', 'hectares', 'metadata',
    'minx', 'miny', 'maxx', 'maxy', 'checked', 'base', 'deleted', 'created', 'modified'],
  crop: ['local_id', 'account_id', 'parcel_local_id', 'server_id', 'key', 'family_id', 'family_name', 'name', 'campaign', 'area', 'variety',
    'harvested_qty', 'sowing', 'closure', 'is_active', 'base', 'deleted', 'created', 'modified'],
};

export const tableOf = (e: Entity) => TABLE[e];

/**
 * The room a parcel row without a server id keeps for the ids its booking writes (migration 017): a key of 36
 * characters and an integer of up to 4 bytes (their type bytes in the row's header are there already, as NULLs'). A
 * zero blob of this size, set to NULL when the ids are written, so the row keeps its size and is rewritten in place
 * instead of splitting its full page.
 */
export const ID_ROOM_BYTES = 40;
/** A parcel's columns as rows are read (ParcelRow): never `SELECT *`, which would hand out `id_room`. */
export const PARCEL_SELECT = COLUMNS.parcel.join(', ');
/** `id_room` as it follows a row's server id (a parameter named `@server_id`): room while the row has none. */
const ID_ROOM_OF_SERVER_ID = `CASE WHEN @server_id IS NULL THEN zeroblob(${ID_ROOM_BYTES}) END`;

// The fixed statements' text, built once: building it per row (and hashing the fresh string for the cache
// lookup) cost about 5 µs a row, a sixth of an import's parcel insert.
const perEntity = (sql: (e: Entity) => string) => ({ farm: sql('farm'), parcel: sql('parcel'), crop: sql('crop') });
const SELECT_SQL = perEntity((e) => `SELECT ${COLUMNS[e].join(', ')} FROM ${TABLE[e]} WHERE local_id = ?`);
const INSERT_SQL = perEntity((e) => e === 'parcel'
  ? `INSERT INTO parcels (${COLUMNS.parcel.join(', ')}, id_room) VALUES (${COLUMNS.parcel.map((c) => `@${c}`).join(', ')}, ${ID_ROOM_OF_SERVER_ID})`
  : `INSERT INTO ${TABLE[e]} (${COLUMNS[e].join(', ')}) VALUES (${COLUMNS[e].map((c) => `@${c}`).join(', ')})`);

export function getRow(db: Db, entity: 'farm', localId: string): FarmRow | undefined;
export function getRow(db: Db, entity: 'parcel', localId: string): ParcelRow | undefined;
export function getRow(db: Db, entity: 'crop', localId: string): CropRow | undefined;
export function getRow(db: Db, entity: Entity, localId: string): Row | undefined;
export function getRow(db: Db, entity: Entity, localId: string): Row | undefined {
  return cachedStatement(db, SELECT_SQL[entity]).get(localId) as Row | undefined;
}

/**
 * The parcels of these rowids that are not deleted (in no particular order), what their creates send, with one query.
 * By rowid, the table's own key: by local id each row was found through the local id's index first (a push of 20,000
 * parcels spent about 60 ms more reading them).
 */
export function parcelsToSend(db: Db, rowids: readonly number[]): ParcelToSend[] {
  // A run of rowids (parcels created together) is read as one range (id-range.ts).
  const rows = idsIn('rowid', rowids);
  return cachedStatement(db, `SELECT local_id, farm_local_id, name, source_type, point, geometry, hectares, metadata, checked FROM parcels
    WHERE ${rows.sql} AND deleted = 0`).all(...rows.params) as ParcelToSend[];
}

export function insertRow(db: Db, entity: Entity, row: Row): void {
  // Rows recorded in undo history before migration 002 have no stamp.
  const r = entity === 'parcel' && (row as ParcelRow).checked === undefined ? { ...row, checked: null } : row;
  cachedStatement(db, INSERT_SQL[entity]).run(r);
}

/** The columns whose update fires parcels_totals_au (migration 015). */
const TOTALS_COLUMNS = new Set(['farm_local_id', 'account_id', 'hectares', 'deleted']);
/** A parcel's user fields: writing any of them without a fresh `checked` stamp clears the stamp. */
const CHECKED_FIELDS = new Set(['name', 'metadata', 'geometry', 'point', 'hectares', 'source_type']);

/** Writes the given columns of a row (only columns the entity has). */
export function updateRow(db: Db, entity: Entity, localId: string, fields: Partial<Record<string, unknown>>): void {
  if (entity === 'parcel' && Object.keys(fields).some((c) => CHECKED_FIELDS.has(c))) {
    if (!('checked' in fields)) fields = { ...fields, checked: null };
    if (!('base' in fields)) {
      // A synced parcel whose base is implicit (parcel-state.ts parcelBase): keep the state being replaced as the base.
      const row = getRow(db, 'parcel', localId);
      if (row && row.server_id !== null && row.base === null) fields = { ...fields, base: JSON.stringify(parcelStateOfRow(row)) };
    }
  }
  const cols = Object.keys(fields).filter((c) => c !== 'local_id' && COLUMNS[entity].includes(c));
  if (cols.length === 0) return;
  // A parcel's server id written alone would not reach farm_totals.synced (migration 015: the trigger does not fire on
  // server_id, for the push's bookings): naming hectares, unchanged, fires it, and it counts the server id as before.
  const totals = entity === 'parcel' && cols.includes('server_id') && !cols.some((c) => TOTALS_COLUMNS.has(c)) ? ', hectares = hectares' : '';
  // A parcel given its server id gives up its room; one that loses it (sent again as a create) gets room again.
  const room = entity === 'parcel' && cols.includes('server_id') ? `, id_room = ${ID_ROOM_OF_SERVER_ID}` : '';
  cachedStatement(db, `UPDATE ${TABLE[entity]} SET ${cols.map((c) => `${c} = @${c}`).join(', ')}${totals}${room} WHERE local_id = @local_id`).run({ ...fields, local_id: localId });
}

export function deleteRow(db: Db, entity: Entity, localId: string): void {
  cachedStatement(db, `DELETE FROM ${TABLE[entity]} WHERE local_id = ?`).run(localId);
}

/** The server ids the account's farms or crops already map to: a service row that one of them holds is not a lost create's. */
export function mappedServerIds(db: Db, entity: 'farm' | 'crop', accountId: string): Set<number> {
  return new Set((cachedStatement(db, `SELECT server_id FROM ${TABLE[entity]} WHERE account_id = ? AND server_id IS NOT NULL`).all(accountId) as { server_id: number }[])
    .map((r) => r.server_id));
}
