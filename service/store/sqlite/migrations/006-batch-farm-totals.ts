import type { Database } from 'better-sqlite3';

// The farm totals of migration 004 stay, but a bulk create no longer moves them one parcel at a time. Measured in
// the bulk-create benchmark, the per-row AFTER INSERT trigger more than doubled the insert's time on the thread
// that answers every request (1.3 -> 3-4 ms per 50-parcel batch, throughput 9.5k -> 7k parcels/s). insertParcels,
// the only statement that inserts parcels, now adds a batch's count and micro-hectares in one UPDATE in the same
// transaction, with the same rounding. Deletes, area changes and moves keep their triggers: they also happen
// through foreign-key cascades that no store function sees row by row. The property test of the farm totals
// (farm-totals.property.test.ts) checks the two paths together against a recomputation.
export function up(db: Database): void {
  db.exec('DROP TRIGGER farm_totals_insert');
}
