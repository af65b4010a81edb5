// The host's layer files (core/api-layer-files.ts): the user's MBTiles, PMTiles, GeoTIFF and vector overlays, each a
// copy the host made in its private folder FURROW_HOME/layers/ (0700; files 0600) as <id>.<ext>, with what it found
// in it beside, <id>.json. A file is written as <id>.<…>.part and renamed only once complete and told apart
// (backend/layer-sniff.ts), so a .part is never a kept file; a vector overlay is kept as the GeoJSON made of it
// (backend/layer-vector.ts), in WGS84.
//
// Why a copy, even of a path the command line or Electron's dialog gave: the layer must not break when the user
// moves, renames or edits the original, nor lead the host to read whatever a path comes to name later. The copy is
// streamed (never whole in memory), cancellable, and sparse where the original is (backend/sparse-write.ts: a 4.5 GB
// archive of mostly holes takes no more disk as a copy).
//
// A file goes when a saved layer that used it is removed (backend/layers.ts saveLayers), when removeLayerFile asks
// for one no saved layer uses, and at the host's start: its own .part files a stopped host left, and kept files no
// saved layer uses that are over a day old (added, then never saved: the page closed first). The same folder holds
// the areas kept offline (backend/offline-areas.ts): their files and downloads are theirs, never swept here.
import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { LayerFileFormat } from '../core/api-layers.ts';
import type { LayerFileInfo } from '../core/api-layer-files.ts';
import { LAYER_FILE_MAX_BYTES, layerNameOf, type TileExt } from '../core/layers/layer-files.ts';
import { ensurePrivateDir } from '../platform/node/private-files.ts';
import { freeBytes } from '../platform/node/sqlite.ts';
import { MbtilesReader } from '../db/mbtiles.ts';
import { LayerFileRefused, sniffLayerFile } from './layer-sniff.ts';
import { LayerUploads } from './layer-uploads.ts';
import { ChosenPaths } from './layer-chosen.ts';
import { gridDirs } from './grids.ts';
import { sparseWriteStream } from './sparse-write.ts';

/** The extension a kept file of each format has. */
export const FORMAT_EXT: Record<LayerFileFormat, string> = {
  'mbtiles-raster': 'mbtiles', 'mbtiles-vector': 'mbtiles', 'pmtiles-raster': 'pmtiles', 'pmtiles-vector': 'pmtiles', geotiff: 'tif', vector: 'geojson',
};
const EXTS = new Set(Object.values(FORMAT_EXT));
const ID = /^[0-9a-f]{32}$/;
/** Room left free on the disk beyond a new file (the mirror must still be able to write). */
const DISK_MARGIN = 256 * 1024 * 1024;
/** Kept files no saved layer uses are removed at the host's start once this old. */
export const UNUSED_FILE_MS = 24 * 3_600_000;
/** MBTiles files kept open for their tiles at once (each an SQLite connection, a few MB of cache). */
const OPEN_READERS = 16;
/** The files this registry writes before they are complete. */
const OWN_PART = /^[0-9a-f]{32}\.(upload|copy|geojson)\.part$/;
/** Where an MBTiles file has no tile. */
const NO_TILE = Buffer.alloc(0);

/** What the host keeps beside a file: its info and the tiles' type. */
interface Kept extends LayerFileInfo {
  tileType: TileExt | null;
}

/** Why a file is refused: its code (core/api-codes.ts) and the words. */
export class LayerFileProblem extends Error {
  constructor(readonly code: 'unsupported_layer_file' | 'too_large' | 'disk_full' | 'not_found' | 'invalid_arguments', message: string) {
    super(message);
    this.name = 'LayerFileProblem';
  }
}

export interface LayerFilesOptions {
  /** The host: what a stopped host left is cleaned up (`used`: the files saved layers use). Not the command line. */
  sweep?: { used: () => Set<string> };
  now?: () => number;
  /** The bytes free on the disk (tests); by default the file system's. */
  free?: () => number | null;
}

export class LayerFiles {
  readonly dir: string;
  readonly uploads: LayerUploads;
  readonly chosen = new ChosenPaths();
  private readonly kept = new Map<string, Kept>();
  private readonly readers = new Map<string, MbtilesReader>();
  private readonly now: () => number;
  private readonly free: () => number | null;

  constructor(private readonly home: string, opts: LayerFilesOptions = {}) {
    this.dir = join(home, 'layers');
    this.now = opts.now ?? Date.now;
    this.free = opts.free ?? (() => freeBytes(this.dir));
    this.uploads = new LayerUploads(this.dir, undefined, this.now, () => this.ensureDir());
    // Made when a file first comes (every command of the CLI opens a backend: a status writes nothing).
    if (opts.sweep && existsSync(this.dir)) {
      this.ensureDir();
      this.sweep(opts.sweep.used());
    }
  }

