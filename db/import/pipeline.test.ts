// A large GeoJSON is split by its bytes and prepared on worker threads (and on the importing thread) in jobs:
// whichever way a file goes, the import must come out the same — rows, problems, undo entries, progress.
import { appendFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ImportError, IMPORT_CHUNK, importFile, type ImportOptions, type ImportReport } from './index.ts';
import { IMPORT_CACHE_KIB } from '../bulk.ts';
import { keptPool } from './pool.ts';
import { ACCOUNT, featureCollection, pointFeature, polygonFeature, square, tempMirror, type TempMirror } from './fixtures/temp-mirror.ts';

let mirrors: TempMirror[];
beforeEach(() => {
  mirrors = [];
});
afterEach(() => {
  for (const t of mirrors) t.close();
});

const base = { accountId: ACCOUNT, farmName: 'Cortijo' };
// Workers for any file, a few features per job; the same on this thread only; and the whole-file parse
// (a lone Feature is never split), for a file whose features are wrapped to match.
const WAYS: Record<string, Partial<ImportOptions>> = {
  workers: { workers: 1, workerMinBytes: 0, jobFeatures: 3 },
  inline: { workers: 0, jobFeatures: 2 },
  default: {},
};

interface Outcome { report?: Omit<ImportReport, 'farm'>; error?: { code: string; message: string; problems: unknown }; state: unknown; progress: [number, number][] }

async function importEach(content: string, opts: Partial<ImportOptions> = {}): Promise<Record<string, Outcome>> {
  const out: Record<string, Outcome> = {};
  for (const [way, extra] of Object.entries(WAYS)) {
    const t = tempMirror();
    mirrors.push(t);
    const progress: [number, number][] = [];
    const outcome: Outcome = { state: null, progress };
    try {
      const { farm: _, ...report } = await importFile(t.mirror, t.file('fields.geojson', content), { ...base, ...opts, ...extra, onProgress: (d, n) => progress.push([d, n]) });
      outcome.report = report;
    } catch (e) {
      if (!(e instanceof ImportError)) throw e;
      outcome.error = { code: e.code, message: e.message, problems: e.problems };
    }
    const db = t.mirror.syncDb;
    outcome.state = {
      parcels: db.prepare('SELECT name, source_type, point, geometry, hectares, metadata, minx, miny, maxx, maxy FROM parcels ORDER BY rowid').all(),
      outbox: db.prepare("SELECT p.name FROM outbox o JOIN parcels p ON p.local_id = o.local_id WHERE o.op = 'create' AND o.state = 'queued' ORDER BY o.id").pluck().all(),
      history: db.prepare('SELECT label FROM history ORDER BY id').pluck().all(),
      search: db.prepare("SELECT rowid FROM parcels_fts WHERE parcels_fts MATCH 'olivar OR andalucia OR 2024'").pluck().all().length,
      rtree: db.prepare('SELECT count(*) FROM parcels_rtree').pluck().get(),
      trigger: db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'parcels_ai'").pluck().get(),
      // The farm index as the migrations made it, with an entry for every parcel (an import may build it again).
      farmIndex: db.prepare("SELECT sql FROM sqlite_master WHERE name = 'parcels_farm'").pluck().get(),
      farmIndexed: db.prepare("SELECT count(*) FROM parcels INDEXED BY parcels_farm WHERE farm_local_id > ''").pluck().get(),
    };
    out[way] = outcome;
  }
  return out;
}

function expectSame(outcomes: Record<string, Outcome>): Outcome {
  const [first, ...rest] = Object.values(outcomes);
  for (const o of rest) expect(o).toEqual(first);
  return first!;
}

const mixed = [
  polygonFeature({ name: 'Olivar', region: 'Andalucía', year: 2024, ['__proto__']: 'kept' }, [square(-5.9, 37.4)]),
  pointFeature({ name: 'Pozo', hectares: 2.5 }, [-5.89, 37.41]),
  pointFeature({ name: 'no area' }, [-5.88, 37.41]),
  { type: 'Feature', properties: { name: 'Viña' }, geometry: { type: 'MultiPolygon', coordinates: [[square(-5.88, 37.4)], [square(-5.87, 37.4)]] } },
  { type: 'Feature', properties: { name: 'road' }, geometry: { type: 'LineString', coordinates: [[-5.9, 37.4], [-5.8, 37.5]] } },
  { type: 'Feature', properties: { name: 'bad part' }, geometry: { type: 'MultiPolygon', coordinates: [[square(-5.7, 37.4)], [square(-5.6, 37.4).slice(0, 3)]] } },
  polygonFeature({ name: 'Huerta 🌾', crop: 'olive' }, [square(-5.85, 37.4)]),
  polygonFeature({ name: 'huge' }, [square(-5.9, 37.4, 0.5)]),
  { type: 'Feature', properties: { name: 'one part' }, geometry: { type: 'MultiPolygon', coordinates: [[square(-5.84, 37.4)]] } },
];

