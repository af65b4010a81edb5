import type pg from 'pg';

// The SQLite schema as of its migration 006 (service/store/migrations/), in PostgreSQL + PostGIS, table for table:
// the same columns, checks, uniqueness and delete rules, with these differences, each for a reason:
//
// - Every tenant table has organization_id, and the keys of farms, parcels, crops and plants lead with it: Citus
//   can then distribute them by organization (docs/deploy.md) and every query of the store names the caller's
//   organization anyway. Their ids still come from one sequence per table, so they stay unique across
//   organizations as the API's ids must; their keys are random UUIDs, unique per organization by constraint.
// - Foreign keys between those tables carry organization_id too, so a row can never point into another
//   organization; SET NULL names the one column it clears (PostgreSQL 15), never organization_id.
// - Instants are timestamptz (the pool reads them back as the same ISO strings, pool.ts); crop sowing and closure
//   stay the API's date strings as they were given. Flags are boolean, reals double precision.
// - Geometry, metadata and info stay JSON text, streamed to clients as they are (service/store/parcel-json.ts);
//   PostGIS columns are generated from them, so they can never disagree: parcels.geom with a GiST index replaces
//   the R*Tree, plants.geom is indexed the same way.
// - The crop families every organization shares are seeded here (SQLite's migration 002).
// - farms.parcel_count and micro_hectares are kept as in SQLite's migrations 004 and 006: triggers on a parcel's
//   delete and on a change of its area or farm; the store adds a bulk insert's totals itself, in its transaction.
//
// PostGIS must be in the database. Where the service's role may create it (a superuser: a database of one's own, a
// container's), it does, so nobody has to; PostGIS is not a trusted extension, so a database owner alone may not,
// and on most managed servers an administrator creates it first: then this says so and creates nothing.

/** SQLite's CAST(round(x * 1000000) AS INTEGER), bit for bit: round half away from zero of the same double product. */
const MICRO_HECTARES = `CREATE FUNCTION micro_hectares(hectares double precision) RETURNS bigint
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN CASE WHEN hectares * 1000000::double precision >= 0
    THEN trunc(hectares * 1000000::double precision + 0.5::double precision)
    ELSE -trunc(-(hectares * 1000000::double precision) + 0.5::double precision) END::bigint;`;

