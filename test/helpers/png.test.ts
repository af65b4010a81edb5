// The Node PNG decoder against PNGs written by others: the tests' own encoder, and GDAL's (every filter type, RGBA).
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodePng, rgbPng } from './png.ts';

describe('decodePng', () => {
  it('reads back what the encoder wrote, pixel for pixel', () => {
    const pixel = (x: number, y: number) => [(x * 7) & 255, (y * 13) & 255, (x * y) & 255] as const;
    const { width, height, data } = decodePng(rgbPng(37, pixel));
    expect([width, height]).toEqual([37, 37]);
    for (let y = 0; y < 37; y++) for (let x = 0; x < 37; x++) expect([...data.subarray((y * 37 + x) * 4, (y * 37 + x) * 4 + 4)]).toEqual([...pixel(x, y), 255]);
  });

  it("reads GDAL's PNGs (libpng's filters chosen row by row) as the bytes GDAL was given, RGBA, RGB and grey", () => {
    const dir = mkdtempSync(join(tmpdir(), 'furrow-png-'));
    try {
      const [w, h] = [61, 43];
      for (const bands of [4, 3, 1]) {
        // Band-sequential raw bytes with an ENVI header: a texture of gradients and noise, so rows filter differently.
        const raw = Buffer.alloc(w * h * bands);
        for (let b = 0; b < bands; b++) for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) raw[(b * h + y) * w + x] = (x * (b + 3) + y * y * (b + 1) + ((x * 7919 + y * 104729 + b) % 17)) & 255;
        writeFileSync(join(dir, 'in.bin'), raw);
        writeFileSync(join(dir, 'in.hdr'), `ENVI\nsamples = ${w}\nlines = ${h}\nbands = ${bands}\nheader offset = 0\nfile type = ENVI Standard\ndata type = 1\ninterleave = bsq\nbyte order = 0\n`);
        execFileSync('gdal_translate', ['-q', '-of', 'PNG', join(dir, 'in.bin'), join(dir, 'out.png')]);
        const { width, height, data } = decodePng(readFileSync(join(dir, 'out.png')));
        expect([width, height]).toEqual([w, h]);
        for (let y = 0; y < h; y++) {
          for (let x = 0; x < w; x++) {
            const want = Array.from({ length: bands }, (_, b) => raw[(b * h + y) * w + x]!);
            const rgba = bands === 1 ? [want[0], want[0], want[0], 255] : bands === 3 ? [...want, 255] : want;
            expect([...data.subarray((y * w + x) * 4, (y * w + x) * 4 + 4)], `${bands} bands, pixel ${x},${y}`).toEqual(rgba);
          }
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
