// The app's import of a dropped file (core/api-imports.ts) through the backend's handlers, as the mirror host runs
// them (on the import thread), on a real mirror with real files: test/fixtures/import-preview.geojson (five valid
// features, one of them a two-part MultiPolygon and one a point with its hectares, and a bow tie, a 220 ha field and
// a LineString that cannot be parcels), examples/fields.kml and examples/fields-shp.zip. The preview names every
// problem as the import would, the import takes exactly the valid ones, and nothing crosses accounts.
import { afterAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, utimesSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Backend } from './backend.ts';
import { ImportPreviews, PREVIEWS_MAX_BYTES, PREVIEWS_READING, PreviewRefused, safeFileName } from './import-previews.ts';
import { inProcess } from '../core/rpc.ts';
import type { Api } from '../core/api.ts';
import type { SeenEvent } from '../test/helpers/host.ts';
import { IMPORT_PREVIEW_MAX_BYTES } from '../core/api-imports.ts';
import { ntv2Grid } from '../core/geo/ntv2.test-helpers.ts';

const ROOT = resolve(import.meta.dirname, '..');
const MIXED = readFileSync(join(ROOT, 'test/fixtures/import-preview.geojson'));
const ACC = 'acc-00000000-0000-4000-8000-0000000000a1';
const OTHER = 'acc-00000000-0000-4000-8000-0000000000a2';
const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64');

