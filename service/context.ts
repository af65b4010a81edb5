// What every route plugin is handed: the store, the configuration and the parcel validator. Its own module, so
// that app.ts (which registers the routes) and the routes (which use it) do not import each other.
import type { Store } from './store/store.ts';
import type { ServiceConfig } from './config.ts';
import type { ParcelValidator } from './validation-pool.ts';
import type { ReadReplica } from './read-routing.ts';

export interface AppContext {
  store: Store;
  config: ServiceConfig;
  validator: ParcelValidator;
  /** The standby the listings and the embedded map may read from (read-routing.ts); null: the primary only. */
  reads: ReadReplica | null;
}
