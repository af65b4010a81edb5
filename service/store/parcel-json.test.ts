import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import type { Readable } from 'node:stream';
import { featureArrayBody, featureArrayJson, type ParcelRow } from './parcel-json.ts';

function row(id: number, name: string, positions: number): ParcelRow {
  const ring = Array.from({ length: positions }, (_, i) => [i / 1e3, (i % 7) / 1e3]);
  return {
    id, key: `k-${id}`, farm_id: 1, name, source_type: 'Polygon', point: null, geometry: JSON.stringify({ type: 'Polygon', coordinates: [ring] }),
    hectares: 1.5, metadata: JSON.stringify({ crop: name }), minx: 0, miny: 0, maxx: 1, maxy: 1, created: '2026-01-01T00:00:00.000Z', modified: '2026-01-01T00:00:00.000Z',
  };
}

async function text(body: string | Readable): Promise<string> {
  if (typeof body === 'string') return body;
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

describe('featureArrayBody', () => {
  it('is the same JSON as featureArrayJson, as a string when small and as a stream when large', async () => {
    const small = [row(1, 'a', 10), row(2, 'b', 10)];
    expect(featureArrayBody(small)).toBe(featureArrayJson(small));
    const large = Array.from({ length: 12 }, (_, i) => row(i + 1, `Parcel ${i}`, 10_000));
    const body = featureArrayBody(large);
    expect(typeof body).not.toBe('string');
    expect(await text(body)).toBe(featureArrayJson(large));
    expect(await text(featureArrayBody(large, '{"x":1,"parcels":[', ']}'))).toBe(`{"x":1,"parcels":${featureArrayJson(large)}}`);
  });

  it('streams names with characters outside the BMP intact, wherever the pieces are cut', async () => {
    // A name of 40,000 emoji (80,000 UTF-16 units) spans the first cut; one more character before it moves the cut
    // from between two emoji into the middle of one, or back.
    for (const lead of ['', 'a']) {
      const rows = [row(1, `${lead}${'😀'.repeat(40_000)}`, 10), row(2, 'big', 80_000)];
      expect(await text(featureArrayBody(rows))).toBe(featureArrayJson(rows));
    }
    await fc.assert(fc.asyncProperty(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), fc.integer({ min: 9_000, max: 12_000 }), async (name, positions) => {
      const rows = [row(1, `${'😀'.repeat(positions % 50)}${name}`, positions), row(2, name, 40_000)];
      expect(await text(featureArrayBody(rows))).toBe(featureArrayJson(rows));
    }), { numRuns: 20 });
  });
});
