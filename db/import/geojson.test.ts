import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ImportError, IMPORT_CHUNK, importFile } from './index.ts';
import { REPROJECT } from './errors.ts';
import { ACCOUNT, featureCollection, pointFeature, polygonFeature, square, tempMirror, type TempMirror } from './fixtures/temp-mirror.ts';

let t: TempMirror;
beforeEach(() => {
  t = tempMirror();
});
afterEach(() => t.close());

const opts = { accountId: ACCOUNT, farmName: 'Cortijo Norte' };
const meta = (localId: string) => JSON.parse(t.mirror.read.parcel(localId)!.metadata) as Record<string, unknown>;

async function expectImportError(p: Promise<unknown>): Promise<ImportError> {
  const e = await p.then(() => null, (err: unknown) => err);
  expect(e).toBeInstanceOf(ImportError);
  return e as ImportError;
}

function expectNothingCreated(): void {
  expect(t.mirror.read.farms(ACCOUNT)).toEqual([]);
  expect(t.mirror.read.allParcels(ACCOUNT)).toEqual([]);
  expect(t.mirror.read.outbox()).toEqual([]);
  expect(t.mirror.read.canUndo()).toBe(false);
}

describe('importFile: GeoJSON', () => {
  it('imports polygons, points and split MultiPolygons with the naming and metadata rules', async () => {
    const file = t.file('fields.geojson', featureCollection([
      polygonFeature({ name: '  Olivar  ', crop: 'olive', year: 2024, organic: true, notes: null, tags: ['a', 'b'], owner: { id: 7 } }, [square(-5.9, 37.4)]),
      pointFeature({ Name: 'Pozo', hectares: 2.5, depth_m: 40 }, [-5.89, 37.41]),
      { type: 'Feature', properties: { label: 'Viña', region: 'Andalucía' }, geometry: { type: 'MultiPolygon', coordinates: [[square(-5.88, 37.4)], [square(-5.87, 37.4)], [square(-5.86, 37.4)]] } },
      polygonFeature({ crop: 'wheat' }, [square(-5.85, 37.4).map(([x, y]) => [x!, y!, 512])]), // 3D, no name
      pointFeature({ NAME: 'Caseta', HECTARES: '0.75' }, [-5.84, 37.4]),
    ]));
    const report = await importFile(t.mirror, file, opts);

    expect(report).toMatchObject({ imported: 7, parts: 3, skipped: [] });
    expect(report.farm).toMatchObject({ name: 'Cortijo Norte', account_id: ACCOUNT });
    const parcels = t.mirror.read.parcels(report.farm.local_id);
    expect(parcels.map((p) => p.name)).toEqual([
      'Olivar', 'Pozo', 'Viña (part 1 of 3)', 'Viña (part 2 of 3)', 'Viña (part 3 of 3)', 'Cortijo Norte 4', 'Caseta',
    ]);
    const [olivar, pozo, part1, part2, , unnamed, caseta] = parcels;
    // Scalars kept, null dropped, nested values as JSON text, the name property not repeated.
    expect(meta(olivar!.local_id)).toEqual({ crop: 'olive', year: 2024, organic: true, tags: '["a","b"]', owner: '{"id":7}' });
    expect(pozo).toMatchObject({ source_type: 'Point', hectares: 2.5, point: '[-5.89,37.41]' });
    expect(meta(pozo!.local_id)).toEqual({ depth_m: 40 }); // hectares became the point's area, not metadata
    expect(meta(part1!.local_id)).toEqual({ region: 'Andalucía' });
    expect(meta(part2!.local_id)).toEqual({ region: 'Andalucía' });
    expect(part1!.hectares).toBeGreaterThan(0.5);
    expect(JSON.parse(unnamed!.geometry).coordinates[0][0]).toEqual([-5.85, 37.4, 512]);
    expect(caseta).toMatchObject({ source_type: 'Point', hectares: 0.75 }); // a numeric string, as KML and DBF carry numbers
    expect(meta(caseta!.local_id)).toEqual({});
    // Every parcel is queued for the service.
    expect(t.mirror.read.outbox(ACCOUNT).filter((o) => o.entity === 'parcel' && o.op === 'create')).toHaveLength(7);
  });

  it('refuses a feature whose property is a number too large for a double (1e400), naming it, instead of dropping the property', async () => {
    const text = featureCollection([polygonFeature({ name: 'Huge', big: 7, ok: 2 }, [square(-5.9, 37.4)])]).replace('"big":7', '"big":1e400');
    const e = await expectImportError(importFile(t.mirror, t.file('big.geojson', text), opts));
    expect(e.problems).toEqual([expect.objectContaining({ code: 'metadata_out_of_range', message: expect.stringMatching(/Feature 0 'Huge': property 'big' is a number too large/) })]);
    expectNothingCreated();
    // Written as text it is kept, and a NaN-free file with ordinary numbers imports as before.
    const ok = await importFile(t.mirror, t.file('big-text.geojson', text.replace('1e400', '"1e400"')), opts);
    expect(ok.imported).toBe(1);
  });

  it('says so when the file is not valid UTF-8 (the bytes that are not become U+FFFD)', async () => {
    const text = featureCollection([polygonFeature({ name: 'Caf\u00e9', crop: 'olive' }, [square(-5.9, 37.4)])]);
    // Latin-1 bytes for "é": invalid as UTF-8.
    const latin1 = Buffer.from(text, 'latin1');
    const report = await importFile(t.mirror, t.file('latin1.geojson', latin1), opts);
    expect(report.imported).toBe(1);
    expect(report.notes).toEqual([expect.stringMatching(/latin1\.geojson is not valid UTF-8: .*U\+FFFD/)]);
    expect(t.mirror.read.allParcels(ACCOUNT)[0]!.name).toBe('Caf\uFFFD');
    const clean = await importFile(t.mirror, t.file('utf8.geojson', Buffer.from(text, 'utf8')), { ...opts, farmName: 'Other' });
    expect(clean.notes).toEqual([]);
  });

  it('refuses a property nested too deeply to keep as text with a clear problem, not a stack overflow', async () => {
    const text = featureCollection([polygonFeature({ name: 'Deep', x: 0 }, [square(-5.9, 37.4)])]).replace('"x":0', `"x":${'['.repeat(200_000)}${']'.repeat(200_000)}`);
    const e = await expectImportError(importFile(t.mirror, t.file('deep.geojson', text), opts));
    expect(e.problems).toEqual([expect.objectContaining({ code: 'metadata_too_deep', message: "Feature 0 'Deep': property 'x' is nested too deeply to keep as text" })]);
    expectNothingCreated();
  });

  it('refuses coordinates nested hundreds of thousands deep with the problem of their shape, not a stack overflow', async () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    for (const type of ['Polygon', 'MultiPolygon']) {
      const text = `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"x"},"geometry":{"type":"${type}","coordinates":${deep}}}]}`;
      const e = await expectImportError(importFile(t.mirror, t.file('deep.geojson', text), opts));
      expect(e.code).toBe('invalid_features');
      expect(e.problems.map((p) => p.code)).toContain('position_invalid');
      expectNothingCreated();
    }
  });

  it('takes the first present name property in order name, Name, NAME, nombre, label', async () => {
    const file = t.file('names.geojson', featureCollection([
      polygonFeature({ name: '   ', Name: 'From Name', nombre: 'x' }, [square(-5.9, 37.4)]),
      polygonFeature({ nombre: 'Parcela', label: 'L' }, [square(-5.8, 37.4)]),
      polygonFeature({ label: 1234 }, [square(-5.7, 37.4)]),
    ]));
    const report = await importFile(t.mirror, file, opts);
    const parcels = t.mirror.read.parcels(report.farm.local_id);
    expect(parcels.map((p) => p.name)).toEqual(['From Name', 'Parcela', '1234']);
    // Only the property that named the parcel is left out of metadata.
    expect(meta(parcels[0]!.local_id)).toEqual({ name: '   ', nombre: 'x' });
    expect(meta(parcels[1]!.local_id)).toEqual({ label: 'L' });
  });

  it('adds to the live farm of that name instead of creating another', async () => {
    const farm = t.mirror.write.createFarm(ACCOUNT, 'Cortijo Norte');
    const file = t.file('one.geojson', featureCollection([polygonFeature({ name: 'A' }, [square(-5.9, 37.4)])]));
    const report = await importFile(t.mirror, file, opts);
    expect(report.farm.local_id).toBe(farm.local_id);
    expect(t.mirror.read.farms(ACCOUNT)).toHaveLength(1);
  });

  it('aborts on any invalid feature, naming each by its index in the file, and creates nothing (not even the farm)', async () => {
    const file = t.file('bad.geojson', featureCollection([
      polygonFeature({ name: 'ok' }, [square(-5.9, 37.4)]),
      { type: 'Feature', properties: { name: 'road' }, geometry: { type: 'LineString', coordinates: [[-5.9, 37.4], [-5.8, 37.5]] } },
      pointFeature({ name: 'well' }, [-5.89, 37.41]),
      { type: 'Feature', properties: {}, geometry: { type: 'GeometryCollection', geometries: [] } },
      { type: 'Feature', properties: {}, geometry: null },
      polygonFeature({ name: 'huge' }, [square(-5.9, 37.4, 0.5)]),
      polygonFeature({ name: 'open ring' }, [square(-5.9, 37.4).slice(0, 4)]),
    ]));
    const e = await expectImportError(importFile(t.mirror, file, opts));
    expect(e.code).toBe('invalid_features');
    expect(e.problems.map((p) => [p.index, p.code])).toEqual([
      [1, 'geometry_type'], [2, 'hectares_missing'], [3, 'geometry_type'], [4, 'geom_not_feature'], [5, 'area_over_limit'], [6, 'ring_not_closed'],
    ]);
    // Each names the feature as the user knows it (its index and name), in the words of a file, not of the API.
    expect(e.problems[0]!.message).toBe("Feature 1 'road': a LineString cannot be a parcel; only Polygon, MultiPolygon and Point (with hectares) can");
    expect(e.problems[1]!.message).toBe(`Feature 2 'well': a point becomes a parcel only with its area: give it a "hectares" property, a number above 0 (it has none)`);
    expect(e.problems[1]!.message).not.toMatch(/geom\.|metadata\./);
    expect(e.problems[3]!.message).toBe('Feature 4: has no geometry');
    expect(e.message).toContain('6 of 7 feature(s) cannot be imported');
    expect(e.counts).toEqual({ features: 7, valid: 1, invalid: 6 });
    expectNothingCreated();
  });

  it('keeps the whole file all-or-nothing across chunks: a bad feature after the first chunk undoes the first', async () => {
    const n = IMPORT_CHUNK + 10;
    const features = Array.from({ length: n }, (_, i) => pointFeature({ name: `P${i}`, hectares: 1 }, [-6 + (i % 100) * 0.01, 37 + Math.floor(i / 100) * 0.01]));
    features[n - 3] = pointFeature({ name: 'no area' }, [-5, 37]);
    const file = t.file('many.geojson', featureCollection(features));
    const progress: [number, number][] = [];
    const e = await expectImportError(importFile(t.mirror, file, { ...opts, onProgress: (d, total) => progress.push([d, total]) }));
    expect(e.problems).toEqual([expect.objectContaining({ index: n - 3, code: 'hectares_missing' })]);
    expect(progress).toEqual([[0, n], [IMPORT_CHUNK, n], [n, n]]);
    expectNothingCreated();
  });

  it('with skipInvalid imports the valid features and reports the others', async () => {
    const file = t.file('mixed.geojson', featureCollection([
      polygonFeature({ name: 'A' }, [square(-5.9, 37.4)]),
      pointFeature({ name: 'no area' }, [-5.89, 37.41]),
      polygonFeature({ name: 'B' }, [square(-5.8, 37.4)]),
      { type: 'Feature', properties: { name: 'bad part' }, geometry: { type: 'MultiPolygon', coordinates: [[square(-5.7, 37.4)], [square(-5.6, 37.4).slice(0, 3)]] } },
    ]));
    const report = await importFile(t.mirror, file, { ...opts, skipInvalid: true });
    expect(report.imported).toBe(2);
    expect(report.parts).toBe(0);
    expect(t.mirror.read.parcels(report.farm.local_id).map((p) => p.name)).toEqual(['A', 'B']);
    // A MultiPolygon with one bad part is left out whole: half a field is not imported as if complete.
    expect(report.skipped).toEqual([
      { index: 1, code: 'hectares_missing', message: expect.stringMatching(/^Feature 1 'no area': /) as unknown },
      { index: 3, part: 2, code: 'ring_too_short', message: expect.stringMatching(/^Feature 3 'bad part' \(part 2 of 2\): /) as unknown },
      { index: 3, part: 2, code: 'ring_not_closed', message: expect.stringMatching(/^Feature 3 'bad part' \(part 2 of 2\): /) as unknown },
    ]);
  });

  it('with skipInvalid and no valid feature at all still fails and creates nothing', async () => {
    const file = t.file('allbad.geojson', featureCollection([pointFeature({}, [-5.9, 37.4])]));
    const e = await expectImportError(importFile(t.mirror, file, { ...opts, skipInvalid: true }));
    expect(e.problems).toHaveLength(1);
    expectNothingCreated();
  });

  it('is one undo step per chunk, the new farm in the first one: undone, nothing of the import is left to sync', async () => {
    const file = t.file('two.geojson', featureCollection([polygonFeature({ name: 'A' }, [square(-5.9, 37.4)]), polygonFeature({ name: 'B' }, [square(-5.8, 37.4)])]));
    const report = await importFile(t.mirror, file, opts);
    expect(t.mirror.write.undo()).toBe('Import two.geojson');
    expect(t.mirror.read.parcels(report.farm.local_id)).toEqual([]);
    expect(t.mirror.read.farms(ACCOUNT)).toEqual([]);
    expect(t.mirror.read.outbox(ACCOUNT)).toEqual([]);
    expect(t.mirror.read.canUndo()).toBe(false);
    // Redo brings the farm and its parcels back, queued again.
    expect(t.mirror.write.redo()).toBe('Import two.geojson');
    expect(t.mirror.read.farms(ACCOUNT).map((f) => f.name)).toEqual(['Cortijo Norte']);
    expect(t.mirror.read.parcels(report.farm.local_id).map((p) => p.name)).toEqual(['A', 'B']);
    expect(t.mirror.read.outbox(ACCOUNT).map((o) => `${o.entity} ${o.op}`).sort()).toEqual(['farm create', 'parcel create', 'parcel create']);
  });

  it('leaves an existing farm when its import is undone', async () => {
    const farm = t.mirror.write.createFarm(ACCOUNT, 'Cortijo Norte');
    await importFile(t.mirror, t.file('one.geojson', featureCollection([polygonFeature({ name: 'A' }, [square(-5.9, 37.4)])])), opts);
    expect(t.mirror.write.undo()).toBe('Import one.geojson');
    expect(t.mirror.read.farms(ACCOUNT).map((f) => f.local_id)).toEqual([farm.local_id]);
  });

  it("queues the delete of a new farm the service has already, and keeps one that holds others' parcels", async () => {
    const report = await importFile(t.mirror, t.file('one.geojson', featureCollection([polygonFeature({ name: 'A' }, [square(-5.9, 37.4)])])), opts);
    // Synced: the service answered the farm's and the parcel's creates.
    const db = t.mirror.syncDb;
    db.prepare("UPDATE farms SET server_id = 41 WHERE local_id = ?").run(report.farm.local_id);
    db.prepare("UPDATE parcels SET server_id = 42 WHERE farm_local_id = ?").run(report.farm.local_id);
    db.prepare("UPDATE outbox SET state = 'committed'").run();
    expect(t.mirror.write.undo()).toBe('Import one.geojson');
    expect(t.mirror.read.farms(ACCOUNT)).toEqual([]);
    expect(t.mirror.read.outbox(ACCOUNT).filter((o) => o.state !== 'committed').map((o) => `${o.entity} ${o.op}`).sort()).toEqual(['farm delete', 'parcel delete']);

    // Another import into a new farm, then a parcel of the service's lands in it (a pull): undone, the farm stays.
    const second = await importFile(t.mirror, t.file('two.geojson', featureCollection([polygonFeature({ name: 'B' }, [square(-5.8, 37.4)])])), { ...opts, farmName: 'Dehesa' });
    const pulled = t.mirror.read.parcels(second.farm.local_id)[0]!;
    const cols = (db.prepare('PRAGMA table_info(parcels)').all() as { name: string }[]).map((c) => c.name);
    const values = cols.map((c) => (c === 'local_id' ? "'pulled-1'" : c === 'server_id' ? '77' : c));
    db.prepare(`INSERT INTO parcels (${cols.join(', ')}) SELECT ${values.join(', ')} FROM parcels WHERE local_id = ?`).run(pulled.local_id);
    expect(t.mirror.write.undo()).toBe('Import two.geojson');
    expect(t.mirror.read.farms(ACCOUNT).map((f) => f.name)).toEqual(['Dehesa']);
    expect(t.mirror.read.parcels(second.farm.local_id).map((p) => p.local_id)).toEqual(['pulled-1']);
  });

  it('accepts a single Feature or a bare geometry, and detects GeoJSON by content', async () => {
    const a = await importFile(t.mirror, t.file('a.json', JSON.stringify(polygonFeature({ name: 'Single' }, [square(-5.9, 37.4)]))), opts);
    const b = await importFile(t.mirror, t.file('b.txt', `\uFEFF  ${JSON.stringify({ type: 'Polygon', coordinates: [square(-5.8, 37.4)] })}`), opts);
    expect(a.imported + b.imported).toBe(2);
    expect(t.mirror.read.parcels(a.farm.local_id).map((p) => p.name)).toEqual(['Single', 'Cortijo Norte 1']);
  });

  it('refuses unreadable and empty files, and coordinate systems it cannot use, with a clear error', async () => {
    expect((await expectImportError(importFile(t.mirror, t.file('x.geojson', '{"type":'), opts))).code).toBe('unreadable');
    expect((await expectImportError(importFile(t.mirror, t.file('x.geojson', '{"type":"Topology"}'), opts))).code).toBe('unreadable');
    expect((await expectImportError(importFile(t.mirror, t.file('e.geojson', featureCollection([])), opts))).code).toBe('empty');
    expect((await expectImportError(importFile(t.mirror, t.file('x.bin', 'hello'), opts))).code).toBe('unsupported_format');
    expect((await expectImportError(importFile(t.mirror, t.file('missing.geojson', ''), { ...opts, accountId: 'acc-nope' }))).code).toBe('no_account');
    const projected = { type: 'FeatureCollection', crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::27700' } }, features: [polygonFeature({}, [square(400000, 300000, 100)])] };
    // British National Grid's datum shift is an NTv2 grid (OSTN15): without it the file is refused, naming the grid.
    const e = await expectImportError(importFile(t.mirror, t.file('bng.geojson', JSON.stringify(projected)), { ...opts, gridDirs: ['/nowhere/grids'] }));
    expect(e.code).toBe('grid_missing');
    expect(e.message).toBe('bng.geojson: EPSG:27700 (OSGB36 / British National Grid) needs the NTv2 grid file OSTN15_NTv2_OSGBtoETRS.gsb for its datum shift, ' +
      `the only accurate one, and Furrow does not have it; put the grid file in /nowhere/grids and import the file again, or ${REPROJECT}`);
    expect(REPROJECT).toMatch(/QGIS .*ogr2ogr -t_srs EPSG:4326$/);
    const named = (name: string) => ({ ...projected, crs: { type: 'name', properties: { name } } });
    // A vertical CRS (EGM96 height), a code EPSG does not have, a name that is no EPSG code.
    expect(await expectImportError(importFile(t.mirror, t.file('v.geojson', JSON.stringify(named('EPSG:5773'))), opts)))
      .toMatchObject({ code: 'crs_unsupported', message: expect.stringMatching(/^v\.geojson: its "crs" member names EPSG:5773, a vertcrs coordinate system, not a projected or geographic one/) as unknown });
    expect(await expectImportError(importFile(t.mirror, t.file('u.geojson', JSON.stringify(named('EPSG:1'))), opts)))
      .toMatchObject({ code: 'crs_unknown', message: expect.stringMatching(/^u\.geojson: its "crs" member names EPSG:1, which is not in the EPSG definitions Furrow has/) as unknown });
    expect(await expectImportError(importFile(t.mirror, t.file('w.geojson', JSON.stringify(named('urn:ogc:def:crs:ESRI::102001'))), opts)))
      .toMatchObject({ code: 'crs_unknown', message: expect.stringMatching(/names urn:ogc:def:crs:ESRI::102001, not an EPSG code Furrow can look up/) as unknown });
    const wgs84 = { ...projected, crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:OGC:1.3:CRS84' } }, features: [polygonFeature({}, [square(-5.9, 37.4)])] };
    expect((await importFile(t.mirror, t.file('crs84.geojson', JSON.stringify(wgs84)), opts)).imported).toBe(1);
  });

  it('refuses a projected file without "crs" with one message for the file, not one per feature', async () => {
    // UTM zone 30N metres, as QGIS writes them when the crs member is dropped (RFC 7946 mode, say).
    const features = Array.from({ length: 30 }, (_, i) => polygonFeature({ name: `P${i}` }, [square(440_000 + i * 200, 4_140_000, 100)]));
    for (const skipInvalid of [false, true]) {
      const e = await expectImportError(importFile(t.mirror, t.file('utm-nocrs.geojson', featureCollection(features)), { ...opts, skipInvalid }));
      expect(e.code).toBe('projection');
      expect(e.problems).toEqual([]);
      expect(e.message).toMatch(/^utm-nocrs\.geojson: none of its coordinates are longitude\/latitude \(ring 0 position 0 has longitude 440000, outside \[-180, 180\]\), so it is in a projected coordinate system .*no "crs" member.*reproject it to WGS84/);
    }
    expectNothingCreated();
  });

  it('keeps a "__proto__" property as an ordinary metadata key', async () => {
    const file = t.file('proto.geojson', `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"P","__proto__":"x"},"geometry":{"type":"Polygon","coordinates":${JSON.stringify([square(-5.9, 37.4)])}}}]}`);
    const report = await importFile(t.mirror, file, opts);
    const [p] = t.mirror.read.parcels(report.farm.local_id);
    expect(Object.entries(meta(p!.local_id))).toEqual([['__proto__', 'x']]);
  });
});