describe('importFile: split file, worker threads, jobs', () => {
  it('imports a mixed file the same way whoever prepares it, with skipInvalid', async () => {
    const o = expectSame(await importEach(featureCollection(mixed), { skipInvalid: true }));
    expect(o.report).toMatchObject({ imported: 6, parts: 2 });
    expect((o.report!.skipped).map((p) => [p.index, p.part, p.code])).toEqual([
      [2, undefined, 'hectares_missing'], [4, undefined, 'geometry_type'], [5, 2, 'ring_too_short'], [5, 2, 'ring_not_closed'], [7, undefined, 'area_over_limit'],
    ]);
    expect(o.state).toMatchObject({ outbox: ['Olivar', 'Pozo', 'Viña (part 1 of 2)', 'Viña (part 2 of 2)', 'Huerta 🌾', 'one part'], history: ['Import fields.geojson'], rtree: 6, trigger: 1 });
    expect(JSON.parse((o.state as { parcels: { metadata: string }[] }).parcels[0]!.metadata)).toEqual({ region: 'Andalucía', year: 2024, ['__proto__']: 'kept' });
  });

  it('fails the same way without skipInvalid, leaving nothing behind', async () => {
    const o = expectSame(await importEach(featureCollection(mixed)));
    expect(o.error).toMatchObject({ code: 'invalid_features', message: expect.stringContaining('4 of 9 feature(s) cannot be imported') as unknown });
    expect(o.state).toMatchObject({ parcels: [], outbox: [], history: [], rtree: 0, trigger: 1 });
  });

  it('keeps chunks, undo labels and progress across jobs', async () => {
    const n = IMPORT_CHUNK + 7;
    const features = Array.from({ length: n }, (_, i) => polygonFeature({ name: `Olivar ${i}` }, [square(-6 + (i % 100) * 0.01, 37 + Math.floor(i / 100) * 0.01)]));
    const o = expectSame(await importEach(featureCollection(features)));
    expect(o.report).toMatchObject({ imported: n, skipped: [] });
    expect(o.progress).toEqual([[0, n], [IMPORT_CHUNK, n], [n, n]]);
    const f = (x: number) => x.toLocaleString('en-US');
    expect((o.state as { history: string[] }).history).toEqual([`Import fields.geojson (1–${f(IMPORT_CHUNK)} of ${f(n)})`, `Import fields.geojson (${f(IMPORT_CHUNK + 1)}–${f(n)} of ${f(n)})`]);
    // The farm index holds every row (migration 018's).
    expect(o.state).toMatchObject({ farmIndex: expect.stringMatching(/^CREATE INDEX parcels_farm ON parcels\s*\(farm_local_id, deleted\)$/), farmIndexed: n });
  });

  it('imports a file large enough for a worker to split its second part the same way (a feature\'s text looking like a boundary too)', async () => {
    // 9 MB: past TAIL_MIN_BYTES. Notes (metadata strings of at most 2,000 characters) that read like the end of a
    // feature and the start of the next, in places.
    const note = (i: number) => (i % 7 === 3 ? '} , {"type":"Feature"} , {'.repeat(70) : 'x'.repeat(1800));
    const notes = (i: number) => ({ n1: note(i), n2: note(i), n3: note(i), n4: note(i) });
    const features = Array.from({ length: 1300 }, (_, i) => polygonFeature({ name: `Olivar ${i}`, ...notes(i) }, [square(-5.9 + (i % 40) * 0.01, 37.4 + Math.floor(i / 40) * 0.01)]));
    const outcome = expectSame(await importEach(featureCollection(features)));
    expect(outcome.report).toMatchObject({ imported: 1300, skipped: [] });
    expect((outcome.state as { outbox: string[] }).outbox).toEqual(features.map((_, i) => `Olivar ${i}`));
  });

  it('refuses a file that is broken inside a feature with the message of the whole-file parse', async () => {
    const good = JSON.stringify(polygonFeature({ name: 'ok' }, [square(-5.9, 37.4)]));
    const text = `{"type":"FeatureCollection","features":[${good},${good},${good},{"type":"Feature","properties":{"n":01},"geometry":null},${good}]}`;
    let message = '';
    try {
      JSON.parse(text);
    } catch (e) {
      message = (e as Error).message;
    }
    const o = expectSame(await importEach(text));
    expect(o.error).toEqual({ code: 'unreadable', message: `fields.geojson is not valid JSON: ${message}`, problems: [] });
  });

  it('stores each geometry as JSON.stringify writes it, however the file wrote its numbers', async () => {
    const rings = ['[[-5.9,37.4],[-5.899,37.4],[-5.899,37.401],[-5.9,37.401],[-5.9,37.4]]', '[[-5.90,37.4000],[-5.899,37.4],[-5.899,37.401],[-5.9,37.401],[-5.90,37.4000]]',
      '[[-5.9, 37.4], [-5.899, 37.4], [-5.899, 37.401], [-5.9, 37.401], [-5.9, 37.4]]', '[[-59e-1,374e-1],[-5.899,37.4],[-5.899,37.401],[-5.9,37.401],[-59e-1,374e-1]]'];
    const text = `{"type":"FeatureCollection","features":[${rings.map((r, i) => `{"type":"Feature","properties":{"name":"F${i}"},"geometry":{"type":"Polygon","coordinates":[${r}]}}`).join(',')}]}`;
    const o = expectSame(await importEach(text));
    const stored = (o.state as { parcels: { geometry: string }[] }).parcels.map((p) => p.geometry);
    expect(stored).toEqual(rings.map((r) => JSON.stringify({ type: 'Polygon', coordinates: [JSON.parse(r)] })));
  });

  it('writes through the import\'s smaller page cache, and gives the connection its own back after, failed or not', async () => {
    const t = tempMirror();
    mirrors.push(t);
    const db = t.mirror.syncDb;
    const own = db.pragma('cache_size', { simple: true });
    expect(own).not.toBe(-IMPORT_CACHE_KIB);
    const seen: unknown[] = [];
    const onProgress = () => seen.push(db.pragma('cache_size', { simple: true }));
    await importFile(t.mirror, t.file('fields.geojson', featureCollection([polygonFeature({ name: 'Olivar' }, [square(-5.9, 37.4)])])), { ...base, onProgress });
    const bad = featureCollection([polygonFeature({ name: 'huge' }, [square(-5.9, 37.4, 0.5)])]);
    await expect(importFile(t.mirror, t.file('bad.geojson', bad), { ...base, onProgress })).rejects.toThrow(ImportError);
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set([-IMPORT_CACHE_KIB]));
    expect(db.pragma('cache_size', { simple: true })).toBe(own);
  });

  it('refuses a file written to while it is imported (it is read twice), whoever prepares its jobs, leaving nothing', async () => {
    const features = Array.from({ length: 40 }, (_, i) => polygonFeature({ name: `Olivar ${i}` }, [square(-6 + i * 0.01, 37)]));
    for (const [way, extra] of Object.entries(WAYS)) {
      const t = tempMirror();
      mirrors.push(t);
      const file = t.file('fields.geojson', featureCollection(features));
      let changed = false;
      // Before the first chunk is written, the file is saved again with one more line (an editor saving it).
      const onProgress = () => {
        if (!changed) appendFileSync(file, '\n');
        changed = true;
      };
      const error = await importFile(t.mirror, file, { ...base, ...extra, onProgress }).then(() => null, (e: unknown) => e);
      expect(error, way).toBeInstanceOf(ImportError);
      expect((error as ImportError).code, way).toBe('file_changed');
      expect((error as ImportError).message).toBe('fields.geojson changed while it was being imported, so nothing was imported; import it again once it is saved');
      expect(t.mirror.syncDb.prepare('SELECT count(*) FROM parcels').pluck().get(), way).toBe(0);
    }
  });

  it('with endThreads, ends its threads once every job is prepared (none kept for a next import), importing the same', async () => {
    const features = Array.from({ length: 40 }, (_, i) => polygonFeature({ name: `Olivar ${i}` }, [square(-6 + i * 0.01, 37)]));
    const content = featureCollection(features);
    const kept = await importEach(content);
    expect(keptPool()).not.toBeNull(); // the 'workers' way's, for the next import
    const t = tempMirror();
    mirrors.push(t);
    const report = await importFile(t.mirror, t.file('fields.geojson', content), { ...base, ...WAYS['workers'], endThreads: true });
    expect(keptPool()).toBeNull();
    expect(report).toMatchObject(kept['workers']!.report!);
    expect(t.mirror.syncDb.prepare('SELECT name FROM parcels ORDER BY rowid').pluck().all()).toEqual(features.map((_, i) => `Olivar ${i}`));
  });
});
