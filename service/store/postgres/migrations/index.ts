import type pg from 'pg';
import { up as m001 } from './001-initial.ts';
import { up as m002 } from './002-crops.ts';
import { up as m003 } from './003-changes.ts';
import { up as m004 } from './004-change-sequence.ts';

/** One schema version: migration n brings the schema from version n to n + 1, inside the runner's transaction. */
export type PgMigration = (client: pg.ClientBase) => Promise<void>;

/** One entry per schema version: migrations[0] takes schema_version 0 to 1, and so on. Append only. */
export const migrations: readonly PgMigration[] = [m001, m002, m003, m004];
