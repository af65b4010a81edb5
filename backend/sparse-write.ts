// A file written from a stream with its runs of zeros left as holes: a copy of a sparse file (a PMTiles archive whose
// tiles sit gigabytes in, a GeoTIFF padded by its writer) takes no more of the disk than the original does, and a
// 4 GB file of mostly nothing is copied in the time it takes to read it. Chunks wholly of zeros are skipped (the
// file's position moved past them); the file is set to its full length at the end, so a trailing hole is kept too.
// What it reads back is byte for byte what came in.
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { Writable } from 'node:stream';

/** The largest chunk checked for zeros at once (a read stream's chunks are no larger than its highWaterMark). */
const ZEROS = Buffer.alloc(1024 * 1024);

const allZero = (b: Buffer): boolean => {
  for (let at = 0; at < b.length; at += ZEROS.length) {
    const part = b.subarray(at, Math.min(b.length, at + ZEROS.length));
    if (!part.equals(ZEROS.subarray(0, part.length))) return false;
  }
  return true;
};

/** A stream writing to a new file at `path` (mode 0600, failing when it exists), its chunks of zeros as holes. */
export function sparseWriteStream(path: string): Writable {
  let fd: number | null = null;
  let position = 0;
  return new Writable({
    construct(cb) {
      try {
        fd = openSync(path, 'wx', 0o600);
        cb();
      } catch (err) {
        cb(err as Error);
      }
    },
    write(chunk: Buffer, _enc, cb) {
      try {
        if (!allZero(chunk)) {
          for (let n = 0; n < chunk.length;) n += writeSync(fd!, chunk, n, chunk.length - n, position + n);
        }
        position += chunk.length;
        cb();
      } catch (err) {
        cb(err as Error);
      }
    },
    final(cb) {
      try {
        ftruncateSync(fd!, position);
        cb();
      } catch (err) {
        cb(err as Error);
      }
    },
    destroy(err, cb) {
      if (fd !== null) {
        try { closeSync(fd); } catch { /* closed already */ }
        fd = null;
      }
      cb(err);
    },
  });
}
