import type { Database } from 'better-sqlite3';
import { recordSql } from '../changes-sql.ts';

// The change feed (GET /api/changes/, docs/api.md): one row per object an account has seen change, with the
// account's sequence number of its latest change and whether that change was its deletion (a tombstone). A write
// moves the row forward instead of adding one, so the table holds one row per object plus the tombstones younger
// than the horizon, and the feed returns each object once, as it is now.
//
// Triggers rather than the store functions, for the reason migration 004 gives: farms, parcels, crops and plants
// also change through foreign-key cascades (a farm's delete, a crop's delete clearing its plants' crop) and admin
// operations (unlink, purge) that no store function sees row by row, and a change one new path forgets to record
// is a change every client misses forever. The one exception is the parcels' insert, made only by insertParcels,
// which records a batch in two statements (the reason migration 006 dropped the per-row insert trigger).
//
// Parcels carry no account: theirs is their farm's. In a farm's delete the farm is gone before its parcels are
// cascaded (SQLite runs the cascade after the row's delete), so the farm's BEFORE DELETE trigger records its
// parcels' tombstones and the parcels' own trigger finds no farm and records nothing. Crops and plants carry their
// account, so theirs record themselves through any cascade.
const PARCEL_ACCOUNT = (row: 'new' | 'old') => `(SELECT account_id FROM farms WHERE id = ${row}.farm_id)`;

export function up(db: Database): void {
  db.exec(`
    CREATE TABLE change_seq (
      account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
      seq INTEGER NOT NULL,
      pruned_seq INTEGER NOT NULL DEFAULT 0
    ) STRICT;

    CREATE TABLE changes (
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      entity TEXT NOT NULL CHECK (entity IN ('farm', 'parcel', 'crop', 'plant')),
      id INTEGER NOT NULL,
      seq INTEGER NOT NULL,
      deleted INTEGER NOT NULL,
      at INTEGER NOT NULL,
      PRIMARY KEY (account_id, entity, id)
    ) STRICT, WITHOUT ROWID;
    CREATE UNIQUE INDEX changes_feed ON changes (account_id, seq);
    CREATE INDEX changes_tombstones ON changes (account_id, at) WHERE deleted = 1;

    CREATE TRIGGER changes_farm_insert AFTER INSERT ON farms WHEN new.account_id IS NOT NULL BEGIN
      ${recordSql('new.account_id', 'farm', 'SELECT new.id AS id', false)}
    END;
    CREATE TRIGGER changes_farm_update AFTER UPDATE ON farms WHEN new.account_id IS NOT NULL BEGIN
      ${recordSql('new.account_id', 'farm', 'SELECT new.id AS id', false)}
    END;
    CREATE TRIGGER changes_farm_unlink AFTER UPDATE OF account_id ON farms
      WHEN old.account_id IS NOT NULL AND old.account_id IS NOT new.account_id BEGIN
      ${recordSql('old.account_id', 'farm', 'SELECT old.id AS id', true)}
      ${recordSql('old.account_id', 'parcel', 'SELECT id FROM parcels WHERE farm_id = old.id', true)}
      ${recordSql('old.account_id', 'crop', 'SELECT id FROM crops WHERE parcel_id IN (SELECT id FROM parcels WHERE farm_id = old.id)', true)}
      ${recordSql('old.account_id', 'plant', 'SELECT id FROM plants WHERE parcel_id IN (SELECT id FROM parcels WHERE farm_id = old.id)', true)}
    END;
    CREATE TRIGGER changes_farm_delete BEFORE DELETE ON farms WHEN old.account_id IS NOT NULL BEGIN
      ${recordSql('old.account_id', 'farm', 'SELECT old.id AS id', true)}
      ${recordSql('old.account_id', 'parcel', 'SELECT id FROM parcels WHERE farm_id = old.id', true)}
    END;

    CREATE TRIGGER changes_parcel_update AFTER UPDATE ON parcels WHEN ${PARCEL_ACCOUNT('new')} IS NOT NULL BEGIN
      ${recordSql(PARCEL_ACCOUNT('new'), 'parcel', 'SELECT new.id AS id', false)}
    END;
    CREATE TRIGGER changes_parcel_move AFTER UPDATE OF farm_id ON parcels
      WHEN ${PARCEL_ACCOUNT('old')} IS NOT NULL AND ${PARCEL_ACCOUNT('old')} IS NOT ${PARCEL_ACCOUNT('new')} BEGIN
      ${recordSql(PARCEL_ACCOUNT('old'), 'parcel', 'SELECT old.id AS id', true)}
    END;
    CREATE TRIGGER changes_parcel_delete AFTER DELETE ON parcels WHEN ${PARCEL_ACCOUNT('old')} IS NOT NULL BEGIN
      ${recordSql(PARCEL_ACCOUNT('old'), 'parcel', 'SELECT old.id AS id', true)}
    END;
  `);
  for (const [table, entity] of [['crops', 'crop'], ['plants', 'plant']] as const) {
    db.exec(`
      CREATE TRIGGER changes_${entity}_insert AFTER INSERT ON ${table} WHEN new.account_id IS NOT NULL BEGIN
        ${recordSql('new.account_id', entity, 'SELECT new.id AS id', false)}
      END;
      CREATE TRIGGER changes_${entity}_update AFTER UPDATE ON ${table} WHEN new.account_id IS NOT NULL BEGIN
        ${recordSql('new.account_id', entity, 'SELECT new.id AS id', false)}
      END;
      CREATE TRIGGER changes_${entity}_move AFTER UPDATE OF account_id ON ${table}
        WHEN old.account_id IS NOT NULL AND old.account_id IS NOT new.account_id BEGIN
        ${recordSql('old.account_id', entity, 'SELECT old.id AS id', true)}
      END;
      CREATE TRIGGER changes_${entity}_delete AFTER DELETE ON ${table} WHEN old.account_id IS NOT NULL BEGIN
        ${recordSql('old.account_id', entity, 'SELECT old.id AS id', true)}
      END;
    `);
  }
}
