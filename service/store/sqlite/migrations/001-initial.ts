import type { Database } from 'better-sqlite3';

// Farms point at their account with ON DELETE SET NULL: a farm whose account goes away without the farm
// being deleted first becomes an orphan (invisible through the API, still billed), as the spec describes.
export function up(db: Database): void {
  db.exec(`
    CREATE TABLE settings (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL
    ) STRICT;

    CREATE TABLE organizations (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      created TEXT NOT NULL
    ) STRICT;

    CREATE TABLE api_keys (
      id INTEGER PRIMARY KEY,
      organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      prefix TEXT NOT NULL,
      hash TEXT NOT NULL UNIQUE,
      label TEXT NOT NULL DEFAULT '',
      created TEXT NOT NULL,
      revoked TEXT
    ) STRICT;
    CREATE INDEX api_keys_org ON api_keys(organization_id);

    CREATE TABLE accounts (
      id TEXT PRIMARY KEY,
      organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      account_email TEXT NOT NULL,
      email_norm TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('active', 'deactivated')),
      auth_id TEXT NOT NULL UNIQUE,
      max_parcel_hectares REAL,
      created TEXT NOT NULL,
      modified TEXT NOT NULL,
      deactivated TEXT,
      UNIQUE (organization_id, email_norm)
    ) STRICT;

    CREATE TABLE farms (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      account_id TEXT REFERENCES accounts(id) ON DELETE SET NULL,
      name TEXT NOT NULL,
      created TEXT NOT NULL,
      modified TEXT NOT NULL
    ) STRICT;
    CREATE INDEX farms_account ON farms(account_id);
    CREATE INDEX farms_org ON farms(organization_id);

    CREATE TABLE parcels (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      key TEXT NOT NULL UNIQUE,
      farm_id INTEGER NOT NULL REFERENCES farms(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      source_type TEXT NOT NULL CHECK (source_type IN ('Polygon', 'Point')),
      point TEXT,
      geometry TEXT NOT NULL,
      hectares REAL NOT NULL,
      metadata TEXT NOT NULL DEFAULT '{}',
      minx REAL NOT NULL, miny REAL NOT NULL, maxx REAL NOT NULL, maxy REAL NOT NULL,
      created TEXT NOT NULL,
      modified TEXT NOT NULL
    ) STRICT;
    CREATE INDEX parcels_farm ON parcels(farm_id, id);

    CREATE VIRTUAL TABLE parcels_rtree USING rtree(id, minx, maxx, miny, maxy);
    CREATE TRIGGER parcels_rtree_delete AFTER DELETE ON parcels BEGIN
      DELETE FROM parcels_rtree WHERE id = old.id;
    END;

    CREATE TABLE crop_families (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      key TEXT NOT NULL UNIQUE,
      organization_id TEXT REFERENCES organizations(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      name_norm TEXT NOT NULL,
      observation TEXT NOT NULL DEFAULT '',
      created TEXT NOT NULL
    ) STRICT;
    CREATE INDEX crop_families_name ON crop_families(name_norm);

    CREATE TABLE crops (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      key TEXT NOT NULL UNIQUE,
      organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      account_id TEXT REFERENCES accounts(id) ON DELETE CASCADE,
      parcel_id INTEGER REFERENCES parcels(id) ON DELETE CASCADE,
      family_id INTEGER REFERENCES crop_families(id) ON DELETE SET NULL,
      name TEXT, campaign TEXT, area REAL, variety TEXT, harvested_qty REAL,
      sowing TEXT, closure TEXT,
      is_active INTEGER NOT NULL DEFAULT 1,
      created TEXT NOT NULL,
      modified TEXT NOT NULL
    ) STRICT;
    CREATE INDEX crops_parcel ON crops(parcel_id);
    CREATE INDEX crops_account ON crops(account_id);

    CREATE TABLE plants (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      key TEXT NOT NULL UNIQUE,
      organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
      account_id TEXT REFERENCES accounts(id) ON DELETE CASCADE,
      parcel_id INTEGER REFERENCES parcels(id) ON DELETE CASCADE,
      crop_id INTEGER REFERENCES crops(id) ON DELETE SET NULL,
      point TEXT NOT NULL,
      shape TEXT,
      info TEXT,
      area_m2 REAL NOT NULL DEFAULT 0,
      created TEXT NOT NULL,
      modified TEXT NOT NULL
    ) STRICT;
    CREATE INDEX plants_parcel ON plants(parcel_id);
    CREATE INDEX plants_account ON plants(account_id);
  `);
}
