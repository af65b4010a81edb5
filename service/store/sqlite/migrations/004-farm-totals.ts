import type { Database } from 'better-sqlite3';

// Every farm carries its parcel count and its area, kept by triggers in the same statement (so the same
// transaction) as every insert, delete or area change of a parcel: reading a farm no longer sums its parcels
// (479 ms at 1.13 M parcels, on the one thread that serves every organization).
//
// Triggers rather than the store functions: parcels also disappear through foreign-key cascades (a farm's
// delete, an account's purge, an organization's delete) that no store function sees row by row, and a total
// that one new code path forgets to maintain is silently wrong forever.
//
// The area is kept in whole micro-hectares (0.01 m²), each parcel's hectares rounded once with the same
// expression on the way in and on the way out. Integer additions are exact and order-free, so the running total
// equals a recomputation from the parcels exactly, after any number of creates, edits and deletes; a running
// REAL sum would drift by an ulp per operation and never match a fresh SUM again.
const MICRO = (col: string) => `CAST(round(${col} * 1000000) AS INTEGER)`;

export function up(db: Database): void {
  db.exec(`
    ALTER TABLE farms ADD COLUMN parcel_count INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE farms ADD COLUMN micro_hectares INTEGER NOT NULL DEFAULT 0;

    UPDATE farms SET
      parcel_count = (SELECT COUNT(*) FROM parcels p WHERE p.farm_id = farms.id),
      micro_hectares = (SELECT COALESCE(SUM(${MICRO('p.hectares')}), 0) FROM parcels p WHERE p.farm_id = farms.id);

    CREATE TRIGGER farm_totals_insert AFTER INSERT ON parcels BEGIN
      UPDATE farms SET parcel_count = parcel_count + 1, micro_hectares = micro_hectares + ${MICRO('new.hectares')}
        WHERE id = new.farm_id;
    END;
    CREATE TRIGGER farm_totals_delete AFTER DELETE ON parcels BEGIN
      UPDATE farms SET parcel_count = parcel_count - 1, micro_hectares = micro_hectares - ${MICRO('old.hectares')}
        WHERE id = old.farm_id;
    END;
    CREATE TRIGGER farm_totals_update AFTER UPDATE OF hectares, farm_id ON parcels
      WHEN old.hectares IS NOT new.hectares OR old.farm_id IS NOT new.farm_id BEGIN
      UPDATE farms SET parcel_count = parcel_count - 1, micro_hectares = micro_hectares - ${MICRO('old.hectares')}
        WHERE id = old.farm_id;
      UPDATE farms SET parcel_count = parcel_count + 1, micro_hectares = micro_hectares + ${MICRO('new.hectares')}
        WHERE id = new.farm_id;
    END;
  `);
}
