import type { Database } from 'better-sqlite3';

// `farm_totals`: each farm's live parcels (how many, their hectares, how many of them the service has), kept in step
// by triggers on parcels. The farm list's totals (db/reader.ts accountFarmTotals, farmTotals) and the status's
// synced parcels (status) counted them on the parcels_farm and parcels_synced indexes (migration 011): with a
// million parcels that read a million index entries, 120–250 ms of the host's thread for the farms and 60–120 ms
// for the status, both in the way of the map's first paint and asked again after every sync. Now a farm's row is
// read instead.
//
// Triggers of their own (not parcels_ai, which a bulk import suspends: db/bulk.ts), so every write keeps the totals,
// whatever path it takes. A farm's row goes with the farm (a farm deleted for good cascades to its parcels, whose
// triggers would find the row gone). Hectares are added and taken away as parcels come and go: a farm whose last
// parcel goes is set back to exactly 0, so the float sum never drifts away from an empty farm's; a pull's update that
// writes a parcel's row again unchanged touches no total.
/**
 * What parcels_totals_au does when it fires: a row's old totals taken from its farm's, its new ones added. Migration
 * 015 fires the same body on fewer columns; kept as written here, shared, so the two can never differ by accident.
 */
export const TOTALS_AU_BODY = `
      WHEN (old.deleted = 0 OR new.deleted = 0) AND (old.farm_local_id IS NOT new.farm_local_id OR old.account_id IS NOT new.account_id
        OR old.hectares IS NOT new.hectares OR (old.server_id IS NULL) IS NOT (new.server_id IS NULL) OR old.deleted IS NOT new.deleted) BEGIN
      UPDATE farm_totals SET parcels = parcels - 1, hectares = CASE WHEN parcels = 1 THEN 0 ELSE hectares - old.hectares END,
        synced = synced - (old.server_id IS NOT NULL) WHERE old.deleted = 0 AND farm_local_id = old.farm_local_id;
      INSERT INTO farm_totals (farm_local_id, account_id, parcels, hectares, synced) SELECT new.farm_local_id, new.account_id, 1, new.hectares, new.server_id IS NOT NULL WHERE new.deleted = 0
        ON CONFLICT (farm_local_id) DO UPDATE SET parcels = parcels + 1, hectares = CASE WHEN parcels = 0 THEN excluded.hectares ELSE hectares + excluded.hectares END, synced = synced + excluded.synced;
    END;`;

/**
 * parcels_totals_ai as this migration creates it: db/bulk.ts suspendTotalsTrigger drops it for a bulk insert only when
 * the schema holds this very trigger, whose upserts its addFarmTotals then does once.
 */
export const TOTALS_AI = `CREATE TRIGGER parcels_totals_ai AFTER INSERT ON parcels WHEN new.deleted = 0 BEGIN
      INSERT INTO farm_totals (farm_local_id, account_id, parcels, hectares, synced) VALUES (new.farm_local_id, new.account_id, 1, new.hectares, new.server_id IS NOT NULL)
        ON CONFLICT (farm_local_id) DO UPDATE SET parcels = parcels + 1, hectares = hectares + excluded.hectares, synced = synced + excluded.synced;
    END`;

export function up(db: Database): void {
  db.exec(`
    CREATE TABLE farm_totals (
      farm_local_id TEXT PRIMARY KEY REFERENCES farms(local_id) ON DELETE CASCADE,
      account_id TEXT NOT NULL,
      parcels INTEGER NOT NULL,
      hectares REAL NOT NULL,
      synced INTEGER NOT NULL
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX farm_totals_account ON farm_totals(account_id);
    INSERT INTO farm_totals (farm_local_id, account_id, parcels, hectares, synced)
      SELECT farm_local_id, min(account_id), count(*), coalesce(sum(hectares), 0), count(server_id) FROM parcels WHERE deleted = 0 GROUP BY farm_local_id;
    ${TOTALS_AI};
    CREATE TRIGGER parcels_totals_au AFTER UPDATE OF farm_local_id, account_id, hectares, server_id, deleted ON parcels
${TOTALS_AU_BODY}
    CREATE TRIGGER parcels_totals_ad AFTER DELETE ON parcels WHEN old.deleted = 0 BEGIN
      UPDATE farm_totals SET parcels = parcels - 1, hectares = CASE WHEN parcels = 1 THEN 0 ELSE hectares - old.hectares END,
        synced = synced - (old.server_id IS NOT NULL) WHERE farm_local_id = old.farm_local_id;
    END;
  `);
}