const dir = mkdtempSync(join(tmpdir(), 'furrow-imports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let backend: Backend;
let api: ReturnType<typeof inProcess<Api>>;
let home: string;
let seen: SeenEvent[];
beforeEach(() => {
  home = mkdtempSync(join(dir, 'home-'));
  backend = new Backend({ home, app: true });
  api = inProcess<Api>(backend.handlers);
  seen = [];
  backend.onEvent((name, payload) => seen.push({ ...(name === 'sync' ? { progress: payload } : payload), type: name } as SeenEvent));
  for (const id of [ACC, OTHER]) backend.mirror.syncDb.prepare("INSERT INTO accounts (id, service_url, mode, label, created) VALUES (?, 'http://127.0.0.1:1', 'api_key', 'Grower', '2026-01-01')").run(id);
});
afterEach(() => backend.close());

const kept = () => (existsSync(join(home, 'imports')) ? readdirSync(join(home, 'imports')) : []);
const problemsOf = (p: Awaited<ReturnType<typeof api.importPreview>>) => p.features.map((f) => [f.index, f.name, f.geometryType, f.problems.map((x) => x.code)]);

describe('importPreview', () => {
  it('lists every feature with its hectares or its problems in words, checked with the service\'s rules and the account\'s limit', async () => {
    const progress: number[] = [];
    const p = await api.importPreview({ account: ACC, fileName: 'C:\\fields\\import-preview.geojson', data: b64(MIXED) }, { onProgress: (x) => progress.push(x.done) });
    expect(p).toMatchObject({ account: ACC, fileName: 'import-preview.geojson', format: 'geojson', total: 8, valid: 5, invalid: 3, parcels: 6, truncated: false, parcelLimit: 100 });
    expect(problemsOf(p)).toEqual([
      [0, 'Haza del Pozo', 'Polygon', []],
      [1, 'Haza Larga', 'Polygon', []],
      [2, 'Bow tie', 'Polygon', ['self_intersection']],
      [3, 'Dehesa grande', 'Polygon', ['area_over_limit']],
      [4, 'Camino viejo', 'LineString', ['geometry_type']],
      [5, 'Parcela de ensayo', 'Point', []],
      [6, 'Huertas', 'MultiPolygon', []],
      [7, null, 'Polygon', []],
    ]);
    const [, , bowTie, big, line, point, huertas] = p.features;
    // The import's own words, without the "Feature 2 'Bow tie':" the row already says.
    expect(bowTie!.problems[0]!.message).toMatch(/^ring 0 \(outer\) crosses or touches itself: segment \d meets segment \d at /);
    expect(big!.problems[0]!.message).toMatch(/^area 2\d\d(\.\d+)? ha exceeds the account's limit of 100 ha$/);
    expect(line!.problems[0]!.message).toBe('a LineString cannot be a parcel; only Polygon, MultiPolygon and Point (with hectares) can');
    expect([point!.hectares, point!.parcels, huertas!.parcels, big!.hectares, big!.parcels]).toEqual([1.5, 1, 2, null, 0]);
    expect(p.hectares).toBeCloseTo(p.features.reduce((s, f) => s + (f.hectares ?? 0), 0), 9);
    // The invalid shapes for the map; the valid ones are not sent.
    expect(p.features.map((f) => f.geometry?.type ?? null)).toEqual([null, null, 'Polygon', 'Polygon', 'LineString', null, null, null]);
    const [w, s, e, n] = p.bbox!;
    expect([w <= -5.425, s <= 37.575, e >= -5.386, n >= 37.595]).toEqual([true, true, true, true]);
    expect(progress.at(-1)).toBe(8);

    // Kept for the import in a folder of its own that only the user can read.
    expect(kept()).toEqual([p.preview]);
    const file = join(home, 'imports', p.preview, 'import-preview.geojson');
    expect(readFileSync(file)).toEqual(MIXED);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, 'imports', p.preview)).mode & 0o777).toBe(0o700);
    expect(Date.parse(p.expires)).toBeGreaterThan(Date.now() + 25 * 60_000);
  });

  it("checks against the account's own limit", async () => {
    await api.setParcelLimit({ account: ACC, hectares: 300 });
    const p = await api.importPreview({ account: ACC, fileName: 'mixed.geojson', data: b64(MIXED) });
    expect([p.valid, p.parcelLimit, p.features[3]!.problems]).toEqual([6, 300, []]);
    expect(p.features[3]!.hectares).toBeGreaterThan(200);
  });

  it('reads a KML and a zipped Shapefile', async () => {
    const kml = await api.importPreview({ account: ACC, fileName: 'fields.kml', data: b64(readFileSync(join(ROOT, 'examples/fields.kml'))) });
    expect(kml).toMatchObject({ format: 'kml', total: 5, valid: 5, invalid: 0, parcels: 5 });
    expect(kml.features.map((f) => f.name)).toEqual(['Haza del Pozo', 'Haza Larga', 'Cañada Honda', 'Olivar del Cerro', 'Parcela de ensayo']);
    const shp = await api.importPreview({ account: ACC, fileName: 'fields-shp.zip', data: b64(readFileSync(join(ROOT, 'examples/fields-shp.zip'))) });
    expect(shp).toMatchObject({ format: 'zip', total: 4, valid: 4, invalid: 0 });
    // The two readers, one area: the same fields to the square metre.
    kml.features.slice(0, 4).forEach((f, i) => expect(shp.features[i]!.hectares).toBeCloseTo(f.hectares!, 4));
    // The account's next preview replaced the KML's.
    expect(kept()).toEqual([shp.preview]);
  });

  it('refuses, with a code, a file too large (naming the CLI), bytes that are not base64, an unreadable or projected file, an unknown account', async () => {
    const big = 'A'.repeat(Math.ceil(((IMPORT_PREVIEW_MAX_BYTES + 1024) * 4) / 3 / 4) * 4);
    await expect(api.importPreview({ account: ACC, fileName: 'huge.geojson', data: big })).rejects.toMatchObject({ code: 'too_large', message: expect.stringContaining('npm run -s cli -- import') });
    await expect(api.importPreview({ account: ACC, fileName: 'x.geojson', data: 'not base64!' })).rejects.toMatchObject({ code: 'invalid_arguments' });
    await expect(api.importPreview({ account: ACC, fileName: 'broken.geojson', data: b64('{"type": "FeatureCollection", "features": [') }))
      .rejects.toMatchObject({ code: 'import_failed', details: { code: 'unreadable' }, message: expect.stringContaining('broken.geojson is not valid JSON') });
    await expect(api.importPreview({ account: ACC, fileName: 'notes.txt', data: b64('plain words') })).rejects.toMatchObject({ code: 'import_failed', details: { code: 'unsupported_format' } });
    const utm = { type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[440000, 4160000], [440100, 4160000], [440100, 4160100], [440000, 4160000]]] } }] };
    await expect(api.importPreview({ account: ACC, fileName: 'utm.geojson', data: b64(JSON.stringify(utm)) })).rejects.toMatchObject({ code: 'import_failed', details: { code: 'projection' } });
    await expect(api.importPreview({ account: 'acc-nobody', fileName: 'mixed.geojson', data: b64(MIXED) })).rejects.toMatchObject({ code: 'no_account' });
    // A file that cannot be read is not kept.
    expect(kept()).toEqual([]);
  });
});

