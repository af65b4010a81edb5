// A batch of an area's tiles packed for the thread that writes them (backend/offline-writer.ts): their bytes one after
// another in one buffer, their places and lengths in a second, both moved to the thread rather than copied. Handed over
// as an array of objects instead, each tile costs the host's thread a structured clone or a transfer of its own — and
// a tile that is a view of undici's 64 KiB socket read is cloned with the whole of it: together the largest cost of a
// fast download on the host's thread. Packing is one copy of the tiles' bytes, once.
import { Buffer } from 'node:buffer';
import type { FetchedTile } from './mbtiles-writer.ts';

/** Per tile, four int32s: z, x, y and the length of its bytes (-1: no bytes). Failed tiles' reasons by index. */
export interface PackedTiles {
  places: Int32Array<ArrayBuffer>;
  bytes: ArrayBuffer;
  failed: [number, string][];
}

export function packTiles(tiles: readonly FetchedTile[]): PackedTiles {
  let size = 0;
  for (const t of tiles) size += t.data?.byteLength ?? 0;
  // Memory of its own (never a slice of Node's shared pool): it is moved to the thread.
  const bytes = Buffer.allocUnsafeSlow(size);
  const places = new Int32Array(tiles.length * 4);
  const failed: [number, string][] = [];
  let at = 0;
  tiles.forEach((t, i) => {
    places[i * 4] = t.z;
    places[i * 4 + 1] = t.x;
    places[i * 4 + 2] = t.y;
    places[i * 4 + 3] = t.data ? t.data.byteLength : -1;
    if (t.data) at += t.data.copy(bytes, at);
    if (t.failed !== undefined) failed.push([i, t.failed]);
  });
  return { places, bytes: bytes.buffer as ArrayBuffer, failed };
}

/** The tiles back, their bytes views of the packed buffer (no copy). */
export function unpackTiles(p: PackedTiles): FetchedTile[] {
  const tiles: FetchedTile[] = [];
  let at = 0;
  for (let i = 0; i * 4 < p.places.length; i++) {
    const length = p.places[i * 4 + 3]!;
    tiles.push({ z: p.places[i * 4]!, x: p.places[i * 4 + 1]!, y: p.places[i * 4 + 2]!, data: length < 0 ? null : Buffer.from(p.bytes, at, length) });
    if (length > 0) at += length;
  }
  for (const [i, why] of p.failed) tiles[i]!.failed = why;
  return tiles;
}
