// An area's MBTiles file from first tile to published: its journal kept with it (a download goes on from the file
// alone), tiles and empty tiles done, the count checked, and the complete file one that GDAL (an independent reader)
// opens as MBTiles with the area's bounds and zooms; and read back by XYZ z/x/y through the TMS row flip.
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { isPartial, PartFile, publish, type DownloadJournal } from './mbtiles-writer.ts';
import { MbtilesReader, tileContentType } from '../db/mbtiles.ts';
import { isPartialLayerFile } from './layers.ts';
import { countTiles, tilesOf } from '../core/tiles/tile-math.ts';
import { rgbPng } from '../test/helpers/png.ts';

const require = createRequire(import.meta.url);
const dir = mkdtempSync(join(tmpdir(), 'furrow-mbtiles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const box: [number, number, number, number] = [13.30, 52.48, 13.45, 52.56];
const started = new Date().toISOString();
const journal = (total: number): DownloadJournal => ({
  layer: 'ortho', source: { kind: 'xyz', url: 'http://127.0.0.1:1/{z}/{x}/{y}.png' }, name: 'Ortho', attribution: '© Test',
  boxes: [box], bbox: box, minZoom: 10, maxZoom: 12, total, started,
});
/** A tile whose colour says where it is (red: x, green: y, blue: z). */
const tileOf = (z: number, x: number, y: number) => rgbPng(256, () => [x % 256, y % 256, z * 10]);

describe('an MBTiles file being written', () => {
  it('goes on from its file alone, and is complete only when every tile is done', () => {
    const total = countTiles([box], 10, 12);
    const path = join(dir, `${'a'.repeat(32)}.mbtiles.part`);
    const all = [...tilesOf([box], 10, 12)];
    let part = PartFile.create(path, journal(total));
    // The first half: tiles, and one the server had none of.
    const half = all.slice(0, Math.floor(all.length / 2));
    part.write(half.map((t, i) => ({ ...t, data: i === 3 ? null : tileOf(t.z, t.x, t.y) })));
    part.close();

    part = PartFile.open(path)!;
    expect(part.journal).toEqual(journal(total));
    expect(part.doneKeys().size).toBe(half.length);
    expect(part.counts()).toMatchObject({ tiles: half.length - 1, empty: 1 });
    expect(() => part.finish()).toThrow(`the file holds ${half.length} tiles of ${total}`);
    part.close();

    part = PartFile.open(path)!;
    part.write(all.slice(half.length).map((t) => ({ ...t, data: tileOf(t.z, t.x, t.y) })));
    const { tiles, bytes } = part.finish();
    expect(tiles).toBe(total - 1);
    expect(bytes).toBeGreaterThan(0);
    // Complete, fsynced, out of WAL: one file, the journal saying so, only the rename left.
    expect(readdirSync(dir).filter((f) => f.startsWith('a'))).toEqual([`${'a'.repeat(32)}.mbtiles.part`]);
    const again = PartFile.open(path)!;
    expect(again.journal.complete).toEqual(expect.any(String));
    again.close();
    expect(readdirSync(dir).filter((f) => f.startsWith('a'))).toEqual([`${'a'.repeat(32)}.mbtiles.part`]);

    const final = join(dir, `${'a'.repeat(32)}.mbtiles`);
    publish(path, final);
    expect(existsSync(path)).toBe(false);

    // GDAL reads it as MBTiles: the area's bounds, zoom 12's resolution, PNG tiles.
    const info = JSON.parse(execFileSync('gdalinfo', ['-json', final], { encoding: 'utf8' })) as { driverShortName: string; metadata: Record<string, Record<string, string>>; geoTransform: number[] };
    expect(info.driverShortName).toBe('MBTiles');
    expect(info.metadata['']).toMatchObject({ name: 'Ortho', format: 'png', minzoom: '10', maxzoom: '12', attribution: '© Test', type: 'baselayer', ZOOM_LEVEL: '12' });
    expect(info.geoTransform[1]).toBeCloseTo(40075016.68557849 / 256 / 2 ** 12, 3);

    const r = new MbtilesReader(final);
    const t = all[5]!;
    expect(r.tile(t.z, t.x, t.y)).toEqual(tileOf(t.z, t.x, t.y));
    expect(tileContentType(r.tile(t.z, t.x, t.y)!)).toBe('image/png');
    expect(r.tile(all[3]!.z, all[3]!.x, all[3]!.y)).toBeNull();
    expect(r.tile(12, 0, 0)).toBeNull();
    expect(r.tile(3, 8, 0)).toBeNull();
    expect(r.meta()).toMatchObject({ name: 'Ortho', type: 'png', bounds: box, minZoom: 10, maxZoom: 12 });
    r.close();
    // Rows in the file are TMS rows (0 at the south).
    const db = new Database(final, { readonly: true });
    expect(db.prepare('SELECT count(*) FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?').pluck().get(t.z, t.x, 2 ** t.z - 1 - t.y)).toBe(1);
    db.close();
  });

  it('puts each tile on the disk once while written (a rollback journal, not WAL), and rolls back a cut commit', () => {
    const path = join(dir, `${'b'.repeat(32)}.mbtiles.part`);
    const all = [...tilesOf([box], 10, 12)];
    const part = PartFile.create(path, journal(all.length));
    // Tiles of noise, about 12 KB each, in batches as a download commits them.
    let seed = 3;
    const noise = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) >>> 16) & 0xff;
    let bytes = 0;
    for (let i = 0; i < all.length; i += 10) {
      part.write(all.slice(i, i + 10).map((t) => {
        const data = rgbPng(64, () => [noise(), noise(), noise()]);
        bytes += data.length;
        return { ...t, data };
      }));
    }
    const beside = readdirSync(dir).filter((f) => f.startsWith('b'));
    expect(beside).not.toContain(`${'b'.repeat(32)}.mbtiles.part-wal`);
    // What is on the disk: the tiles once, their pages' slack, and a journal of the few pages each commit changed.
    const onDisk = beside.reduce((n, f) => n + statSync(join(dir, f)).size, 0);
    expect(onDisk).toBeLessThan(bytes * 1.35 + 256 * 1024);
    part.close();
    // A transaction cut by a crash (a hot journal left beside the file) is rolled back at the next open.
    const db = new Database(path);
    const before = db.prepare('SELECT count(*) FROM tiles').pluck().get() as number;
    db.close();
    const cut = spawnSync(process.execPath, ['-e', `
      const D = require(${JSON.stringify(require.resolve('better-sqlite3'))});
      const db = new D(${JSON.stringify(path)});
      db.pragma('journal_mode = PERSIST'); db.pragma('synchronous = OFF'); db.pragma('cache_size = 1');
      db.exec('BEGIN');
      db.prepare('DELETE FROM tiles WHERE rowid % 2 = 0').run();
      process.kill(process.pid, 'SIGKILL');`], { stdio: 'ignore' });
    expect(cut.signal).toBe('SIGKILL');
    // Pages were changed in the file itself (the cache holds one), their originals in the journal.
    expect(statSync(`${path}-journal`).size).toBeGreaterThan(0);
    const again = PartFile.open(path)!;
    expect(again.counts().tiles).toBe(before);
    again.close();
  });

  it('is told from a complete one by its name, with SQLite\'s files beside it', () => {
    for (const f of ['x.mbtiles.part', 'x.mbtiles.part-wal', 'x.mbtiles.part-shm', 'x.mbtiles.part-journal']) {
      expect(isPartial(f)).toBe(true);
      expect(isPartialLayerFile(f)).toBe(true);
    }
    expect(isPartialLayerFile('x.mbtiles')).toBe(false);
    expect(isPartialLayerFile('x.partial.tif')).toBe(false);
  });

  it('without its journal is no download', () => {
    const path = join(dir, 'cut.mbtiles.part');
    writeFileSync(path, '');
    expect(PartFile.open(path)).toBeNull();
    const db = new Database(path);
    db.exec('CREATE TABLE tiles (zoom_level, tile_column, tile_row, tile_data)');
    db.close();
    expect(PartFile.open(path)).toBeNull();
    expect(PartFile.open(join(dir, 'none.mbtiles.part'))).toBeNull();
  });
});

describe('tile types', () => {
  it('are told by their first bytes', () => {
    expect(tileContentType(rgbPng(1, () => [0, 0, 0]))).toBe('image/png');
    expect(tileContentType(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]))).toBe('image/jpeg');
    expect(tileContentType(Buffer.from('RIFF\0\0\0\0WEBPVP8 ', 'latin1'))).toBe('image/webp');
    expect(tileContentType(Buffer.from('<ServiceExceptionReport/>'))).toBe('application/octet-stream');
  });
});