describe('a file in another coordinate system', () => {
  const fixture = (name: string) => readFileSync(join(ROOT, 'db/import/fixtures/crs', name));

  it('is previewed reprojected, its CRS named, and imported where the preview put it', async () => {
    const p = await api.importPreview({ account: ACC, fileName: 'parcelas.zip', data: b64(fixture('25830.shp.zip')) });
    expect(p).toMatchObject({ format: 'zip', total: 4, valid: 4, crs: { code: 25830, name: 'ETRS89 / UTM zone 30N', reprojected: true, shift: 'none', grid: null, accuracy: null } });
    // Where the example farm's fields are (Sevilla), in WGS84 longitude/latitude.
    expect(p.bbox![0]).toBeCloseTo(-5.408, 6);
    expect(p.bbox![3]).toBeCloseTo(37.5884, 6);
    const r = await api.importPreviewed({ preview: p.preview, farm: { name: 'Parcelas' } });
    expect(r.imported).toBe(4);
    expect(backend.mirror.read.parcels(r.farm).reduce((sum, x) => sum + x.hectares, 0)).toBeCloseTo(p.hectares, 9);
  });

  it("is refused for want of its NTv2 grid, naming it; the grid given (importGrid), it is previewed with it", async () => {
    const bng = b64(fixture('27700.shp.zip'));
    const name = 'OSTN15_NTv2_OSGBtoETRS.gsb';
    await expect(api.importPreview({ account: ACC, fileName: 'bng.zip', data: bng }))
      .rejects.toMatchObject({ code: 'import_failed', details: { code: 'grid_missing', grids: [name] }, message: expect.stringContaining(`put the grid file in ${join(home, 'grids')}`) });
    // Only NTv2 bytes, and only under a name an EPSG definition gives a grid.
    await expect(api.importGrid({ name, data: b64('not a grid at all, not even close to one') })).rejects.toMatchObject({ code: 'invalid_grid', message: expect.stringContaining('is not an NTv2 grid file') });
    const grid = new Uint8Array(ntv2Grid({ south: 52.5, north: 53.5, west: -1, east: 0.5, step: 0.1, shift: () => [1.8, -4.9] }));
    await expect(api.importGrid({ name: 'evil.gsb', data: b64(grid) })).rejects.toMatchObject({ code: 'invalid_grid', message: 'evil.gsb is not a grid file any EPSG coordinate system Furrow knows uses' });
    await expect(api.importGrid({ name: '../../x.gsb', data: b64(grid) })).rejects.toMatchObject({ code: 'invalid_grid' });
    expect(await api.importGrid({ name, data: b64(grid) })).toEqual({ name, bytes: grid.length });
    expect(readdirSync(join(home, 'grids'))).toEqual([name]);
    if (process.platform !== 'win32') expect(statSync(join(home, 'grids', name)).mode & 0o777).toBe(0o600);
    const p = await api.importPreview({ account: ACC, fileName: 'bng.zip', data: bng });
    expect(p).toMatchObject({ valid: 4, crs: { code: 27700, shift: 'grid', grid: name } });
  });
});

