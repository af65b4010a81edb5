// A large vector overlay converted off the host's thread (backend/layer-vector-thread.ts): while the host reads,
// checks and writes out a GeoJSON of some 100 MB (60,000 polygons) (seconds of CPU), its other calls are answered at once. Against a
// real host process, through the command line's channel (addLayerFilePath) and a call the app makes all the time.
// Also: the thread's answers are convertVector's (the overlay kept, its refusal in words).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { startBrowserHost, type BrowserHost } from '../test/helpers/browser-host.ts';
import { convertOnThread } from './layer-vector-thread.ts';
import { LayerFileRefused } from './layer-sniff.ts';

let b: BrowserHost;
let big: string;
const FEATURES = 60_000;
const VERTICES = 60;

/** A GeoJSON of FEATURES polygons of VERTICES vertices each near Madrid, written a feature at a time. */
async function largeOverlay(file: string): Promise<void> {
  const out = createWriteStream(file);
  out.write('{"type":"FeatureCollection","features":[\n');
  for (let i = 0; i < FEATURES; i++) {
    const [cx, cy] = [-3.9 + (i % 200) * 0.002, 40.2 + Math.floor(i / 200) * 0.002];
    const ring = Array.from({ length: VERTICES }, (_, k) => [cx + 0.0008 * Math.cos((2 * Math.PI * k) / VERTICES), cy + 0.0008 * Math.sin((2 * Math.PI * k) / VERTICES)].map((v) => v.toFixed(9)));
    ring.push(ring[0]!);
    const f = { type: 'Feature', properties: { name: `Parcela catastral ${i}`, ref: `28079A0${i}` }, geometry: { type: 'Polygon', coordinates: [ring.map((p) => p.map(Number))] } };
    if (!out.write(`${i ? ',\n' : ''}${JSON.stringify(f)}`)) await once(out, 'drain');
  }
  out.end('\n]}\n');
  await once(out, 'finish');
}

beforeAll(async () => {
  b = await startBrowserHost('furrow-layer-vector-thread-', { ttlMs: 60_000, prepare: (_home, dir) => largeOverlay(big = join(dir, 'Catastro.geojson')) });
}, 180_000);
afterAll(async () => {
  await b?.close();
});

describe("a vector overlay's conversion on a thread of its own", () => {
  it('leaves the host answering its other calls while a large overlay converts', async () => {
    expect(readFileSync(big).length).toBeGreaterThan(80 * 1024 ** 2);
    const started = Date.now();
    let done = false;
    const adding = b.host.api.addLayerFilePath({ path: big }).finally(() => { done = true; });
    // The app's calls meanwhile: each timed from asked to answered.
    const waits: number[] = [];
    while (!done) {
      const t = Date.now();
      await b.host.api.layers({});
      waits.push(Date.now() - t);
      await new Promise((r) => setTimeout(r, 25));
    }
    const info = await adding;
    const took = Date.now() - started;
    expect(info).toMatchObject({ format: 'vector', features: FEATURES });
    // The conversion took seconds; no call waited for more than a fraction of them.
    expect(took).toBeGreaterThan(2000);
    expect(Math.max(...waits), `calls waited ${Math.max(...waits)} ms at most while the overlay took ${took} ms`).toBeLessThan(Math.min(1000, took / 3));
    // Answered all along (on the host's thread it answered 16 calls in 24 s, each waiting seconds).
    expect(waits.length).toBeGreaterThan(20);
  }, 180_000);

  it("answers convertVector's refusals in words, and an overlay's features", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'furrow-layer-vector-thread-'));
    try {
      const empty = join(dir, 'empty.geojson');
      writeFileSync(empty, JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: null }] }));
      const refused = convertOnThread({ file: empty, name: 'Vacío.geojson', kind: 'import', dest: join(dir, 'out.geojson') });
      await expect(refused).rejects.toBeInstanceOf(LayerFileRefused);
      await expect(refused).rejects.toThrow('Vacío.geojson has no feature with a shape to draw.');
      const one = join(dir, 'one.geojson');
      writeFileSync(one, JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { name: 'Pozo' }, geometry: { type: 'Point', coordinates: [-3.7, 40.4] } }] }));
      expect(await convertOnThread({ file: one, name: 'one.geojson', kind: 'import', dest: join(dir, 'one-out.geojson') })).toEqual({ bbox: [-3.7, 40.4, -3.7, 40.4], features: 1, notes: [], origin: 'GeoJSON' });
      expect(JSON.parse(readFileSync(join(dir, 'one-out.geojson'), 'utf8'))).toMatchObject({ features: [{ properties: { name: 'Pozo' } }] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
