import type { Database } from 'better-sqlite3';

// parcels_farm indexes a farm's parcels by their deleted flag alone, no longer by their hectares after it (migration
// 011). The hectares were there so that a farm's count and hectares could be summed from the index; since migration
// 014 farm_totals keeps both, and nothing reads them from the index any more. Ordered by hectares, each new parcel's
// entry went to a page at random among its farm's: a bulk import wrote and read back pages through its small page
// cache, so it dropped the index and built it again after the rows (89 ms of the end of an import of 100,000
// parcels in a profile, after the worker threads had stopped), and a pull's new parcels did the same page by page.
// Ordered by rowid within (farm, deleted), a farm's new parcels are appended after its others, as their rows are.
export function up(db: Database): void {
  db.exec(`
    DROP INDEX parcels_farm;
    CREATE INDEX parcels_farm ON parcels(farm_local_id, deleted);
  `);
}