describe('importPreviewed', () => {
  it('imports exactly the valid features into a new farm, undoably, with a change event, and removes the file', async () => {
    const p = await api.importPreview({ account: ACC, fileName: 'import-preview.geojson', data: b64(MIXED) });
    const progress: number[] = [];
    const r = await api.importPreviewed({ preview: p.preview, farm: { name: '  Cortijo nuevo ' } }, { onProgress: (x) => progress.push(x.done) });
    expect(r).toMatchObject({ farmName: 'Cortijo nuevo', imported: 6, parts: 2, skipped: 3, problemCount: 3 });
    expect(progress.at(-1)).toBe(8);
    const parcels = backend.mirror.read.parcels(r.farm);
    expect(parcels.map((x) => x.name)).toEqual(['Haza del Pozo', 'Haza Larga', 'Parcela de ensayo', 'Huertas (part 1 of 2)', 'Huertas (part 2 of 2)', 'Cortijo nuevo 8']);
    // The hectares the preview showed are the ones stored.
    const shown = p.features.filter((f) => f.problems.length === 0);
    expect(parcels.reduce((s, x) => s + x.hectares, 0)).toBeCloseTo(shown.reduce((s, f) => s + f.hectares!, 0), 9);
    expect(seen.some((e) => e.type === 'changed' && e.account === ACC && e.farms.includes(r.farm))).toBe(true);
    expect((await api.history({ account: ACC })).undo).toBe('Import import-preview.geojson');
    expect(kept()).toEqual([]);
    await expect(api.importPreviewed({ preview: p.preview, farm: { name: 'Again' } })).rejects.toMatchObject({ code: 'preview_gone' });
    // Undo takes the import back whole.
    await api.undo({ account: ACC });
    expect(backend.mirror.read.parcels(r.farm)).toEqual([]);
  });

  it("imports into an existing farm of the preview's account by id, never into another account's, nor into a new farm named like an existing one", async () => {
    const mine = backend.mirror.write.createFarm(ACC, 'Finca');
    const twin = backend.mirror.write.createFarm(ACC, 'Finca');
    const theirs = backend.mirror.write.createFarm(OTHER, 'Theirs');
    const p = await api.importPreview({ account: ACC, fileName: 'fields.kml', data: b64(readFileSync(join(ROOT, 'examples/fields.kml'))) });
    await expect(api.importPreviewed({ preview: p.preview, farm: { id: theirs.local_id } })).rejects.toMatchObject({ code: 'not_found' });
    await expect(api.importPreviewed({ preview: p.preview, farm: { id: 'no-such-farm' } })).rejects.toMatchObject({ code: 'not_found' });
    await expect(api.importPreviewed({ preview: p.preview, farm: { name: 'Finca' } })).rejects.toMatchObject({ code: 'farm_exists' });
    await expect(api.importPreviewed({ preview: p.preview, farm: { name: '   ' } })).rejects.toMatchObject({ code: 'import_failed', details: { code: 'no_farm_name' } });
    expect(backend.mirror.read.parcels(theirs.local_id)).toEqual([]);
    // The refusals kept the preview: the same one imports into the farm chosen, the second of two of that name.
    const r = await api.importPreviewed({ preview: p.preview, farm: { id: twin.local_id } });
    expect([r.farm, r.imported, r.skipped]).toEqual([twin.local_id, 5, 0]);
    expect(backend.mirror.read.parcels(mine.local_id)).toEqual([]);
    expect(backend.mirror.read.parcels(twin.local_id)).toHaveLength(5);
  });

  it("marks the features the account has already (the same shape, another format or the app's export) and skips them when asked", async () => {
    const geojson = readFileSync(join(ROOT, 'examples/fields.geojson'), 'utf8');
    const first = await api.importPreview({ account: ACC, fileName: 'fields.geojson', data: b64(geojson) });
    expect([first.duplicates, first.duplicateFeatures, first.features.map((f) => f.duplicates)]).toEqual([0, 0, [0, 0, 0, 0, 0]]);
    const campana = await api.importPreviewed({ preview: first.preview, farm: { name: 'Cortijo La Campana' }, skipDuplicates: true });
    expect([campana.imported, campana.duplicates]).toEqual([5, 0]);

    // The same farm as KML: every feature is there already, named with its parcel and farm.
    const kml = await api.importPreview({ account: ACC, fileName: 'fields.kml', data: b64(readFileSync(join(ROOT, 'examples/fields.kml'))) });
    expect([kml.valid, kml.duplicates, kml.duplicateFeatures]).toEqual([5, 5, 5]);
    expect(kml.features.map((f) => f.sameAs)).toEqual(['Haza del Pozo', 'Haza Larga', 'Cañada Honda', 'Olivar del Cerro', 'Parcela de ensayo'].map((name) => ({ name, farm: 'Cortijo La Campana' })));
    // Nothing new: an import that skips them imports nothing, and says why.
    await expect(api.importPreviewed({ preview: kml.preview, farm: { name: 'Cortijo KML' }, skipDuplicates: true }))
      .rejects.toMatchObject({ code: 'import_failed', details: { code: 'nothing_new' }, message: expect.stringMatching(/every one of its 5 parcel\(s\) is in the account already/) });
    expect(backend.mirror.read.farms(ACC).map((f) => f.name)).toEqual(['Cortijo La Campana']);

    // The app's own export with one field more and one moved 3 m: the new and the moved one are imported, the rest skipped.
    const exported = JSON.parse(geojson) as { features: { properties: { name: string }; geometry: { coordinates: number[][][] } }[] };
    exported.features[1]!.geometry.coordinates = exported.features[1]!.geometry.coordinates.map((r) => r.map(([x, y]) => [x! + 0.00004, y!]));
    exported.features.push({ type: 'Feature', properties: { name: 'Nueva' }, geometry: { type: 'Polygon', coordinates: [[[-5.3, 37.5], [-5.299, 37.5], [-5.299, 37.501], [-5.3, 37.501], [-5.3, 37.5]]] } } as never);
    const mixed = await api.importPreview({ account: ACC, fileName: 'export.geojson', data: b64(JSON.stringify(exported)) });
    expect([mixed.duplicates, mixed.duplicateFeatures, mixed.features.map((f) => f.duplicates)]).toEqual([4, 4, [1, 0, 1, 1, 1, 0]]);
    const r = await api.importPreviewed({ preview: mixed.preview, farm: { id: campana.farm }, skipDuplicates: true });
    expect([r.imported, r.duplicates]).toEqual([2, 4]);
    expect(backend.mirror.read.parcels(campana.farm).map((p) => p.name).slice(5)).toEqual(['Haza Larga', 'Nueva']);

    // The app's own export of the farm, as written: every parcel is already here.
    const file = join(home, 'campana.geojson');
    await api.exportFile({ path: file, farm: campana.farm });
    const own = await api.importPreview({ account: ACC, fileName: 'campana.geojson', data: b64(readFileSync(file)) });
    expect([own.valid, own.duplicates, own.duplicateFeatures]).toEqual([7, 7, 7]);

    // Not asked to skip them: they are imported as they are (the CLI's import never skips).
    const again = await api.importPreview({ account: ACC, fileName: 'fields.kml', data: b64(readFileSync(join(ROOT, 'examples/fields.kml'))) });
    const all = await api.importPreviewed({ preview: again.preview, farm: { name: 'Cortijo KML' } });
    expect([all.imported, all.duplicates]).toEqual([5, 0]);
  }, 90_000); // seven previews and imports, each on a thread of its own: room for a machine shared with other runs

  it('is refused once the preview is discarded or replaced, and a file with no valid feature imports nothing', async () => {
    const first = await api.importPreview({ account: ACC, fileName: 'a.geojson', data: b64(MIXED) });
    const other = await api.importPreview({ account: OTHER, fileName: 'b.geojson', data: b64(MIXED) });
    const second = await api.importPreview({ account: ACC, fileName: 'c.geojson', data: b64(MIXED) });
    await expect(api.importPreviewed({ preview: first.preview, farm: { name: 'A' } })).rejects.toMatchObject({ code: 'preview_gone' });
    // Another account's preview is its own.
    expect(kept().sort()).toEqual([other.preview, second.preview].sort());
    expect(await api.importPreviewDiscard({ preview: second.preview })).toBeNull();
    await expect(api.importPreviewed({ preview: second.preview, farm: { name: 'C' } })).rejects.toMatchObject({ code: 'preview_gone' });
    expect(kept()).toEqual([other.preview]);

    const bad = { type: 'FeatureCollection', features: [JSON.parse(MIXED.toString()).features[2]] };
    const none = await api.importPreview({ account: ACC, fileName: 'bad.geojson', data: b64(JSON.stringify(bad)) });
    expect([none.valid, none.invalid]).toEqual([0, 1]);
    await expect(api.importPreviewed({ preview: none.preview, farm: { name: 'Empty' } })).rejects.toMatchObject({ code: 'import_failed', details: { code: 'invalid_features' } });
    expect(backend.mirror.read.farms(ACC)).toEqual([]);
  });
});

