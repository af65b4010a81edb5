import type { Database } from 'better-sqlite3';

// The open updates of a row, by item: every answer booked by a push asks, for each of its parcels, whether an
// update is still pending (db/op-transitions.ts parcelsEditedSinceSent). Through outbox_entity that read each parcel's
// create op (and every op it ever had) to find, nearly always, none. Open updates are few at any time: this index
// holds only them, so the question costs a lookup in a nearly empty tree; the push's own transitions (creates going
// in flight and committed) never touch it.
export function up(db: Database): void {
  db.exec("CREATE INDEX outbox_open_updates ON outbox(entity, local_id) WHERE op = 'update' AND state != 'committed';");
}
