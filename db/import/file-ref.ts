// A file an import reads twice: once through a moving window to split it (geojson-split.ts), then job by job,
// by whichever thread prepares the job (jobs.ts). Neither pass holds the whole file, so its memory does not grow
// with the file. Between the two passes the file must not change: every open checks it is still the file that
// was split (same inode, size and modification time), and the import checks again before it commits.

import { closeSync, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { basename } from 'node:path';
import { ImportError } from './errors.ts';

/** Plain data (it goes to worker threads). */
export interface FileRef {
  path: string;
  size: number;
  mtimeMs: number;
  ino: number;
  dev: number;
}

export function fileRef(path: string, st: Stats): FileRef {
  return { path, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, dev: st.dev };
}

/** Throws file_changed when `fd` is no longer the file `ref` describes. */
export function checkUnchanged(fd: number, ref: FileRef): void {
  const st = fstatSync(fd);
  if (st.size !== ref.size || st.mtimeMs !== ref.mtimeMs || st.ino !== ref.ino || st.dev !== ref.dev) {
    throw new ImportError('file_changed', `${basename(ref.path)} changed while it was being imported, so nothing was imported; import it again once it is saved`);
  }
}

/** Opens the file `ref` describes, checking it is still that file. */
export function openRef(ref: FileRef): number {
  let fd: number;
  try {
    fd = openSync(ref.path, 'r');
  } catch (e) {
    throw new ImportError('file_changed', `${basename(ref.path)} cannot be read any more (${(e as Error).message}), so nothing was imported`);
  }
  try {
    checkUnchanged(fd, ref);
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  return fd;
}

/** Bytes [start, end) of the file, into `out` from offset `at`. */
export function readInto(fd: number, ref: FileRef, out: Uint8Array, at: number, start: number, end: number): void {
  for (let done = 0; done < end - start;) {
    const got = readSync(fd, out, at + done, end - start - done, start + done);
    if (got === 0) checkUnchanged(fd, ref); // shorter than it was: changed (a file that is not is a bug)
    if (got === 0) throw new ImportError('file_changed', `${basename(ref.path)} ended before byte ${end}: it changed while being imported`);
    done += got;
  }
}
