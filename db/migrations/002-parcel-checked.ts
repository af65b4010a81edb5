import type { Database } from 'better-sqlite3';

// `checked`: the version of core's parcel rules (PARCEL_RULES_VERSION) under which the row's user fields were
// validated when they were written, or NULL. The sync engine trusts a matching stamp instead of validating the
// parcel a second time before each send; any write of user fields that does not set it clears it (db/rows.ts).
// Existing rows start unchecked: the engine validates them the old way.
export function up(db: Database): void {
  db.exec('ALTER TABLE parcels ADD COLUMN checked INTEGER');
}
