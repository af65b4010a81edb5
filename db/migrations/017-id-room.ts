import type { Database } from 'better-sqlite3';

// Room in each parcel row for the ids the service will give it. A parcel created here is written without a server id
// and key; the push's booking wrote both into the row later (a 36-character key and an integer), so every row grew
// by ~40 bytes after its page had been filled: nearly every page of a freshly created farm split when its parcels
// were booked (20,000 squares: the table 664 -> 774 pages, a fifth of each page left unused), and each split wrote
// its sibling pages to the WAL as well. Now such a row carries `id_room`, a blob of as many bytes (db/rows.ts
// ID_ROOM_BYTES), which the booking sets to NULL as it writes the ids: the row keeps its size and is rewritten in
// place. Rows already in the mirror keep no room (NULL): they are booked as before.
export function up(db: Database): void {
  db.exec('ALTER TABLE parcels ADD COLUMN id_room BLOB');
}