const TABLES = `
  CREATE TABLE settings (
    key text PRIMARY KEY,
    value text NOT NULL
  );

  CREATE TABLE organizations (
    id text PRIMARY KEY,
    name text NOT NULL,
    created timestamptz NOT NULL
  );

  CREATE TABLE api_keys (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    prefix text NOT NULL,
    hash text NOT NULL UNIQUE,
    label text NOT NULL DEFAULT '',
    created timestamptz NOT NULL,
    revoked timestamptz
  );
  CREATE INDEX api_keys_org ON api_keys (organization_id);

  CREATE TABLE accounts (
    id text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    account_email text NOT NULL,
    email_norm text NOT NULL,
    state text NOT NULL CHECK (state IN ('active', 'deactivated')),
    auth_id text NOT NULL UNIQUE,
    max_parcel_hectares double precision,
    token_epoch integer NOT NULL DEFAULT 0,
    created timestamptz NOT NULL,
    modified timestamptz NOT NULL,
    deactivated timestamptz,
    UNIQUE (organization_id, email_norm)
  );

  CREATE TABLE signing_keys (
    kid text PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    secret bytea NOT NULL,
    created timestamptz NOT NULL,
    retired timestamptz,
    -- SQLite's rowid: the order of creation, which breaks ties between keys created in the same millisecond.
    seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE
  );
  CREATE INDEX signing_keys_org ON signing_keys (organization_id, retired);

  CREATE TABLE admins (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    email text NOT NULL,
    email_norm text NOT NULL,
    password_hash text NOT NULL,
    created timestamptz NOT NULL,
    UNIQUE (organization_id, email_norm),
    UNIQUE (organization_id, id)
  );
  CREATE INDEX admins_email ON admins (email_norm);

  CREATE TABLE admin_sessions (
    id_hash text PRIMARY KEY,
    organization_id text NOT NULL,
    admin_id bigint NOT NULL,
    csrf_token text NOT NULL,
    flash text,
    created timestamptz NOT NULL,
    expires timestamptz NOT NULL,
    last_seen timestamptz NOT NULL,
    FOREIGN KEY (organization_id, admin_id) REFERENCES admins (organization_id, id) ON DELETE CASCADE
  );
  CREATE INDEX admin_sessions_admin ON admin_sessions (organization_id, admin_id);
  CREATE INDEX admin_sessions_expires ON admin_sessions (expires);

  -- Failed sign-ins, before anyone knows which organization the email belongs to: not a tenant table.
  CREATE TABLE admin_login_attempts (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email_norm text NOT NULL,
    ip text NOT NULL,
    at timestamptz NOT NULL
  );
  CREATE INDEX admin_login_attempts_email_ip ON admin_login_attempts (email_norm, ip, at);
  CREATE INDEX admin_login_attempts_ip ON admin_login_attempts (ip, at);

  -- A farm whose account goes away without the farm being deleted first becomes an orphan (invisible through the
  -- API, still billed), as the spec describes.
  CREATE TABLE farms (
    organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    id bigint GENERATED ALWAYS AS IDENTITY,
    account_id text REFERENCES accounts(id) ON DELETE SET NULL,
    name text NOT NULL,
    parcel_count integer NOT NULL DEFAULT 0,
    micro_hectares bigint NOT NULL DEFAULT 0,
    created timestamptz NOT NULL,
    modified timestamptz NOT NULL,
    PRIMARY KEY (organization_id, id)
  );
  CREATE INDEX farms_account ON farms (account_id);

  CREATE TABLE parcels (
    organization_id text NOT NULL,
    id bigint GENERATED ALWAYS AS IDENTITY,
    key text NOT NULL,
    farm_id bigint NOT NULL,
    name text NOT NULL,
    source_type text NOT NULL CHECK (source_type IN ('Polygon', 'Point')),
    point text,
    geometry text NOT NULL,
    -- Always a polygon: a Point parcel is stored as the square of its hectares. z, when given, is dropped.
    geom geometry(Polygon, 4326) NOT NULL GENERATED ALWAYS AS (ST_SetSRID(ST_Force2D(ST_GeomFromGeoJSON(geometry)), 4326)) STORED,
    hectares double precision NOT NULL,
    metadata text NOT NULL DEFAULT '{}',
    minx double precision NOT NULL, miny double precision NOT NULL, maxx double precision NOT NULL, maxy double precision NOT NULL,
    created timestamptz NOT NULL,
    modified timestamptz NOT NULL,
    PRIMARY KEY (organization_id, id),
    UNIQUE (organization_id, key),
    FOREIGN KEY (organization_id, farm_id) REFERENCES farms (organization_id, id) ON DELETE CASCADE
  );
  CREATE INDEX parcels_farm ON parcels (organization_id, farm_id, id);
  CREATE INDEX parcels_geom ON parcels USING gist (geom);

  -- Shared families (organization_id NULL) and each organization's own.
  CREATE TABLE crop_families (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key text NOT NULL UNIQUE,
    organization_id text REFERENCES organizations(id) ON DELETE CASCADE,
    name text NOT NULL,
    name_norm text NOT NULL,
    observation text NOT NULL DEFAULT '',
    created timestamptz NOT NULL
  );
  CREATE INDEX crop_families_name ON crop_families (name_norm);

  CREATE TABLE crops (
    organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    id bigint GENERATED ALWAYS AS IDENTITY,
    key text NOT NULL,
    account_id text REFERENCES accounts(id) ON DELETE CASCADE,
    parcel_id bigint,
    family_id bigint REFERENCES crop_families(id) ON DELETE SET NULL,
    name text, campaign text, area double precision, variety text, harvested_qty double precision,
    sowing text, closure text,
    is_active boolean NOT NULL DEFAULT true,
    created timestamptz NOT NULL,
    modified timestamptz NOT NULL,
    PRIMARY KEY (organization_id, id),
    UNIQUE (organization_id, key),
    FOREIGN KEY (organization_id, parcel_id) REFERENCES parcels (organization_id, id) ON DELETE CASCADE
  );
  CREATE INDEX crops_parcel ON crops (organization_id, parcel_id);
  CREATE INDEX crops_account ON crops (account_id);
  -- Not in SQLite: without it every family delete would read all crops to clear their family_id.
  CREATE INDEX crops_family ON crops (family_id);

  CREATE TABLE plants (
    organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    id bigint GENERATED ALWAYS AS IDENTITY,
    key text NOT NULL,
    account_id text REFERENCES accounts(id) ON DELETE CASCADE,
    parcel_id bigint,
    crop_id bigint,
    point text NOT NULL,
    geom geometry(Point, 4326) NOT NULL GENERATED ALWAYS AS
      (ST_SetSRID(ST_MakePoint((point::json->>0)::double precision, (point::json->>1)::double precision), 4326)) STORED,
    shape text,
    info text,
    area_m2 double precision NOT NULL DEFAULT 0,
    created timestamptz NOT NULL,
    modified timestamptz NOT NULL,
    PRIMARY KEY (organization_id, id),
    UNIQUE (organization_id, key),
    FOREIGN KEY (organization_id, parcel_id) REFERENCES parcels (organization_id, id) ON DELETE CASCADE,
    FOREIGN KEY (organization_id, crop_id) REFERENCES crops (organization_id, id) ON DELETE SET NULL (crop_id)
  );
  CREATE INDEX plants_parcel ON plants (organization_id, parcel_id);
  CREATE INDEX plants_account ON plants (account_id);
  -- Not in SQLite: the same reason as crops_family, for a crop's delete.
  CREATE INDEX plants_crop ON plants (organization_id, crop_id);
  CREATE INDEX plants_geom ON plants USING gist (geom);
`;