  /** The folder, private (0700), made when missing. */
  ensureDir(): void {
    ensurePrivateDir(this.dir);
  }

  /** The folder's entries; none when it was never made. */
  private entries(): string[] {
    return existsSync(this.dir) ? readdirSync(this.dir) : [];
  }

  /** A new file id: 16 random bytes, hex. */
  static newId(): string {
    return randomBytes(16).toString('hex');
  }

  /** Refuses a file of `size` bytes: past the limit, or past the disk's free space. */
  checkRoom(size: number, name: string): void {
    if (size > LAYER_FILE_MAX_BYTES) throw new LayerFileProblem('too_large', `${name} is ${gb(size)}: the app keeps layer files of up to ${gb(LAYER_FILE_MAX_BYTES)}`);
    this.ensureDir();
    const free = this.free();
    if (free !== null && free < size + DISK_MARGIN) {
      throw new LayerFileProblem('disk_full', `${name} is ${gb(size)} and the disk holding the app's data has ${gb(free)} free: free some space first`);
    }
  }

  /**
   * Copies the file at `path` (streamed; `signal` stops it, `progress` told the bytes copied) and keeps it as
   * `keep` does. `name`: the user's name for it.
   */
  async copy(path: string, name: string, opts: { signal?: AbortSignal; progress?: (done: number, total: number) => void } = {}): Promise<LayerFileInfo> {
    let size: number;
    try {
      const st = statSync(path);
      if (!st.isFile()) throw new LayerFileProblem('invalid_arguments', `${name} is not a file`);
      size = st.size;
    } catch (err) {
      if (err instanceof LayerFileProblem) throw err;
      throw new LayerFileProblem('not_found', `${name} cannot be read: ${(err as Error).message}`);
    }
    if (size === 0) throw new LayerFileProblem('unsupported_layer_file', `${name} is empty`);
    this.checkRoom(size, name);
    this.ensureDir();
    const part = join(this.dir, `${LayerFiles.newId()}.copy.part`);
    let done = 0;
    let told = 0;
    const count = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        done += chunk.length;
        if (done - told >= 8 * 1024 * 1024 || done === size) {
          told = done;
          opts.progress?.(done, size);
        }
        cb(null, chunk);
      },
    });
    try {
      await pipeline(createReadStream(path, { highWaterMark: 1024 * 1024 }), count, sparseWriteStream(part), { signal: opts.signal });
      return await this.keep(part, name);
    } finally {
      rmSync(part, { force: true });
    }
  }

  /**
   * Keeps the complete file `part` (the caller's, in this folder): tells what it holds, moves it to <id>.<ext> (a
   * vector overlay: writes the GeoJSON of it) with its info beside, and answers the info. Refused in words
   * (LayerFileProblem unsupported_layer_file) when the map cannot show it; `part` is then the caller's to remove.
   */
  async keep(part: string, name: string): Promise<LayerFileInfo> {
    let sniffed;
    try {
      sniffed = await sniffLayerFile(part, name);
    } catch (err) {
      if (err instanceof LayerFileRefused) throw new LayerFileProblem('unsupported_layer_file', err.message);
      throw err;
    }
    const id = LayerFiles.newId();
    const file = join(this.dir, `${id}.${FORMAT_EXT[sniffed.format]}`);
    let notes = sniffed.notes;
    let bbox = sniffed.bbox;
    let features: number | null = null;
    let origin: LayerFileInfo['origin'];
    if (sniffed.vector) {
      const out = `${file}.part`;
      try {
        // On a thread of its own: a 200 MB overlay takes the CPU for seconds, and the host answers meanwhile.
        const { convertOnThread } = await import('./layer-vector-thread.ts');
        const c = await convertOnThread({ file: part, name, kind: sniffed.vector, dest: out, gridDirs: gridDirs(this.home) });
        [bbox, features, notes, origin] = [c.bbox, c.features, [...notes, ...c.notes], c.origin];
        renameSync(out, file);
      } catch (err) {
        rmSync(out, { force: true });
        if (err instanceof LayerFileRefused) throw new LayerFileProblem('unsupported_layer_file', err.message);
        throw err;
      }
    } else {
      renameSync(part, file);
    }
    const info: Kept = {
      file: id, format: sniffed.format, name: (sniffed.title ?? layerNameOf(name)).slice(0, 200), bbox, minZoom: sniffed.minZoom, maxZoom: sniffed.maxZoom,
      attribution: sniffed.attribution, epsg: sniffed.epsg, bytes: statSync(file).size, features, notes, tileType: sniffed.tileType,
      ...(sniffed.overviews !== undefined ? { overviews: sniffed.overviews } : {}), ...(origin ? { origin } : {}),
    };
    writeFileSync(join(this.dir, `${id}.json`), JSON.stringify(info), { mode: 0o600 });
    this.kept.set(id, info);
    return publicInfo(info);
  }

  /** The kept file of id `id` (its path and format), or null. */
  fileOf(id: string): string | null {
    if (!ID.test(id)) return null;
    for (const ext of EXTS) {
      const f = join(this.dir, `${id}.${ext}`);
      if (existsSync(f)) return f;
    }
    return null;
  }

  /** What a kept file holds (told again from the file when its info beside is missing: an area kept offline). */
  async info(id: string): Promise<Kept> {
    const cached = this.kept.get(id);
    if (cached && this.fileOf(id)) return cached;
    const file = this.fileOf(id);
    if (!file) throw new LayerFileProblem('not_found', 'That layer file is no longer kept here: add it again');
    let info: Kept | null = null;
    try {
      info = JSON.parse(readFileSync(join(this.dir, `${id}.json`), 'utf8')) as Kept;
    } catch {
      info = await this.retell(id, file);
    }
    this.kept.set(id, info);
    return info;
  }

  /** A kept file's info told from the file itself. */
  private async retell(id: string, file: string): Promise<Kept> {
    const bytes = statSync(file).size;
    if (file.endsWith('.geojson')) {
      const doc = JSON.parse(readFileSync(file, 'utf8')) as { features?: { geometry?: unknown }[] };
      const { bboxOf } = await import('./layer-vector.ts');
      return { file: id, format: 'vector', name: 'Overlay', bbox: bboxOf(doc.features ?? []), minZoom: null, maxZoom: null, attribution: null, epsg: null, bytes, features: doc.features?.length ?? 0, notes: [], tileType: null };
    }
    const s = await sniffLayerFile(file, 'The file');
    return {
      file: id, format: s.format, name: s.title ?? 'Layer', bbox: s.bbox, minZoom: s.minZoom, maxZoom: s.maxZoom, attribution: s.attribution, epsg: s.epsg, bytes, features: null, notes: s.notes, tileType: s.tileType,
      ...(s.overviews !== undefined ? { overviews: s.overviews } : {}),
    };
  }

  /**
   * The tile at XYZ z/x/y of a kept MBTiles file: its bytes, empty where the file has no tile (a tile set covers its
   * area, and only where there is something: that is no failure), or null when the file is gone.
   */
  tile(id: string, z: number, x: number, y: number): Buffer | null {
    let r = this.readers.get(id);
    if (!r) {
      const file = this.fileOf(id);
      if (!file?.endsWith('.mbtiles')) return null;
      r = new MbtilesReader(file);
      this.readers.set(id, r);
      if (this.readers.size > OPEN_READERS) this.closeReader(this.readers.keys().next().value!);
    } else {
      // The most recently used last: the first is the one to close.
      this.readers.delete(id);
      this.readers.set(id, r);
    }
    return r.tile(z, x, y) ?? NO_TILE;
  }

  private closeReader(id: string): void {
    this.readers.get(id)?.close();
    this.readers.delete(id);
  }

  /** Removes a kept file and its info (nothing when it is gone). */
  remove(id: string): void {
    if (!ID.test(id)) return;
    this.closeReader(id);
    this.kept.delete(id);
    for (const f of this.entries()) if (f.startsWith(`${id}.`)) rmSync(join(this.dir, f), { force: true });
  }

  /** The ids of the files kept. */
  ids(): string[] {
    return [...new Set(this.entries().filter((f) => !f.endsWith('.part') && EXTS.has(f.split('.').pop()!)).map((f) => f.split('.')[0]!).filter((id) => ID.test(id)))];
  }

  /**
   * At the host's start: the .part files of this registry a stopped host left (uploads, copies, conversions — not an
   * area kept offline being downloaded, which resumes: backend/offline-areas.ts), and kept files no saved layer uses
   * (`used`) once a day old.
   */
  private sweep(used: Set<string>): void {
    for (const f of this.entries()) if (OWN_PART.test(f)) rmSync(join(this.dir, f), { force: true });
    for (const id of this.ids()) {
      if (used.has(id)) continue;
      const file = this.fileOf(id);
      if (file && this.now() - statSync(file).mtimeMs >= UNUSED_FILE_MS) this.remove(id);
    }
  }

  async close(): Promise<void> {
    await this.uploads.close();
    for (const id of [...this.readers.keys()]) this.closeReader(id);
  }
}

/** The info as the contract has it (without what the host keeps for itself). */
export function publicInfo(k: Kept): LayerFileInfo {
  const { tileType: _, ...info } = k;
  return info;
}

const gb = (n: number) => (n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(1)} GB` : `${Math.max(1, Math.round(n / 1024 ** 2))} MB`);
