// What every route plugin is handed: the database, the configuration and the parcel validator. Its own module, so
// that app.ts (which registers the routes) and the routes (which use it) do not import each other.
import type { Db } from './store/sqlite/db.ts';
import type { ServiceConfig } from './config.ts';
import type { ParcelValidator } from './validation-pool.ts';

export interface AppContext {
  db: Db;
  config: ServiceConfig;
  validator: ParcelValidator;
}
