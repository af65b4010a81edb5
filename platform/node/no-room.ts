// The one test of a write refused for want of room, for the service (its 507), the app's host (a page's disk_full) and
// the mirror's opening (platform/node/sqlite.ts diskFull): the codes Node and better-sqlite3 give it.

/** An error that says there was no room to write: SQLite's SQLITE_FULL, the file system's ENOSPC. */
export const noRoomError = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC';
};
