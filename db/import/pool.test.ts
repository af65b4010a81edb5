// The worker threads on their own: every job answered once with what this thread would have prepared, a
// broken slice reported as such, and a worker that dies with a job in hand does not hang the import.
import { afterEach, describe, expect, it } from 'vitest';
import { acquirePool, ImportPool, releasePool } from './pool.ts';
import { jobTable, parseSlice, type JobTable } from './jobs.ts';
import { splitFeatureCollection } from './geojson-split.ts';
import { prepareFeatures } from './prepare.ts';
import type { Outcome } from './worker.ts';
import { featureCollection, pointFeature, polygonFeature, square } from './fixtures/temp-mirror.ts';

const opts = { farmName: 'F', furrowExport: false, maxHectares: 100 };
let pool: ImportPool | null = null;
afterEach(() => pool?.close());

function shared(text: string): { bytes: Uint8Array; jobs: JobTable } {
  const encoded = new TextEncoder().encode(text);
  const bytes = new Uint8Array(new SharedArrayBuffer(encoded.length));
  bytes.set(encoded);
  return { bytes, jobs: jobTable(splitFeatureCollection(bytes)!, 2) };
}

const features = Array.from({ length: 9 }, (_, i) => (i % 3 === 2 ? pointFeature({ name: `P${i}` }, [-5.9, 37.4]) : polygonFeature({ name: `F${i}`, n: i }, [square(-5.9 + i * 0.01, 37.4)])));

describe('ImportPool', () => {
  it('answers every job once, as this thread would prepare it, when this thread claims none', () => {
    const { bytes, jobs } = shared(featureCollection(features));
    pool = new ImportPool(2);
    pool.begin({ file: bytes.buffer as SharedArrayBuffer, jobs, opts });
    const results = new Map<number, Outcome>();
    while (results.size < jobs.count) expect(pool.collect(results)).toEqual([]);
    expect(pool.claim()).toBe(-1);
    for (let j = 0; j < jobs.count; j++) {
      const { features: slice, first } = parseSlice(bytes, jobs, j);
      expect(results.get(j)).toEqual({ run: 1, job: j, result: prepareFeatures(slice, first, opts, { bytes, polygons: jobs.polygons }) });
    }
  });

  it('reports a slice that is not valid JSON as a syntax error', () => {
    const good = JSON.stringify(features[0]);
    const { bytes, jobs } = shared(`{"type":"FeatureCollection","features":[${good},${good},{"type":"Feature","id":01}]}`);
    pool = new ImportPool(1);
    pool.begin({ file: bytes.buffer as SharedArrayBuffer, jobs, opts });
    const results = new Map<number, Outcome>();
    while (results.size < jobs.count) pool.collect(results);
    expect(results.get(0)).toMatchObject({ job: 0, result: { inputs: 2 } });
    expect(results.get(1)).toMatchObject({ job: 1, syntax: true });
  });

  it('hands back the job of a worker that died with it in hand, to be prepared here', async () => {
    // Slow jobs (big rings), so the worker is busy with one when it is killed.
    const big = Array.from({ length: 12 }, (_, i) => polygonFeature({ name: `B${i}` }, [ring(-5 + i * 0.01, 37.4, 3000)]));
    const { bytes, jobs } = shared(featureCollection(big));
    pool = new ImportPool(1, 300);
    pool.begin({ file: bytes.buffer as SharedArrayBuffer, jobs, opts });
    const results = new Map<number, Outcome>();
    // The first answer (or, on a slow machine, the first stall: then the worker is given up on already).
    const lost = pool.collect(results);
    await pool.kill(0);
    const mine: number[] = [];
    for (let j = pool.claim(); j >= 0; j = pool.claim()) mine.push(j);
    lost.push(...pool.collect(results));
    const accounted = [...results.keys(), ...mine, ...lost].sort((a, b) => a - b);
    expect(accounted).toEqual(Array.from({ length: jobs.count }, (_, j) => j));
  });

  it('is kept between imports: the next one reuses its threads, and ignores answers left over from the last', () => {
    const a = shared(featureCollection(features));
    const b = shared(featureCollection(features.slice(0, 4)));
    const first = acquirePool(1);
    first.begin({ file: a.bytes.buffer as SharedArrayBuffer, jobs: a.jobs, opts });
    first.collect(new Map<number, Outcome>());
    releasePool(first); // ends the import with jobs still going
    const second = acquirePool(1);
    expect(second).toBe(first);
    second.begin({ file: b.bytes.buffer as SharedArrayBuffer, jobs: b.jobs, opts });
    const next = new Map<number, Outcome>();
    while (next.size < b.jobs.count) second.collect(next);
    expect([...next.keys()].sort()).toEqual([0, 1]);
    expect(next.get(1)).toMatchObject({ run: 2, result: { inputs: 2 } });
    pool = second;
  });
});

/** A star-shaped ring of n vertices around (lon, lat): valid, and slow to check. */
function ring(lon: number, lat: number, n: number): number[][] {
  const out = Array.from({ length: n }, (_, k) => {
    const a = (2 * Math.PI * k) / n;
    const r = 0.001 * (k % 2 ? 1 : 0.8);
    return [lon + r * Math.cos(a), lat + r * Math.sin(a)];
  });
  return [...out, out[0]!];
}
