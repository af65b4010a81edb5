// What the pull (sync/pull.ts) reads of the mirror and the writes that are its own: rows found by the service's
// ids, what is synced here (to tell what the service no longer lists), the crop families and the plants, which
// are only ever pulled. Farms, parcels and crops themselves are written through db/rows.ts like every row.
import type { Db } from './open.ts';
import type { CropRow, FarmRow, ParcelRow, PlantRow } from './types.ts';
import { cachedStatement } from '../platform/node/statements.ts';
import { PARCEL_SELECT } from './rows.ts';
import type { ParcelColumns } from '../core/parcels/columns.ts';
import { addFarmTotals, insertIndexEntries, suspendInsertTrigger, suspendTotalsTrigger, timeOrderedIds } from './bulk.ts';

// Fixed text per table: the pull looks up every parcel the service lists.
const BY_SERVER_ID = {
  farm: 'SELECT * FROM farms WHERE account_id = ? AND server_id = ?',
  parcel: `SELECT ${PARCEL_SELECT} FROM parcels WHERE account_id = ? AND server_id = ?`,
  crop: 'SELECT * FROM crops WHERE account_id = ? AND server_id = ?',
};

/** The account's row that the service knows by this id, deleted here or not. */
export function byServerId(db: Db, entity: 'farm', accountId: string, serverId: number): FarmRow | undefined;
export function byServerId(db: Db, entity: 'parcel', accountId: string, serverId: number): ParcelRow | undefined;
export function byServerId(db: Db, entity: 'crop', accountId: string, serverId: number): CropRow | undefined;
export function byServerId(db: Db, entity: 'farm' | 'parcel' | 'crop', accountId: string, serverId: number): FarmRow | ParcelRow | CropRow | undefined {
  return cachedStatement(db, BY_SERVER_ID[entity]).get(accountId, serverId) as FarmRow | ParcelRow | CropRow | undefined;
}

/** The local id of the account's parcel that the service knows by this id (a pulled crop's parcel). */
export function parcelIdOf(db: Db, accountId: string, serverId: number): string | undefined {
  return (cachedStatement(db, 'SELECT local_id FROM parcels WHERE account_id = ? AND server_id = ?').get(accountId, serverId) as { local_id: string } | undefined)?.local_id;
}

/**
 * A local farm of this name whose create may have landed with its answer lost (sent, not committed, no server id
 * yet): reconciliation adopts the service's farm, so the pull must not copy it as a new one.
 */
export function farmCreateUnsettled(db: Db, accountId: string, name: string): boolean {
  return cachedStatement(db, `SELECT 1 FROM farms fa JOIN outbox o ON o.entity = 'farm' AND o.local_id = fa.local_id
      WHERE fa.account_id = ? AND fa.server_id IS NULL AND fa.name = ? AND o.op = 'create' AND o.attempts > 0 AND o.state != 'committed'`).get(accountId, name) !== undefined;
}

/** The account's farms the service has (had) and not deleted here: a farm missing from its list was deleted there. */
export function syncedFarms(db: Db, accountId: string): FarmRow[] {
  return cachedStatement(db, 'SELECT * FROM farms WHERE account_id = ? AND server_id IS NOT NULL AND deleted = 0').all(accountId) as FarmRow[];
}

/** A farm's parcels the service has (had) and not deleted here. */
export function syncedParcelsOf(db: Db, farmLocalId: string): ParcelRow[] {
  return cachedStatement(db, `SELECT ${PARCEL_SELECT} FROM parcels WHERE farm_local_id = ? AND server_id IS NOT NULL AND deleted = 0`).all(farmLocalId) as ParcelRow[];
}

/** The ids of a farm's parcels the service has (had) and not deleted here: what a complete listing must hold. */
export function syncedParcelIdsOf(db: Db, farmLocalId: string): { local_id: string; server_id: number }[] {
  return cachedStatement(db, 'SELECT local_id, server_id FROM parcels WHERE farm_local_id = ? AND server_id IS NOT NULL AND deleted = 0').all(farmLocalId) as { local_id: string; server_id: number }[];
}

/** The account's crops the service has (had) and not deleted here. */
export function syncedCrops(db: Db, accountId: string): CropRow[] {
  return cachedStatement(db, 'SELECT * FROM crops WHERE account_id = ? AND server_id IS NOT NULL AND deleted = 0').all(accountId) as CropRow[];
}

