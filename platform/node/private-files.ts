// Files readable by their owner only: FURROW_HOME (the mirror, its -wal/-shm/-journal, the credentials, the import
// previews) holds one user's farms, parcels and secrets, so the folder is 0700 and every file in it 0600 — another
// local user can neither list nor read them, whatever umask the user has (a common 022 would make them world
// readable). Folders and files found wider (made by an older build, or by hand) are narrowed when they are the
// user's own; one owned by someone else is never changed: a folder is used with a warning, a file refused.
// Windows has no such mode bits (its folders' ACLs already keep a profile's data private): nothing is done there.

import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';

const POSIX = process.platform !== 'win32';

/** Paths warned about already: one warning per path and process, not one per open. */
const warned = new Set<string>();

/** Whether `uid` is this process's user (always true where there are no uids). */
const mine = (uid: number): boolean => process.getuid === undefined || uid === process.getuid();

/**
 * A folder only its owner can enter: created 0700 (with any missing parents), or narrowed to its owner's bits when it
 * exists wider and is the user's own. One owned by someone else (a shared mount, a folder made by root with sudo)
 * is left as it is, with a warning (process.emitWarning, code FURROW_NOT_PRIVATE) saying what to do: the files
 * written in it are still the user's own and 0600 (privateFile), so what they hold stays private, but others may
 * list, remove or replace them. A shared folder (sticky, or writable by everyone: /tmp) is never narrowed either.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!POSIX) return;
  const st = statSync(dir);
  if ((st.mode & 0o077) === 0) return;
  // A shared folder (the sticky bit, as /tmp and /var/tmp have, or writable by everyone) is never narrowed, even as
  // its owner (root): a mirror opened in /tmp would otherwise lock every other user and service out of /tmp (it did:
  // a PostgreSQL run as its own user could no longer reach its folders).
  const shared = (st.mode & 0o1000) !== 0 || (st.mode & 0o002) !== 0;
  if (mine(st.uid) && !shared) {
    chmodSync(dir, st.mode & 0o700);
    return;
  }
  if (warned.has(dir)) return;
  warned.add(dir);
  const why = shared ? 'is a folder shared by every user' : `belongs to another user (uid ${st.uid}) and others can open it`;
  process.emitWarning(
    `${dir} ${why} (mode ${(st.mode & 0o7777).toString(8)}): it was left as it is. ` +
      "Its owner can make it private (chmod 700), or point FURROW_HOME at a folder of your own.",
    { code: 'FURROW_NOT_PRIVATE' },
  );
}

/**
 * A file only its owner can read or write: created empty and 0600 when missing, narrowed to its owner's bits when it
 * exists wider. A wider file owned by someone else is refused (an Error naming it): the user's data would be written
 * into a file another user chose and can read. The folder must exist (ensurePrivateDir).
 */
export function privateFile(file: string): void {
  if (POSIX) {
    try {
      // The mode is given at creation, so the file is never wider, not even for an instant.
      closeSync(openSync(file, 'wx', 0o600));
      return;
    } catch (err) {
      // There already (or another process created it a moment ago): narrowed below like any file found.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  narrowFile(file);
}

/**
 * A file that exists narrowed as privateFile narrows it; nothing when it does not exist (a -wal or -shm file SQLite
 * has not made yet).
 */
export function narrowFile(file: string): void {
  if (!POSIX) return;
  let st;
  try {
    st = statSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if ((st.mode & 0o077) === 0) return;
  if (!mine(st.uid)) {
    throw new Error(
      `${file} belongs to another user (uid ${st.uid}) and others can read it (mode ${(st.mode & 0o777).toString(8)}): refusing to keep data in it. ` +
        'Its owner can make it private (chmod 600), or remove it.',
    );
  }
  chmodSync(file, st.mode & 0o700);
}

/** The umask privateUmask replaced: the user's own, which a file the user names (an export) follows. */
let userUmask: number | undefined;

/**
 * Makes every file and folder this process creates from now on owner-only (umask 077), whoever creates it: a
 * process's umask applies to every open(2) and mkdir(2) in it, so it covers what we do not open ourselves — files
 * SQLite makes beside the database (its temporary files; -wal, -shm and -journal take the database file's mode,
 * which privateFile sets), a library's caches and temporary files, and any later code that forgets a mode — where
 * ensurePrivateDir and privateFile cover only the paths we name. Children (a token command) inherit it.
 *
 * Called first thing by the processes that own FURROW_HOME: the CLI (scripts/cli.mjs, cli/main.ts run directly) and
 * the mirror host (backend/host.ts). A file the user exports to a path of their choice still follows the user's
 * own umask, like any other program's output (userFileMode). Only the main thread may change the umask (Node refuses
 * it in worker threads; the threads share the process's umask anyway).
 */
export function privateUmask(): void {
  const before = process.umask(0o077);
  userUmask ??= before;
}

/**
 * The mode for a new file the user asked for at a path of their choosing (an export): 0666 less the user's umask,
 * the one privateUmask replaced, to be set on the file after creating it (the process's umask narrows the mode
 * open(2) is given). Undefined when privateUmask has not run: the process's umask is the user's and applies as it is.
 */
export function userFileMode(): number | undefined {
  return userUmask === undefined ? undefined : 0o666 & ~userUmask;
}
