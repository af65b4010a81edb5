// The rules of a layer's file both sides share: tile names in a bytes path, the chunks of an upload, a file's name
// as a layer's.
import { describe, expect, it } from 'vitest';
import { LAYER_CHUNK_BASE64, LAYER_CHUNK_BYTES, layerNameOf, parseTileName, tileName, tileOf, uploadChunks } from './layer-files.ts';

describe('layer file rules', () => {
  it('name a tile <z>-<x>-<y>.<ext> and read back only tiles inside their zoom\'s grid', () => {
    expect(tileName(14, 8031, 6178, 'png')).toBe('14-8031-6178.png');
    expect(parseTileName('14-8031-6178.png')).toEqual({ z: 14, x: 8031, y: 6178, ext: 'png' });
    expect(parseTileName('0-0-0.pbf')).toEqual({ z: 0, x: 0, y: 0, ext: 'pbf' });
    for (const bad of ['1-2-0.png', '1-0-2.png', '31-0-0.png', '14-8031-6178.svg', '14-8031-6178', '-1-0-0.png', '14-8031-6178.png/..', 'a-b-c.png', '14-08031x-6178.png', '1-0-0.PNG']) {
      expect(parseTileName(bad), bad).toBeNull();
    }
    expect(tileOf('/bytes/k/i/{z}-{x}-{y}.webp', 3, 2, 1)).toBe('/bytes/k/i/3-2-1.webp');
  });

  it("cut an upload into chunks of the agreed size, the last one short, its base64 within the contract's bound", () => {
    expect(uploadChunks(1)).toEqual([{ offset: 0, length: 1 }]);
    expect(uploadChunks(2 * LAYER_CHUNK_BYTES + 5)).toEqual([
      { offset: 0, length: LAYER_CHUNK_BYTES }, { offset: LAYER_CHUNK_BYTES, length: LAYER_CHUNK_BYTES }, { offset: 2 * LAYER_CHUNK_BYTES, length: 5 },
    ]);
    expect(uploadChunks(LAYER_CHUNK_BYTES)).toHaveLength(1);
    expect(Buffer.alloc(LAYER_CHUNK_BYTES).toString('base64').length).toBeLessThanOrEqual(LAYER_CHUNK_BASE64);
  });

  it("make a layer's name of a file's: no folder, no extension, no control characters", () => {
    expect(layerNameOf('Ortofoto PNOA 2024.tif')).toBe('Ortofoto PNOA 2024');
    expect(layerNameOf('C:\\Users\\ana\\catastro.gpkg')).toBe('catastro');
    expect(layerNameOf('/home/ana/drenajes.KMZ')).toBe('drenajes');
    expect(layerNameOf('a\u0000b\u001b.geojson')).toBe('ab');
    expect(layerNameOf('.mbtiles')).toBe('.mbtiles');
    expect(layerNameOf('x'.repeat(300))).toHaveLength(200);
  });
});