/** How many of a farm's parcels the service has (had), deleted here or not: what deleting the farm would take. */
export function syncedParcelCountIn(db: Db, farmLocalId: string): number {
  return (cachedStatement(db, 'SELECT COUNT(*) AS n FROM parcels WHERE farm_local_id = ? AND server_id IS NOT NULL').get(farmLocalId) as { n: number }).n;
}

/** How many of the account's parcels the service has (had), deleted here or not. */
export function syncedParcelCount(db: Db, accountId: string): number {
  return (cachedStatement(db, 'SELECT COUNT(*) AS n FROM parcels WHERE account_id = ? AND server_id IS NOT NULL').get(accountId) as { n: number }).n;
}

/** A crop family as the service lists it (GET /api/crop-families/). */
export interface PulledFamily { id: number; key: string; name: string; observation: string }

/** The account's crop families become the service's list. */
export function replaceCropFamilies(db: Db, accountId: string, families: readonly PulledFamily[]): void {
  cachedStatement(db, 'DELETE FROM crop_families WHERE account_id = ?').run(accountId);
  const ins = cachedStatement(db, 'INSERT INTO crop_families (account_id, server_id, key, name, observation) VALUES (?, ?, ?, ?, ?)');
  for (const fam of families) ins.run(accountId, fam.id, fam.key, fam.name, fam.observation);
}

/**
 * The account's pull finished at `at`; the next one resumes the change feed at `cursor` (null: it lists everything,
 * see sync/pull.ts).
 */
export function markPulled(db: Db, accountId: string, at: string, cursor: string | null): void {
  cachedStatement(db, 'UPDATE accounts SET last_pull = ?, change_cursor = ? WHERE id = ?').run(at, cursor, accountId);
}

/** Where the account's next pull resumes the service's change feed; null: it lists everything. */
export function changeCursor(db: Db, accountId: string): string | null {
  return (cachedStatement(db, 'SELECT change_cursor FROM accounts WHERE id = ?').get(accountId) as { change_cursor: string | null } | undefined)?.change_cursor ?? null;
}

/** Forgets the account's change cursor: its next pull lists everything. */
export function forgetChangeCursor(db: Db, accountId: string): void {
  cachedStatement(db, 'UPDATE accounts SET change_cursor = NULL WHERE id = ?').run(accountId);
}

/**
 * The account's plants become the service's list; returns how many rows changed. Only what changed is written:
 * an unchanged plant keeps its row (a pull that changed nothing writes nothing, so the map has nothing to redraw),
 * a changed one is updated in place, one gone from the service is deleted.
 */
export function replacePlants(db: Db, accountId: string, plants: readonly Omit<PlantRow, 'account_id'>[]): number {
  let changed = upsertPlants(db, accountId, plants);
  changed += cachedStatement(db, 'DELETE FROM plants WHERE account_id = ? AND server_id NOT IN (SELECT value FROM json_each(?))')
    .run(accountId, JSON.stringify(plants.map((p) => p.server_id))).changes;
  return changed;
}

/** Plants as the service holds them now (the change feed's), each written only when it changed; how many rows changed. */
export function upsertPlants(db: Db, accountId: string, plants: readonly Omit<PlantRow, 'account_id'>[]): number {
  const upsert = cachedStatement(db, `INSERT INTO plants (account_id, server_id, key, parcel_server_id, crop_server_id, point, shape, info, area)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (account_id, server_id) DO UPDATE SET key = excluded.key,
        parcel_server_id = excluded.parcel_server_id, crop_server_id = excluded.crop_server_id, point = excluded.point, shape = excluded.shape,
        info = excluded.info, area = excluded.area
      WHERE plants.key IS NOT excluded.key OR plants.parcel_server_id IS NOT excluded.parcel_server_id OR plants.crop_server_id IS NOT excluded.crop_server_id
        OR plants.point IS NOT excluded.point OR plants.shape IS NOT excluded.shape OR plants.info IS NOT excluded.info OR plants.area IS NOT excluded.area`);
  let changed = 0;
  for (const p of plants) changed += upsert.run(accountId, p.server_id, p.key, p.parcel_server_id, p.crop_server_id, p.point, p.shape, p.info, p.area).changes;
  return changed;
}

