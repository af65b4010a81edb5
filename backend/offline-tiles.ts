// The tiles of the areas kept offline, for the page: each page session gets a bytes path template per file
// (backend/bytes.ts readers: /bytes/<key>/<id>/{z}-{x}-{y}), answered from the file by XYZ z/x/y (db/mbtiles.ts).
// A file is opened read-only once and kept open while it is read; a file replaced or removed is closed first.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { MbtilesReader, tileContentType } from '../db/mbtiles.ts';
import type { ByteSession, ReadBytes } from './bytes.ts';

const FILE_ID = /^[0-9a-f]{32}$/;
const NAME = /^(\d{1,2})-(\d{1,8})-(\d{1,8})$/;

export class OfflineTiles {
  private readonly readers = new Map<string, MbtilesReader>();

  /** `dir`: the layers folder, FURROW_HOME/layers. */
  constructor(private readonly dir: string) {}

  /** The session's path template for the tiles of `file` ({z}, {x} and {y} to fill in). */
  template(scope: ByteSession, file: string): string {
    const { template } = scope.addReader(`offline:${file}`, (name) => this.read(file, name));
    return template.replace('{name}', '{z}-{x}-{y}');
  }

  /** A tile of `file` by its name, z-x-y (XYZ rows); null when the file or the tile is not there. */
  read(file: string, name: string): ReadBytes | null {
    const m = name.match(NAME);
    if (!m || !FILE_ID.test(file)) return null;
    let reader = this.readers.get(file);
    if (!reader) {
      const path = join(this.dir, `${file}.mbtiles`);
      if (!existsSync(path)) return null;
      reader = new MbtilesReader(path);
      this.readers.set(file, reader);
    }
    const data = reader.tile(Number(m[1]), Number(m[2]), Number(m[3]));
    return data ? { data, type: tileContentType(data), etag: `"${file}-${name}"` } : null;
  }

  /** Closes and removes the files of areas no layer has any more. */
  drop(files: readonly string[]): void {
    for (const f of files) {
      if (!FILE_ID.test(f)) continue;
      this.readers.get(f)?.close();
      this.readers.delete(f);
      rmSync(join(this.dir, `${f}.mbtiles`), { force: true });
    }
  }

  close(): void {
    for (const r of this.readers.values()) r.close();
    this.readers.clear();
  }
}
