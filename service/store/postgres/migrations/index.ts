import type pg from 'pg';
import { up as m001 } from './001-initial.ts';

/** One schema version: migration n brings the schema from version n to n + 1, inside the runner's transaction. */
export type PgMigration = (client: pg.ClientBase) => Promise<void>;

/** One entry per schema version: migrations[0] takes schema_version 0 to 1, and so on. Append only. */
export const migrations: readonly PgMigration[] = [m001];
