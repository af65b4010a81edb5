import type { Database } from 'better-sqlite3';

// The local mirror. Every synced entity has a client-side `local_id` (uuid, also the client reference sent
// to the service) and a nullable `server_id`. `base` holds the last state pulled from (or acknowledged by)
// the service, as JSON: the common ancestor of the three-way merge. `deleted` marks a local delete that
// has not reached the service yet.
export function up(db: Database): void {
  db.exec(`
    CREATE TABLE settings (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL
    ) STRICT;

    -- One row per connected account (a consultant syncs many). Credentials are not stored here.
    CREATE TABLE accounts (
      id TEXT PRIMARY KEY,                 -- acc-<uuid> on the service
      service_url TEXT NOT NULL,
      mode TEXT NOT NULL CHECK (mode IN ('api_key', 'bearer')),
      label TEXT NOT NULL DEFAULT '',
      blocked TEXT,                        -- why the account's queue is blocked ('Account not found'), or NULL
      last_pull TEXT,
      created TEXT NOT NULL
    ) STRICT;

    CREATE TABLE farms (
      local_id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      server_id INTEGER,
      name TEXT NOT NULL,
      base TEXT,
      deleted INTEGER NOT NULL DEFAULT 0,
      created TEXT NOT NULL,
      modified TEXT NOT NULL,
      UNIQUE (account_id, server_id)
    ) STRICT;

    CREATE TABLE parcels (
      local_id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      farm_local_id TEXT NOT NULL REFERENCES farms(local_id) ON DELETE CASCADE,
      server_id INTEGER,
      key TEXT,
      name TEXT NOT NULL,
      source_type TEXT NOT NULL CHECK (source_type IN ('Polygon', 'Point')),
      point TEXT,
      geometry TEXT NOT NULL,
      hectares REAL NOT NULL,
      metadata TEXT NOT NULL DEFAULT '{}',
      minx REAL NOT NULL, miny REAL NOT NULL, maxx REAL NOT NULL, maxy REAL NOT NULL,
      base TEXT,
      deleted INTEGER NOT NULL DEFAULT 0,
      created TEXT NOT NULL,
      modified TEXT NOT NULL,
      UNIQUE (account_id, server_id)
    ) STRICT;
    CREATE INDEX parcels_farm ON parcels(farm_local_id);

    -- rowid-keyed spatial and text indexes, kept in step by triggers. Search covers names and metadata
    -- values (not the keys: 'region' should not match every parcel that has a region).
    CREATE VIRTUAL TABLE parcels_rtree USING rtree(id, minx, maxx, miny, maxy);
    CREATE VIRTUAL TABLE parcels_fts USING fts5(name, metadata, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2');
    CREATE TRIGGER parcels_ai AFTER INSERT ON parcels BEGIN
      INSERT INTO parcels_rtree (id, minx, maxx, miny, maxy) VALUES (new.rowid, new.minx, new.maxx, new.miny, new.maxy);
      INSERT INTO parcels_fts (rowid, name, metadata) VALUES (new.rowid, new.name, (SELECT group_concat(value, ' ') FROM json_each(new.metadata)));
    END;
    CREATE TRIGGER parcels_au AFTER UPDATE OF minx, miny, maxx, maxy, name, metadata ON parcels BEGIN
      UPDATE parcels_rtree SET minx = new.minx, maxx = new.maxx, miny = new.miny, maxy = new.maxy WHERE id = new.rowid;
      DELETE FROM parcels_fts WHERE rowid = old.rowid;
      INSERT INTO parcels_fts (rowid, name, metadata) VALUES (new.rowid, new.name, (SELECT group_concat(value, ' ') FROM json_each(new.metadata)));
    END;
    CREATE TRIGGER parcels_ad AFTER DELETE ON parcels BEGIN
      DELETE FROM parcels_rtree WHERE id = old.rowid;
      DELETE FROM parcels_fts WHERE rowid = old.rowid;
    END;

    CREATE TABLE crop_families (
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      server_id INTEGER NOT NULL,
      key TEXT NOT NULL,
      name TEXT NOT NULL,
      observation TEXT NOT NULL DEFAULT '',
      PRIMARY KEY (account_id, server_id)
    ) STRICT;

    CREATE TABLE crops (
      local_id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      parcel_local_id TEXT REFERENCES parcels(local_id) ON DELETE CASCADE,
      server_id INTEGER,
      key TEXT,
      family_id INTEGER,
      family_name TEXT,
      name TEXT, campaign TEXT, area REAL, variety TEXT, harvested_qty REAL,
      sowing TEXT, closure TEXT,
      is_active INTEGER NOT NULL DEFAULT 1,
      base TEXT,
      deleted INTEGER NOT NULL DEFAULT 0,
      created TEXT NOT NULL,
      modified TEXT NOT NULL,
      UNIQUE (account_id, server_id)
    ) STRICT;
    CREATE INDEX crops_parcel ON crops(parcel_local_id);

    -- Plants are detected on the service and only ever pulled.
    CREATE TABLE plants (
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      server_id INTEGER NOT NULL,
      key TEXT NOT NULL,
      parcel_server_id INTEGER,
      crop_server_id INTEGER,
      point TEXT NOT NULL,
      shape TEXT,
      info TEXT,
      area TEXT NOT NULL,
      PRIMARY KEY (account_id, server_id)
    ) STRICT;
    CREATE INDEX plants_parcel ON plants(account_id, parcel_server_id);

    -- The durable outbox: every local change, in order, with an explicit state machine.
    CREATE TABLE outbox (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      entity TEXT NOT NULL CHECK (entity IN ('farm', 'parcel', 'crop')),
      local_id TEXT NOT NULL,
      op TEXT NOT NULL CHECK (op IN ('create', 'update', 'delete')),
      state TEXT NOT NULL DEFAULT 'queued'
        CHECK (state IN ('queued', 'in_flight', 'uncertain', 'committed', 'rejected', 'conflict', 'blocked')),
      batch_id TEXT,
      attempts INTEGER NOT NULL DEFAULT 0,
      checks INTEGER NOT NULL DEFAULT 0,   -- empty reconciliation listings seen since the last send
      next_attempt_at TEXT,
      last_error TEXT,
      sent_at TEXT,
      uncertain_at TEXT,                   -- when the outcome became unknown (504, timeout, crash found)
      created TEXT NOT NULL,
      modified TEXT NOT NULL
    ) STRICT;
    CREATE INDEX outbox_pending ON outbox(account_id, state, id);
    CREATE INDEX outbox_entity ON outbox(entity, local_id);
    CREATE INDEX outbox_batch ON outbox(batch_id);

    -- Conflicts the user resolves (keep mine / keep theirs).
    CREATE TABLE conflicts (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      entity TEXT NOT NULL,
      local_id TEXT NOT NULL,
      kind TEXT NOT NULL,
      base TEXT, mine TEXT, theirs TEXT,
      fields TEXT NOT NULL DEFAULT '[]',
      created TEXT NOT NULL,
      resolved TEXT
    ) STRICT;

    -- Undo/redo of local edits, persisted so it survives a restart.
    CREATE TABLE history (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      label TEXT NOT NULL,
      changes TEXT NOT NULL,
      undone INTEGER NOT NULL DEFAULT 0,
      created TEXT NOT NULL
    ) STRICT;
  `);
}