describe('the previews kept', () => {
  it('go after their time, and a folder an earlier run left goes once as old', async () => {
    const root = join(dir, 'ttl');
    mkdirSync(join(root, 'left-by-a-crash'), { recursive: true });
    writeFileSync(join(root, 'left-by-a-crash', 'x.geojson'), '{}');
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(root, 'left-by-a-crash'), old, old);
    const previews = new ImportPreviews(root, 200);
    const p = previews.keep(ACC, 'fields.geojson', new Uint8Array([1, 2, 3]));
    expect(readdirSync(root)).toEqual([p.id]);
    await new Promise((r) => setTimeout(r, 400));
    expect([previews.get(p.id), readdirSync(root)]).toEqual([undefined, []]);
  });

  it('are named after the dropped file, safely', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('C:\\Users\\me\\Fincas 2026.kml')).toBe('Fincas 2026.kml');
    expect(safeFileName('..')).toBe('import');
    expect(safeFileName('.hidden.geojson')).toBe('hidden.geojson');
    expect(safeFileName('a\u0000b\nc.zip')).toBe('abc.zip');
  });

  it('are named within what the file system takes: 255 bytes of UTF-8, whole characters, the extension kept', () => {
    const euros = safeFileName(`${'€'.repeat(200)}.geojson`);
    expect(Buffer.byteLength(euros)).toBeLessThanOrEqual(255);
    expect(euros).toBe(`${'€'.repeat(82)}.geojson`);
    const faces = safeFileName(`${'😀'.repeat(100)}.kml`);
    expect(Buffer.byteLength(faces)).toBeLessThanOrEqual(255);
    expect(faces).toMatch(/^(😀)+\.kml$/u);
    expect(safeFileName(`${'a'.repeat(300)}.zip`)).toBe(`${'a'.repeat(251)}.zip`);
    // Cut to nothing but dots: named import.
    expect(safeFileName(`x${'.'.repeat(300)}`)).toBe('import');
  });

  it('hold at most PREVIEWS_MAX_BYTES together: the oldest not being imported go first, else a new one is refused', () => {
    expect(PREVIEWS_MAX_BYTES).toBe(200 * 1024 * 1024);
    const root = join(dir, 'cap');
    const previews = new ImportPreviews(root, 60_000, { reading: 2, bytes: 10 });
    const four = new Uint8Array(4);
    const a = previews.keep('acc-a', 'a.geojson', four);
    const b = previews.keep('acc-b', 'b.geojson', four);
    expect(previews.keptBytes()).toBe(8);
    // A third would pass 10 bytes: the oldest, a's, makes room.
    const c = previews.keep('acc-c', 'c.geojson', four);
    expect([previews.get(a.id), readdirSync(root).sort()]).toEqual([undefined, [b.id, c.id].sort()]);
    // One being imported is never removed for room: b stays, c goes, and then there is none.
    previews.get(b.id)!.importing = true;
    expect(() => previews.keep('acc-d', 'd.geojson', new Uint8Array(8))).toThrow(PreviewRefused);
    expect(previews.get(c.id)).toBeUndefined();
    expect(previews.get(b.id)).toBeDefined();
    const d = previews.keep('acc-d', 'd.geojson', new Uint8Array(6));
    expect(previews.keptBytes()).toBe(10);
    previews.close();
    expect([previews.get(d.id), readdirSync(root)]).toEqual([undefined, []]);
  });

  it('are read at most PREVIEWS_READING at once', () => {
    const previews = new ImportPreviews(join(dir, 'turns'), 60_000);
    const ends = Array.from({ length: PREVIEWS_READING }, () => previews.beginReading());
    expect(() => previews.beginReading()).toThrow(expect.objectContaining({ code: 'busy' }));
    ends[0]!();
    ends[0]!(); // ending twice frees one turn only
    const again = previews.beginReading();
    expect(() => previews.beginReading()).toThrow(PreviewRefused);
    again();
    ends[1]!();
  });
});

