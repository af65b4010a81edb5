// Packing a batch of tiles for the writing thread loses nothing: every tile's place, its bytes (views of a larger
// buffer included), an empty tile (no bytes), a zero-length answer and a failure's reason come back as they went.
import { describe, expect, it } from 'vitest';
import { Buffer } from 'node:buffer';
import { packTiles, unpackTiles } from './tile-batch.ts';
import type { FetchedTile } from './mbtiles-writer.ts';

describe('a batch of tiles packed for the writer', () => {
  it('comes back whole, in order, in two buffers that own their memory', () => {
    const socketRead = Buffer.from(Array.from({ length: 300 }, (_, i) => i % 251));
    const tiles: FetchedTile[] = [
      { z: 16, x: 34_668, y: 21_584, data: socketRead.subarray(10, 110) },
      { z: 16, x: 34_669, y: 21_584, data: null },
      { z: 24, x: 16_777_215, y: 16_777_215, data: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
      { z: 3, x: 1, y: 2, data: null, failed: 'tiles.example answered 500 (5 tries)' },
      { z: 3, x: 2, y: 2, data: Buffer.alloc(0) },
      { z: 16, x: 1, y: 1, data: socketRead.subarray(200, 300) },
    ];
    const packed = packTiles(tiles);
    expect(packed.bytes.byteLength).toBe(204);
    expect(packed.places.byteOffset).toBe(0);
    expect(packed.places.byteLength).toBe(packed.places.buffer.byteLength);
    // Moving the buffers (as postMessage's transfer list does) leaves the caller's tiles untouched.
    const moved = structuredClone(packed, { transfer: [packed.places.buffer, packed.bytes] });
    expect(tiles[0]!.data!.byteLength).toBe(100);
    const back = unpackTiles(moved);
    expect(back.map(({ z, x, y, failed }) => ({ z, x, y, failed }))).toEqual(tiles.map(({ z, x, y, failed }) => ({ z, x, y, failed })));
    back.forEach((t, i) => {
      if (tiles[i]!.data === null) expect(t.data).toBeNull();
      else expect(Buffer.compare(t.data!, tiles[i]!.data!)).toBe(0);
    });
  });

  it('an empty batch packs to nothing', () => {
    const packed = packTiles([]);
    expect(packed.bytes.byteLength).toBe(0);
    expect(unpackTiles(packed)).toEqual([]);
  });
});
