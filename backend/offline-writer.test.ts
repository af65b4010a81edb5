// The thread that commits an offline area's tiles: what it is handed is in the file, read by the host's own connection
// (counts, finish); a batch is handed over packed (backend/tile-batch.ts), the caller's buffers left as they were; a file
// that holds no download refuses every batch in words; closing waits for the thread.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Buffer } from 'node:buffer';
import { PartFile, type DownloadJournal } from './mbtiles-writer.ts';
import { PartWriter } from './offline-writer.ts';
import { rgbPng } from '../test/helpers/png.ts';

const dir = mkdtempSync(join(tmpdir(), 'furrow-writer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const box: [number, number, number, number] = [13.30, 52.48, 13.31, 52.49];
const journal: DownloadJournal = {
  layer: 'ortho', source: { kind: 'xyz', url: 'http://127.0.0.1:1/{z}/{x}/{y}.png' }, name: 'Ortho',
  boxes: [box], bbox: box, minZoom: 10, maxZoom: 10, total: 3, started: new Date().toISOString(),
};

describe('the thread writing an area', () => {
  it('commits what it is handed where the host reads it, leaving the caller its buffers', async () => {
    const path = join(dir, `${'a'.repeat(32)}.mbtiles.part`);
    const part = PartFile.create(path, journal);
    const writer = new PartWriter(path);
    await writer.ready;
    const owned = Buffer.from(rgbPng(256, () => [200, 10, 10]));
    const own = Buffer.alloc(owned.length);
    owned.copy(own);
    // A view into a larger buffer, as undici's socket read is.
    const shared = Buffer.alloc(owned.length + 100);
    owned.copy(shared, 50);
    const view = shared.subarray(50, 50 + owned.length);
    await writer.write([
      { z: 10, x: 550, y: 335, data: own },
      { z: 10, x: 551, y: 335, data: view },
      { z: 10, x: 552, y: 335, data: null },
    ]);
    // Packed, not moved: the download may still hold them (a retry, the next batch's bytes count).
    expect(own.equals(owned)).toBe(true);
    expect(shared.byteLength).toBe(owned.length + 100);
    await writer.close();
    expect(part.counts()).toEqual({ tiles: 2, empty: 1, bytes: 2 * owned.length, failed: 0 });
    expect(part.finish()).toMatchObject({ tiles: 2, missing: 0 });
  });

  it('a file holding no download: each batch refused in words, and closing still ends the thread', async () => {
    const path = join(dir, `${'b'.repeat(32)}.mbtiles.part`);
    writeFileSync(path, 'not a database at all');
    const writer = new PartWriter(path);
    await writer.ready;
    await expect(writer.write([{ z: 10, x: 1, y: 1, data: null }])).rejects.toThrow(/holds no download/);
    await writer.close();
  });
});
