// The PostgreSQL + PostGIS store: what service/store/open.ts opens when DATABASE_URL is set. One bounded pool per
// process, the schema migrated at open under the advisory lock (several processes may start at once), and the
// Store's groups over that pool. docs/deploy.md says how to run it.
import type pg from 'pg';
import type { Store } from '../store.ts';
import { openPgPool, type PgPoolOptions } from './pool.ts';
import { migratePg } from './migrate.ts';
import { pgApiKeys, pgOrganizations } from './organizations.ts';
import { pgAccounts } from './accounts.ts';
import { pgSigningKeys } from './tokens.ts';
import { pgAdmins } from './admins.ts';
import { pgFarms } from './farms.ts';
import { pgParcels } from './parcels.ts';
import { pgCrops } from './crops.ts';
import { pgCropFamilies } from './crop-families.ts';
import { pgPlants } from './plants.ts';
import { pgBilling } from './billing.ts';
import { pgServedUrls } from './served-urls.ts';
import { pgChanges } from './changes.ts';

export { openPgPool, type PgPoolOptions } from './pool.ts';
export { migratePg, FutureSchemaError } from './migrate.ts';

/** The PostgreSQL store, with its pool for what is about PostgreSQL itself (its tests, the benchmarks). */
export interface PgStore extends Store {
  readonly pool: pg.Pool;
}

/** The Store's groups over a pool whose database is migrated; `close` ends the pool (by default). */
export function pgStore(pool: pg.Pool, close: () => Promise<void> = () => pool.end()): PgStore {
  let closed: Promise<void> | null = null;
  return {
    pool,
    organizations: pgOrganizations(pool),
    apiKeys: pgApiKeys(pool),
    accounts: pgAccounts(pool),
    signingKeys: pgSigningKeys(pool),
    admins: pgAdmins(pool),
    farms: pgFarms(pool),
    parcels: pgParcels(pool),
    crops: pgCrops(pool),
    cropFamilies: pgCropFamilies(pool),
    plants: pgPlants(pool),
    billing: pgBilling(pool),
    servedUrls: pgServedUrls(pool),
    changes: pgChanges(pool),
    // Once: the app's onClose and a test's cleanup may both close it.
    close: () => (closed ??= close()),
  };
}

/** Opens a pool on `url`, brings the schema up to date (a database from a newer build is refused), and the store. */
export async function openPgStore(url: string, opts: PgPoolOptions = {}): Promise<PgStore> {
  const pool = openPgPool(url, opts);
  try {
    await migratePg(pool);
  } catch (err) {
    await pool.end();
    throw err;
  }
  return pgStore(pool);
}
