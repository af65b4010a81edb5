// The worker threads on their own: every job answered once with what this thread would have prepared, a
// broken slice reported as such, and a worker that dies with a job in hand does not hang the import.
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { acquirePool, ImportPool, releasePool } from './pool.ts';
import { jobTable, parseSlice } from './jobs.ts';
import { AHEAD, type JobTable, type Outcome } from './protocol.ts';
import { fileRef, type FileRef } from './file-ref.ts';
import { splitFeatureCollection, splitFeaturesFrom } from './geojson-split.ts';
import { closeSync, openSync } from 'node:fs';
import { prepareFeatures } from './prepare.ts';
import { featureCollection, pointFeature, polygonFeature, square } from './fixtures/temp-mirror.ts';

const opts = { farmName: 'F', furrowExport: false, maxHectares: 100 };
let pool: ImportPool | null = null;
afterEach(() => pool?.close());

const dir = mkdtempSync(join(tmpdir(), 'furrow-pool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** The collection written to a file (the workers read it themselves), its bytes and its jobs of `perJob` features. */
function shared(text: string, perJob = 2): { file: FileRef; bytes: Uint8Array; jobs: JobTable } {
  const bytes = new TextEncoder().encode(text);
  const path = join(dir, `${files++}.geojson`);
  writeFileSync(path, bytes);
  return { file: fileRef(path, statSync(path)), bytes, jobs: jobTable(splitFeatureCollection(bytes)!, perJob) };
}

/** Job j's bytes as the threads read them. */
const slice = (bytes: Uint8Array, jobs: JobTable, j: number) => bytes.subarray(jobs.spans[j * 4]!, jobs.spans[j * 4 + 1]!);

const features = Array.from({ length: 9 }, (_, i) => (i % 3 === 2 ? pointFeature({ name: `P${i}` }, [-5.9, 37.4]) : polygonFeature({ name: `F${i}`, n: i }, [square(-5.9 + i * 0.01, 37.4)])));

describe('ImportPool', () => {
  it('answers every job once, as this thread would prepare it, when this thread claims none', () => {
    const { file, bytes, jobs } = shared(featureCollection(features));
    pool = new ImportPool(2);
    pool.begin({ file, jobs, opts });
    const results = new Map<number, Outcome>();
    while (results.size < jobs.count) expect(pool.collect(results)).toEqual([]);
    expect(pool.claim()).toBe(-1);
    for (let j = 0; j < jobs.count; j++) {
      const own = slice(bytes, jobs, j);
      const { features: parsed, first } = parseSlice(own, jobs, j);
      const raw = { bytes: own, base: jobs.spans[j * 4]!, polygons: jobs.polygons };
      expect(results.get(j)).toEqual({ run: 1, job: j, result: prepareFeatures(parsed, first, opts, raw) });
    }
  });

  it('reports a slice that is not valid JSON as a syntax error', () => {
    const good = JSON.stringify(features[0]);
    const { file, jobs } = shared(`{"type":"FeatureCollection","features":[${good},${good},{"type":"Feature","id":01}]}`);
    pool = new ImportPool(1);
    pool.begin({ file, jobs, opts });
    const results = new Map<number, Outcome>();
    while (results.size < jobs.count) pool.collect(results);
    expect(results.get(0)).toMatchObject({ job: 0, result: { inputs: 2 } });
    expect(results.get(1)).toMatchObject({ job: 1, syntax: true });
  });

  it('hands back the job of a worker that died with it in hand, to be prepared here', async () => {
    // Slow jobs (big rings), so the worker is busy with one when it is killed.
    const big = Array.from({ length: 12 }, (_, i) => polygonFeature({ name: `B${i}` }, [ring(-5 + i * 0.01, 37.4, 3000)]));
    const { file, jobs } = shared(featureCollection(big));
    pool = new ImportPool(1, 300);
    pool.begin({ file, jobs, opts });
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

  it('prepares no more than AHEAD jobs past the one this thread needs, and goes on as it asks for more', async () => {
    const many = Array.from({ length: (AHEAD + 20) * 1 }, (_, i) => pointFeature({ name: `P${i}`, hectares: 1 }, [-5.9 + i * 0.001, 37.4]));
    const { file, jobs } = shared(featureCollection(many), 1);
    pool = new ImportPool(1);
    pool.begin({ file, jobs, opts });
    const results = new Map<number, Outcome>();
    // Job 0 is wanted (the start): the worker stops after job AHEAD, however long it is given.
    const until = Date.now() + 1500;
    while (Date.now() < until && results.size < AHEAD + 1) pool.collect(results);
    await new Promise((r) => setTimeout(r, 300));
    pool.drain(results);
    expect(results.size).toBe(AHEAD + 1);
    expect(Math.max(...results.keys())).toBe(AHEAD);
    pool.want(10);
    while (results.size < AHEAD + 11) pool.collect(results);
    await new Promise((r) => setTimeout(r, 300));
    pool.drain(results);
    expect(results.size).toBe(AHEAD + 11);
    // This thread does not claim past the bound either: it waits for the workers' results instead.
    expect(pool.claim()).toBe(-2);
  });

  it('refuses a file that changed since it was split: the job comes back as an error, not a wrong parcel', () => {
    const { file, jobs } = shared(featureCollection(features));
    writeFileSync(file.path, featureCollection(features.slice(1)));
    pool = new ImportPool(1);
    pool.begin({ file, jobs, opts });
    const results = new Map<number, Outcome>();
    while (results.size < jobs.count) pool.collect(results);
    for (const r of results.values()) expect(r).toMatchObject({ syntax: false, error: expect.stringMatching(/changed while it was being imported/) });
  });

  it('runs from the built JavaScript too (dist/worker.mjs, which the built CLI starts), answering as the source does', async () => {
    const { ensureBuilt } = await import('../../scripts/build.mjs');
    const cli = new URL(await ensureBuilt());
    const { file, bytes, jobs } = shared(featureCollection(features));
    pool = new ImportPool(1, 60_000, new URL('worker.mjs', cli));
    pool.begin({ file, jobs, opts });
    const results = new Map<number, Outcome>();
    while (results.size < jobs.count) expect(pool.collect(results)).toEqual([]);
    expect(pool.healthy).toBe(true);
    const own = slice(bytes, jobs, 0);
    expect(results.get(0)).toEqual({ run: 1, job: 0, result: prepareFeatures(parseSlice(own, jobs, 0).features, 0, opts, { bytes: own, base: jobs.spans[0]!, polygons: jobs.polygons }) });
  }, 60_000);

  it('splits the features from a byte on, in a worker, as this thread would, with job results of an import before on its channel', () => {
    const { file, bytes, jobs } = shared(featureCollection(features));
    pool = new ImportPool(1);
    // An import first (the worker is up, and a result of it still waits unread), as when the pool is kept between imports.
    pool.begin({ file, jobs, opts });
    const results = new Map<number, Outcome>();
    while (results.size < jobs.count - 1) expect(pool.collect(results)).toEqual([]);
    pool.end();
    const start = splitFeatureCollection(bytes)!.starts[4]!;
    const tail = pool.splitFrom(file, start);
    expect(tail.start).toBe(start);
    const fd = openSync(file.path, 'r');
    try {
      expect(tail.take()).toEqual(splitFeaturesFrom(fd, file.size, start));
    } finally {
      closeSync(fd);
    }
  });

  it('gives up on a split from a worker that died: null within a second or so, not the stall timeout', async () => {
    const { file, bytes } = shared(featureCollection(features));
    pool = new ImportPool(1);
    await pool.kill(0);
    const t0 = Date.now();
    expect(pool.splitFrom(file, splitFeatureCollection(bytes)!.starts[4]!).take()).toBeNull();
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('is kept between imports: the next one reuses its threads, and ignores answers left over from the last', () => {
    const a = shared(featureCollection(features));
    const b = shared(featureCollection(features.slice(0, 4)));
    const first = acquirePool(1);
    first.begin({ file: a.file, jobs: a.jobs, opts });
    first.collect(new Map<number, Outcome>());
    releasePool(first); // ends the import with jobs still going
    const second = acquirePool(1);
    expect(second).toBe(first);
    second.begin({ file: b.file, jobs: b.jobs, opts });
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
