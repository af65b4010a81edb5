import type { Database } from 'better-sqlite3';

// The parcels' R*Tree carries each parcel's account and deleted flag as auxiliary columns (kept in the R*Tree's own
// rowid table, a few dozen bytes a parcel), so the map's tiles and its overview of the parcels' boxes (db/parcel-tiles.ts,
// backend/parcel-overview.ts) find an account's live parcels in the index alone. They used to filter on
// parcels.account_id and parcels.deleted, which read each parcel's row: with a million parcels the overview's build
// read the whole 2.3 GB table (about four minutes on a loaded machine) to learn 20 bytes a parcel.
//
// Kept in step by the triggers: parcels_ai writes both at insert (db/bulk.ts writes the same for a bulk insert),
// parcels_box_au rewrites the entry when the box, the account or the flag changes, parcels_ad removes it. parcels_au
// now keeps only the search index in step (it used to rewrite the FTS5 entry on a move too). The R*Tree is rebuilt
// from the rows already there.
/**
 * parcels_ai as this migration creates it: db/bulk.ts suspendInsertTrigger drops it for a bulk insert only when the
 * schema holds this very trigger, whose entries its insertIndexEntries then writes for the whole range.
 */
export const PARCELS_AI = `CREATE TRIGGER parcels_ai AFTER INSERT ON parcels BEGIN
      INSERT INTO parcels_rtree (id, minx, maxx, miny, maxy, account_id, deleted) VALUES (new.rowid, new.minx, new.maxx, new.miny, new.maxy, new.account_id, new.deleted);
      INSERT INTO parcels_fts (rowid, name, metadata) VALUES (new.rowid, new.name, (SELECT group_concat(value, ' ') FROM json_each(new.metadata)));
    END`;

export function up(db: Database): void {
  db.exec(`
    DROP TRIGGER parcels_ai;
    DROP TRIGGER parcels_au;
    DROP TRIGGER parcels_ad;
    DROP TABLE parcels_rtree;
    CREATE VIRTUAL TABLE parcels_rtree USING rtree(id, minx, maxx, miny, maxy, +account_id TEXT, +deleted INTEGER);
    INSERT INTO parcels_rtree (id, minx, maxx, miny, maxy, account_id, deleted) SELECT rowid, minx, maxx, miny, maxy, account_id, deleted FROM parcels;
    ${PARCELS_AI};
    CREATE TRIGGER parcels_au AFTER UPDATE OF name, metadata ON parcels BEGIN
      DELETE FROM parcels_fts WHERE rowid = old.rowid;
      INSERT INTO parcels_fts (rowid, name, metadata) VALUES (new.rowid, new.name, (SELECT group_concat(value, ' ') FROM json_each(new.metadata)));
    END;
    CREATE TRIGGER parcels_box_au AFTER UPDATE OF minx, miny, maxx, maxy, account_id, deleted ON parcels BEGIN
      UPDATE parcels_rtree SET minx = new.minx, maxx = new.maxx, miny = new.miny, maxy = new.maxy, account_id = new.account_id, deleted = new.deleted
        WHERE id = new.rowid;
    END;
    CREATE TRIGGER parcels_ad AFTER DELETE ON parcels BEGIN
      DELETE FROM parcels_rtree WHERE id = old.rowid;
      DELETE FROM parcels_fts WHERE rowid = old.rowid;
    END;
  `);
}