/** Plants deleted on the service (the change feed's tombstones); how many were here. */
export function deletePlants(db: Db, accountId: string, serverIds: readonly number[]): number {
  return cachedStatement(db, 'DELETE FROM plants WHERE account_id = ? AND server_id IN (SELECT value FROM json_each(?))').run(accountId, JSON.stringify(serverIds)).changes;
}

/** Of these service ids, those the account's mirror already holds (deleted here or not). */
export function heldServerIds(db: Db, accountId: string, serverIds: readonly number[]): Set<number> {
  return new Set(cachedStatement(db, 'SELECT server_id FROM parcels WHERE account_id = ? AND server_id IN (SELECT value FROM json_each(?))')
    .pluck().all(accountId, JSON.stringify(serverIds)) as number[]);
}

/** A parcel new to the mirror as the service holds it: its columns, its ids there. */
export interface PulledParcel { columns: ParcelColumns; server_id: number; key: string }

const PULLED_PER_INSERT = 100;
const PULLED_VALUES = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, 0, ?, ?)';
const INSERT_PULLED = `INSERT INTO parcels (local_id, account_id, farm_local_id, server_id, key, name, source_type, point, geometry, hectares,
  metadata, minx, miny, maxx, maxy, checked, base, deleted, created, modified) VALUES `;

/**
 * Parcels new to the mirror, as a pull brings them (a first pull: tens of thousands), into one farm: a hundred rows a
 * statement, the R*Tree and FTS5 entries written for the whole range at the end with the insert trigger suspended
 * (db/bulk.ts says why: through the trigger each row wrote its own FTS5 segment), the farm's totals added once
 * (addFarmTotals). The same rows, entries and totals as a row at a time through db/rows.ts insertRow; must run inside a transaction. Returns how many were inserted.
 */
export function insertPulledParcels(db: Db, accountId: string, farmLocalId: string, parcels: readonly PulledParcel[], at: string): number {
  if (parcels.length === 0) return 0;
  const resume = suspendInsertTrigger(db);
  // The farm's totals too, once for the batch: through the trigger, each row's upsert into farm_totals cost about a
  // tenth of the whole insert.
  const resumeTotals = suspendTotalsTrigger(db);
  const ids = timeOrderedIds(parcels.length);
  let first = 0;
  let last = 0;
  for (let i = 0; i < parcels.length; i += PULLED_PER_INSERT) {
    const n = Math.min(PULLED_PER_INSERT, parcels.length - i);
    const params: unknown[] = [];
    for (let k = i; k < i + n; k++) {
      const p = parcels[k]!;
      const c = p.columns;
      params.push(ids[k], accountId, farmLocalId, p.server_id, p.key, c.name, c.source_type, c.point, c.geometry, c.hectares, c.metadata, c.minx, c.miny, c.maxx, c.maxy, at, at);
    }
    last = Number(cachedStatement(db, `${INSERT_PULLED}${Array.from({ length: n }, () => PULLED_VALUES).join(', ')}`).run(params).lastInsertRowid);
    if (i === 0) first = last - n + 1;
  }
  if (last - first + 1 !== parcels.length) throw new Error(`insertPulledParcels: rowids ${first}…${last} for ${parcels.length} parcels`);
  if (resume) insertIndexEntries(db, first, last);
  if (resumeTotals) addFarmTotals(db, farmLocalId, accountId, parcels.map((p) => p.columns.hectares), parcels.length);
  // Put back together, after the last statement: each schema change has the cached statements prepared again.
  resume?.();
  resumeTotals?.();
  return parcels.length;
}

/** A deletion the service made that a pull held back (db migration 019). */
export interface HeldDeletion { entity: 'farm' | 'parcel'; server_id: number }

/** The deletions the account's last finished pull held back. */
export function heldDeletions(db: Db, accountId: string): HeldDeletion[] {
  return cachedStatement(db, 'SELECT entity, server_id FROM held_deletions WHERE account_id = ? ORDER BY entity, server_id').all(accountId) as HeldDeletion[];
}

/** What a finished pull held back becomes the account's whole held set (a deletion applied or undone on the service leaves it). */
export function replaceHeldDeletions(db: Db, accountId: string, held: readonly HeldDeletion[]): void {
  cachedStatement(db, 'DELETE FROM held_deletions WHERE account_id = ?').run(accountId);
  const insert = cachedStatement(db, 'INSERT OR IGNORE INTO held_deletions (account_id, entity, server_id) VALUES (?, ?, ?)');
  for (const h of held) insert.run(accountId, h.entity, h.server_id);
}
