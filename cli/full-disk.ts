// What the CLI says when FURROW_HOME's disk is full: the folder, what is free there, and how much to free. Reading
// the mirror still works on a full disk (db/open.ts opens it holding it alone); what writes — an import, an edit, a
// sync, which records every batch before sending it — fails with nothing half done, and this says why instead of
// SQLite's "disk I/O error".
import { freeBytes } from '../platform/node/sqlite.ts';

/**
 * What to free: the mirror's WAL may grow to 64 MiB before it is started over (platform/node/checkpointer.ts), and a
 * sync or an import writes about as much again as it brings.
 */
export const ROOM_NEEDED = '64 MB';

const mb = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : bytes >= 1024 ? `${Math.round(bytes / 1024)} kB` : `${bytes} bytes`);

/** The words for a full disk under FURROW_HOME, or null when its disk is not (nearly) full. */
export function fullDiskNote(home: string): string | null {
  const free = freeBytes(home);
  if (free === null || free >= 1024 * 1024) return null;
  return `FURROW_HOME (${home}) is on a full disk (${mb(free)} free): Furrow needs room there to record what it sends, receives and changes. Free at least ${ROOM_NEEDED} on that disk, then run the command again; nothing queued was lost.`;
}