// SQLite's migrations 004 and 006: no insert trigger (the store adds a batch's totals in one UPDATE); a delete and a
// change of area or farm move the totals in the same statement, cascades included. Each UPDATE names the farm's
// organization, so it stays on the parcel's own shard under Citus.
const FARM_TOTALS = `
  CREATE FUNCTION farm_totals_delete() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE farms SET parcel_count = parcel_count - 1, micro_hectares = micro_hectares - micro_hectares(OLD.hectares)
      WHERE organization_id = OLD.organization_id AND id = OLD.farm_id;
    RETURN NULL;
  END $$;
  CREATE TRIGGER farm_totals_delete AFTER DELETE ON parcels FOR EACH ROW EXECUTE FUNCTION farm_totals_delete();

  CREATE FUNCTION farm_totals_update() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE farms SET parcel_count = parcel_count - 1, micro_hectares = micro_hectares - micro_hectares(OLD.hectares)
      WHERE organization_id = OLD.organization_id AND id = OLD.farm_id;
    UPDATE farms SET parcel_count = parcel_count + 1, micro_hectares = micro_hectares + micro_hectares(NEW.hectares)
      WHERE organization_id = NEW.organization_id AND id = NEW.farm_id;
    RETURN NULL;
  END $$;
  CREATE TRIGGER farm_totals_update AFTER UPDATE OF hectares, farm_id ON parcels FOR EACH ROW
    WHEN (OLD.hectares IS DISTINCT FROM NEW.hectares OR OLD.farm_id IS DISTINCT FROM NEW.farm_id)
    EXECUTE FUNCTION farm_totals_update();
`;

/** The families every organization can pick from: the same list as SQLite's migration 002. */
export const SHARED_CROP_FAMILIES: ReadonlyArray<readonly [string, string]> = [
  ['Poaceae', 'Cereals and grasses: wheat, barley, maize, rice, oats'],
  ['Fabaceae', 'Legumes: soybean, pea, bean, lentil, alfalfa; fix nitrogen'],
  ['Brassicaceae', 'Crucifers: rapeseed, cabbage, mustard'],
  ['Solanaceae', 'Nightshades: potato, tomato, pepper'],
  ['Asteraceae', 'Sunflower, lettuce, artichoke'],
  ['Amaranthaceae', 'Sugar beet, spinach, quinoa'],
  ['Cucurbitaceae', 'Melon, watermelon, squash, cucumber'],
  ['Rosaceae', 'Pome and stone fruit: apple, pear, peach, almond, cherry'],
  ['Vitaceae', 'Grapevine'],
  ['Oleaceae', 'Olive'],
  ['Rutaceae', 'Citrus'],
  ['Apiaceae', 'Carrot, celery, parsley'],
  ['Amaryllidaceae', 'Onion, garlic, leek'],
  ['Juglandaceae', 'Walnut, pecan'],
];

export async function up(client: pg.ClientBase): Promise<void> {
  const postgis = await client.query<{ db: string; role: string; installed: boolean }>(
    "SELECT current_database() AS db, current_user AS role, EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'postgis') AS installed");
  const { db, role, installed } = postgis.rows[0]!;
  if (!installed) {
    // In a savepoint: refused, the migration's transaction goes on to say why, with nothing created.
    await client.query('SAVEPOINT postgis');
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS postgis');
      await client.query('RELEASE SAVEPOINT postgis');
    } catch (err) {
      await client.query('ROLLBACK TO SAVEPOINT postgis');
      throw new Error(`PostGIS is not installed in database ${db}, and role ${role} may not create it (${(err as Error).message}): `
        + 'run CREATE EXTENSION postgis; in it as a role allowed to (a superuser, or the administrator role of a managed PostgreSQL), '
        + 'then start the service again.');
    }
  }
  await client.query(MICRO_HECTARES);
  await client.query(TABLES);
  await client.query(FARM_TOTALS);
  await client.query(
    `INSERT INTO crop_families (key, organization_id, name, name_norm, observation, created)
      SELECT gen_random_uuid()::text, NULL, f.name, lower(f.name), f.observation, now()
      FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS f(name, observation, n) ORDER BY f.n`,
    [SHARED_CROP_FAMILIES.map((f) => f[0]), SHARED_CROP_FAMILIES.map((f) => f[1])],
  );
}
