// Writes a PMTiles v3 archive (https://github.com/protomaps/PMTiles/blob/main/spec/v3/spec.md) for tests and the
// benchmarks: GDAL 3.6 has no PMTiles driver and the pmtiles package only reads. Tiles are given in any order, each
// once; written clustered (by tile id), directories uncompressed, with leaf directories once the root would pass
// its 16 KiB. Tiles come from a generator and go straight to the file: a 2 GB archive is never held in memory.
import { closeSync, ftruncateSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { zxyToTileId } from 'pmtiles';

export interface PmtilesOptions {
  /** 1 MVT, 2 PNG, 3 JPEG, 4 WebP (the spec's tile types). */
  tileType: 1 | 2 | 3 | 4;
  /** 1 none, 2 gzip: how the tiles are stored. */
  tileCompression?: 1 | 2;
  minZoom: number;
  maxZoom: number;
  /** [west, south, east, north]. */
  bounds: [number, number, number, number];
  metadata?: Record<string, unknown>;
}

interface Entry { tileId: number; offset: number; length: number; runLength: number }

const HEADER = 127;
const ROOT_MAX = 16_384 - HEADER;
/** Entries per leaf directory. */
const LEAF = 4096;

function varint(out: number[], n: number): void {
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
}

/** A directory's bytes (the spec's columns: ids as deltas, run lengths, lengths, offsets as 0 when contiguous). */
function directory(entries: readonly Entry[]): Buffer {
  const out: number[] = [];
  varint(out, entries.length);
  let last = 0;
  for (const e of entries) { varint(out, e.tileId - last); last = e.tileId; }
  for (const e of entries) varint(out, e.runLength);
  for (const e of entries) varint(out, e.length);
  entries.forEach((e, i) => {
    const prev = entries[i - 1];
    varint(out, i > 0 && prev && e.offset === prev.offset + prev.length ? 0 : e.offset + 1);
  });
  return Buffer.from(out);
}

/** The root directory, and the leaves it points to (concatenated), for `entries` sorted by id. */
function directories(entries: Entry[]): { root: Buffer; leaves: Buffer } {
  const root = directory(entries);
  if (root.length <= ROOT_MAX) return { root, leaves: Buffer.alloc(0) };
  const leafBufs: Buffer[] = [];
  const rootEntries: Entry[] = [];
  let offset = 0;
  for (let i = 0; i < entries.length; i += LEAF) {
    const leaf = directory(entries.slice(i, i + LEAF));
    rootEntries.push({ tileId: entries[i]!.tileId, offset, length: leaf.length, runLength: 0 });
    leafBufs.push(leaf);
    offset += leaf.length;
  }
  const r = directory(rootEntries);
  if (r.length > ROOT_MAX) throw new Error('too many tiles for one level of leaves');
  return { root: r, leaves: Buffer.concat(leafBufs) };
}

function u64(b: Buffer, at: number, v: number): void {
  b.writeBigUInt64LE(BigInt(v), at);
}

/**
 * Writes `tiles` (z, x, y in XYZ; `data` as stored) to `file`. The tiles are written first, after room left for the
 * header and directories, which are written once every tile's place is known.
 */
export function writePmtiles(file: string, opts: PmtilesOptions, tiles: Iterable<{ z: number; x: number; y: number; data: Uint8Array }>): {
  tiles: number; bytes: number;
  /** Where each tile's bytes lie in the file, by tile id. */
  at: Map<number, { offset: number; length: number }>;
} {
  // Tiles are written to their own file section in the order they come, then the directory sorted by id: the spec
  // allows tile data in any order ("clustered" is then false).
  const entries: Entry[] = [];
  const fd = openSync(`${file}.data`, 'w');
  let dataLength = 0;
  try {
    for (const t of tiles) {
      writeSync(fd, t.data);
      entries.push({ tileId: zxyToTileId(t.z, t.x, t.y), offset: dataLength, length: t.data.length, runLength: 1 });
      dataLength += t.data.length;
    }
  } finally {
    closeSync(fd);
  }
  entries.sort((a, b) => a.tileId - b.tileId);
  const { root, leaves } = directories(entries);
  const meta = Buffer.from(JSON.stringify(opts.metadata ?? {}));
  const rootOffset = HEADER;
  const metaOffset = rootOffset + root.length;
  const leafOffset = metaOffset + meta.length;
  const dataOffset = leafOffset + leaves.length;
  const h = header(opts, { rootOffset, root, metaOffset, meta, leafOffset, leaves, dataOffset, dataLength, tiles: entries.length });
  const out = openSync(file, 'w');
  try {
    for (const b of [h, root, meta, leaves]) writeSync(out, b);
    // The tile data appended from its file, a few MB at a time.
    const src = openSync(`${file}.data`, 'r');
    const buf = Buffer.alloc(8 * 1024 * 1024);
    try {
      for (let pos = 0; pos < dataLength;) {
        const n = readChunk(src, buf, pos);
        if (n === 0) throw new Error('the tile data ended early');
        writeSync(out, buf, 0, n);
        pos += n;
      }
    } finally {
      closeSync(src);
    }
  } finally {
    closeSync(out);
  }
  unlinkQuiet(`${file}.data`);
  const at = new Map(entries.map((e) => [e.tileId, { offset: dataOffset + e.offset, length: e.length }]));
  return { tiles: entries.length, bytes: dataOffset + dataLength, at };
}

/** The 127-byte header of an archive laid out as `at` says. */
function header(opts: PmtilesOptions, at: { rootOffset: number; root: Buffer; metaOffset: number; meta: Buffer; leafOffset: number; leaves: Buffer; dataOffset: number; dataLength: number; tiles: number }): Buffer {
  const { rootOffset, root, metaOffset, meta, leafOffset, leaves, dataOffset, dataLength } = at;
  const entries = { length: at.tiles };
  const h = Buffer.alloc(HEADER);
  h.write('PMTiles', 0, 'ascii');
  h[7] = 3;
  u64(h, 8, rootOffset); u64(h, 16, root.length);
  u64(h, 24, metaOffset); u64(h, 32, meta.length);
  u64(h, 40, leafOffset); u64(h, 48, leaves.length);
  u64(h, 56, dataOffset); u64(h, 64, dataLength);
  u64(h, 72, entries.length); u64(h, 80, entries.length); u64(h, 88, entries.length);
  h[96] = 0; // not clustered: the data is in the order the tiles came
  h[97] = 1; // internal compression: none
  h[98] = opts.tileCompression ?? 1;
  h[99] = opts.tileType;
  h[100] = opts.minZoom;
  h[101] = opts.maxZoom;
  const e7 = (v: number) => Math.round(v * 1e7);
  h.writeInt32LE(e7(opts.bounds[0]), 102); h.writeInt32LE(e7(opts.bounds[1]), 106);
  h.writeInt32LE(e7(opts.bounds[2]), 110); h.writeInt32LE(e7(opts.bounds[3]), 114);
  h[118] = opts.minZoom;
  h.writeInt32LE(e7((opts.bounds[0] + opts.bounds[2]) / 2), 119); h.writeInt32LE(e7((opts.bounds[1] + opts.bounds[3]) / 2), 123);
  return h;
}

const readChunk = (fd: number, buf: Buffer, pos: number) => readSync(fd, buf, 0, buf.length, pos);
const unlinkQuiet = (f: string) => rmSync(f, { force: true });

/**
 * A sparse archive: header, directories and metadata at the start, each tile at its own absolute offset `at` (past
 * 2 GiB, 4 GiB…: the data section starts at the lowest), the file `size` bytes long with nothing written elsewhere.
 * A file of gigabytes that costs the disk only its few written blocks: what offsets past 2^31 and 2^32 are tested on.
 */
export function writeSparsePmtiles(file: string, opts: PmtilesOptions, tiles: readonly { z: number; x: number; y: number; data: Uint8Array; at: number }[], size: number): void {
  const dataOffset = Math.min(...tiles.map((t) => t.at));
  const entries: Entry[] = tiles.map((t) => ({ tileId: zxyToTileId(t.z, t.x, t.y), offset: t.at - dataOffset, length: t.data.length, runLength: 1 })).sort((a, b) => a.tileId - b.tileId);
  const { root, leaves } = directories(entries);
  const meta = Buffer.from(JSON.stringify(opts.metadata ?? {}));
  const rootOffset = HEADER;
  const metaOffset = rootOffset + root.length;
  const leafOffset = metaOffset + meta.length;
  if (leafOffset + leaves.length > dataOffset) throw new Error('the tiles must lie after the directories');
  const dataLength = Math.max(...tiles.map((t) => t.at + t.data.length)) - dataOffset;
  const h = header(opts, { rootOffset, root, metaOffset, meta, leafOffset, leaves, dataOffset, dataLength, tiles: entries.length });
  const fd = openSync(file, 'w');
  try {
    let pos = 0;
    for (const b of [h, root, meta, leaves]) { writeSync(fd, b, 0, b.length, pos); pos += b.length; }
    for (const t of tiles) writeSync(fd, t.data, 0, t.data.length, t.at);
    ftruncateSync(fd, size);
  } finally {
    closeSync(fd);
  }
}