describe('a page previewing without end', () => {
  it(`reads at most ${PREVIEWS_READING} previews at once: the next is refused busy, a turn frees when one ends, failed or not`, async () => {
    const data = b64(MIXED);
    const calls = [OTHER, ACC, OTHER].map((account) => api.importPreview({ account, fileName: 'mixed.geojson', data }).then((p) => p.total, (e: { code: string }) => e.code));
    expect(await Promise.all(calls)).toEqual([8, 8, 'busy']);
    // Refused before a byte was kept: the two previews' files only.
    expect(kept()).toHaveLength(2);
    // Failed previews give their turn back.
    for (let i = 0; i < 3; i++) await expect(api.importPreview({ account: ACC, fileName: 'broken.geojson', data: b64('{"type": "Feat') })).rejects.toMatchObject({ code: 'import_failed' });
    const both = await Promise.all([ACC, OTHER].map((account) => api.importPreview({ account, fileName: 'mixed.geojson', data })));
    expect(both.map((p) => p.total)).toEqual([8, 8]);
  });

  it("removes an account's previews when it is disconnected", async () => {
    const mine = await api.importPreview({ account: ACC, fileName: 'mixed.geojson', data: b64(MIXED) });
    const theirs = await api.importPreview({ account: OTHER, fileName: 'mixed.geojson', data: b64(MIXED) });
    expect(kept().sort()).toEqual([mine.preview, theirs.preview].sort());
    await api.disconnect({ account: ACC, discardUnsynced: true });
    expect(kept()).toEqual([theirs.preview]);
    await expect(api.importPreviewed({ preview: mine.preview, farm: { name: 'Gone' } })).rejects.toMatchObject({ code: 'preview_gone' });
    expect((await api.importPreviewed({ preview: theirs.preview, farm: { name: 'Kept' } })).imported).toBe(6);
  });

  it('previews a file whose name is 200 euro signs (600 bytes): kept under a name the file system takes', async () => {
    const p = await api.importPreview({ account: ACC, fileName: `${'€'.repeat(200)}.geojson`, data: b64(MIXED) });
    expect([p.total, p.valid]).toEqual([8, 5]);
    expect(p.fileName).toBe(`${'€'.repeat(82)}.geojson`);
    expect(readdirSync(join(home, 'imports', p.preview))).toEqual([p.fileName]);
  });
});

describe('in process (a backend without the import thread, as the CLI runs it)', () => {
  it('previews and imports the same way', async () => {
    const own = mkdtempSync(join(dir, 'cli-'));
    const b = new Backend({ home: own });
    try {
      b.mirror.syncDb.prepare("INSERT INTO accounts (id, service_url, mode, label, created) VALUES (?, 'http://127.0.0.1:1', 'api_key', 'Grower', '2026-01-01')").run(ACC);
      const here = inProcess<Api>(b.handlers);
      const p = await here.importPreview({ account: ACC, fileName: 'mixed.geojson', data: b64(MIXED) });
      expect([p.total, p.valid, p.parcels]).toEqual([8, 5, 6]);
      expect((await here.importPreviewed({ preview: p.preview, farm: { name: 'Here' } })).imported).toBe(6);
    } finally {
      b.close();
    }
  });
});
