import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { csvField, exportCSV, exportFile, exportGeoJSON, polygonWkt, spreadsheetSafe, wktNumber } from './export.ts';
import { importFile } from './import/index.ts';
import { ACCOUNT, featureCollection, pointFeature, polygonFeature, square, tempMirror, type TempMirror } from './import/fixtures/temp-mirror.ts';

let t: TempMirror;
beforeEach(() => {
  t = tempMirror();
});
afterEach(() => t.close());

/** A strict RFC 4180 reader, for checking what the exporter wrote. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (text[i] === '"' && text[i + 1] === '"') { field += '"'; i += 2; } else if (text[i] === '"') { i++; break; } else field += text[i++];
      }
    } else if (text.startsWith('\r\n', i)) {
      row.push(field); rows.push(row); row = []; field = ''; i += 2;
    } else if (text[i] === ',') {
      row.push(field); field = ''; i++;
    } else {
      expect(text[i]).not.toMatch(/[\r\n"]/); // bare CR, LF or quote outside quotes is not RFC 4180
      field += text[i++];
    }
  }
  expect(field).toBe(''); // the last record ends with CRLF
  return rows;
}

function farmWith(name: string, inputs: unknown[]): string {
  const farm = t.mirror.write.createFarm(ACCOUNT, name);
  t.mirror.write.createParcels(farm.local_id, inputs);
  return farm.local_id;
}

const polygonInput = (name: string, metadata: Record<string, unknown>, rings: number[][][]) => ({ name, metadata, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: rings } } });
const pointInput = (name: string, metadata: Record<string, unknown>, at: number[], hectares: number) => ({ name, metadata, geom: { type: 'Feature', properties: { metadata: { hectares } }, geometry: { type: 'Point', coordinates: at } } });

describe('exportGeoJSON', () => {
  it('round-trips through importFile: names, metadata (even keys named like its own fields), areas and kinds', async () => {
    const source = await importFile(t.mirror, t.file('in.geojson', featureCollection([
      polygonFeature({ name: 'Olivar', crop: 'olive', year: 2024, organic: true }, [square(-5.9, 37.4, 0.003), square(-5.899, 37.401)]),
      pointFeature({ name: 'Pozo', hectares: 2.75, 'Supplier ID': 'SUP-1' }, [-5.89, 37.41]),
      { type: 'Feature', properties: { name: 'Viña' }, geometry: { type: 'MultiPolygon', coordinates: [[square(-5.88, 37.4)], [square(-5.87, 37.4)]] } },
      polygonFeature({ name: 'Alto' }, [square(-5.86, 37.4).map(([x, y]) => [x!, y!, 700])]),
    ])), { accountId: ACCOUNT, farmName: 'Origen' });
    // Metadata keys that collide with the export's own properties, or look escaped, must survive too.
    t.mirror.write.createParcels(source.farm.local_id, [
      polygonInput('Raro', { name: 'n', farm: 'f', hectares: 99, server_id: 's', local_id: 'l', 'metadata:x': 1, 'metadata:name': 2, Name: 'N' }, [square(-5.85, 37.4)]),
    ]);
    const before = t.mirror.read.parcels(source.farm.local_id);

    const text = exportGeoJSON(t.mirror.read, { farmLocalId: source.farm.local_id });
    const doc = JSON.parse(text) as { features: { id: string; geometry: { type: string }; properties: Record<string, unknown> }[] };
    expect(doc.features[1]!.geometry.type).toBe('Point');
    expect(doc.features[0]!.properties).toEqual({
      name: 'Olivar', farm: 'Origen', hectares: before[0]!.hectares, server_id: null, local_id: before[0]!.local_id, crop: 'olive', year: 2024, organic: true,
    });
    expect(doc.features[5]!.properties).toMatchObject({ name: 'Raro', 'metadata:name': 'n', 'metadata:farm': 'f', 'metadata:metadata:x': 1, Name: 'N' });

    const copy = await importFile(t.mirror, t.file('out.geojson', text), { accountId: ACCOUNT, farmName: 'Copia' });
    expect(copy.imported).toBe(before.length);
    const after = t.mirror.read.parcels(copy.farm.local_id);
    const view = (rows: typeof before) => rows.map((r) => ({
      name: r.name, metadata: JSON.parse(r.metadata) as unknown, hectares: r.hectares, source_type: r.source_type, point: r.point, geometry: r.geometry,
    }));
    expect(view(after)).toEqual(view(before));
  });

  it('filters by account or farm', async () => {
    t.mirror.write.addAccount({ id: 'acc-other', service_url: 'http://127.0.0.1:1', mode: 'api_key' });
    const a = farmWith('A', [polygonInput('a1', {}, [square(-5.9, 37.4)])]);
    farmWith('B', [polygonInput('b1', {}, [square(-5.8, 37.4)])]);
    const other = t.mirror.write.createFarm('acc-other', 'C');
    t.mirror.write.createParcels(other.local_id, [polygonInput('c1', {}, [square(-5.7, 37.4)])]);
    const names = (text: string) => (JSON.parse(text) as { features: { properties: { name: string } }[] }).features.map((f) => f.properties.name);
    expect(names(exportGeoJSON(t.mirror.read, { farmLocalId: a }))).toEqual(['a1']);
    expect(names(exportGeoJSON(t.mirror.read, { accountId: ACCOUNT }))).toEqual(['a1', 'b1']);
    expect(names(exportGeoJSON(t.mirror.read))).toEqual(['a1', 'b1', 'c1']);
  });
});

describe('exportCSV', () => {
  it('writes RFC 4180 with every metadata key seen, quoting commas, quotes and line breaks', () => {
    const farm = farmWith('Finca "La Loma", Sur', [
      polygonInput('Plain', { crop: 'wheat', year: 2024 }, [square(-5.9, 37.4)]),
      polygonInput('Comma, "quoted"\nand a new line', { note: 'a,b "c"\r\nd', organic: false, name: 'collides' }, [square(-5.8, 37.4)]),
      pointInput('Pozo', {}, [-5.7, 37.4], 1.5),
    ]);
    t.mirror.syncDb.prepare("UPDATE parcels SET server_id = 4711 WHERE name = 'Plain'").run();
    const text = exportCSV(t.mirror.read, { farmLocalId: farm });
    expect(text.endsWith('\r\n')).toBe(true);
    const rows = parseCsv(text);
    expect(rows[0]).toEqual(['local_id', 'server_id', 'farm', 'name', 'hectares', 'wkt', 'crop', 'year', 'note', 'organic', 'metadata:name']);
    const parcels = t.mirror.read.parcels(farm);
    expect(rows.slice(1).map((r) => r.length)).toEqual([11, 11, 11]);
    expect(rows[1]!.slice(0, 5)).toEqual([parcels[0]!.local_id, '4711', 'Finca "La Loma", Sur', 'Plain', String(parcels[0]!.hectares)]);
    expect(rows[1]!.slice(6)).toEqual(['wheat', '2024', '', '', '']);
    expect(rows[2]!.slice(1, 4)).toEqual(['', 'Finca "La Loma", Sur', 'Comma, "quoted"\nand a new line']);
    expect(rows[2]!.slice(6)).toEqual(['', '', 'a,b "c"\r\nd', 'false', 'collides']);
    expect(rows[3]![5]).toMatch(/^POLYGON\(\(-5\.70\d+ 37\.39\d+, .*\)\)$/); // a point parcel's square
    expect(rows[3]![5]!.split(',')).toHaveLength(5);
  });

  it('writes names, farm names, keys and text values a spreadsheet would run as formulas as text', () => {
    const farm = farmWith('=Farm', [polygonInput('=1+1', { '@key': '-2+3+cmd', depth: -12.5, code: '+34' }, [square(-5.9, 37.4)])]);
    const rows = parseCsv(exportCSV(t.mirror.read, { farmLocalId: farm }));
    expect(rows[0]!.slice(6)).toEqual(["'@key", 'depth', 'code']);
    expect([rows[1]![2], rows[1]![3], ...rows[1]!.slice(6)]).toEqual(["'=Farm", "'=1+1", "'-2+3+cmd", '-12.5', '+34']);
  });

  it('quotes only what needs quoting', () => {
    expect(csvField('plain')).toBe('plain');
    // CSV injection: a formula reaches a spreadsheet as text; a plain number stays a number.
    for (const formula of ['=1+1', '+SUM(A1)', '-2+3+cmd|\' /C calc\'!A0', '@SUM(A1)', '\t=1', '\r=1', '=HYPERLINK("http://x")']) expect(spreadsheetSafe(formula)).toBe(`'${formula}`);
    for (const plain of ['-12.5', '+3', '-1e-7', '.5', 'wheat', '', 'a=b', "'already"]) expect(spreadsheetSafe(plain)).toBe(plain);
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line\nbreak')).toBe('"line\nbreak"');
    expect(csvField('cr\r')).toBe('"cr\r"');
    expect(csvField('')).toBe('');
  });
});

describe('WKT', () => {
  it('writes polygons with holes, longitude first, closed rings as stored', () => {
    expect(polygonWkt({ coordinates: [[[30, 10], [40, 40], [20, 40], [10, 20], [30, 10]], [[25, 25], [30, 30], [25, 30], [25, 25]]] }))
      .toBe('POLYGON((30 10, 40 40, 20 40, 10 20, 30 10), (25 25, 30 30, 25 30, 25 25))');
    expect(polygonWkt({ coordinates: [[[-5.9, 37.4, 700], [-5.8, 37.4, 701], [-5.8, 37.5, 702], [-5.9, 37.4, 700]]] }))
      .toBe('POLYGON Z((-5.9 37.4 700, -5.8 37.4 701, -5.8 37.5 702, -5.9 37.4 700))');
    // Mixed 2D and 3D positions cannot be written as one WKT dimension: z is dropped.
    expect(polygonWkt({ coordinates: [[[0, 0, 1], [1, 0], [1, 1, 1], [0, 0, 1]]] })).toBe('POLYGON((0 0, 1 0, 1 1, 0 0))');
  });

  it('never writes numbers in exponent form', () => {
    expect(wktNumber(12.5)).toBe('12.5');
    expect(wktNumber(-0.25)).toBe('-0.25');
    expect(wktNumber(1e-7)).toBe('0.0000001');
    expect(wktNumber(-1.5e-7)).toBe('-0.00000015');
    expect(wktNumber(1.234e-10)).toBe('0.0000000001234');
    expect(wktNumber(1e21)).toBe('1000000000000000000000');
    expect(wktNumber(2.5e22)).toBe('25000000000000000000000');
    for (const n of [1e-7, -1.5e-7, 1.234e-10, 1e21, 2.5e22]) expect(Number(wktNumber(n))).toBe(n);
  });
});

describe('exportFile', () => {
  it('chooses the format by extension and writes the file', async () => {
    farmWith('A', [polygonInput('a1', { k: 'v' }, [square(-5.9, 37.4)])]);
    expect(await exportFile(t.mirror, join(t.dir, 'out.csv'), { accountId: ACCOUNT })).toEqual({ format: 'csv', parcels: 1 });
    expect(readFileSync(join(t.dir, 'out.csv'), 'utf8')).toMatch(/^local_id,server_id,farm,name,hectares,wkt,k\r\n/);
    expect(await exportFile(t.mirror, join(t.dir, 'out.GeoJSON'))).toEqual({ format: 'geojson', parcels: 1 });
    expect(JSON.parse(readFileSync(join(t.dir, 'out.GeoJSON'), 'utf8'))).toMatchObject({ type: 'FeatureCollection', features: [{ properties: { name: 'a1', k: 'v' } }] });
    await expect(exportFile(t.mirror, join(t.dir, 'out.xlsx'))).rejects.toThrow(/\.geojson, \.json or \.csv/);
  });

  // Over two pages of 2,000: the file is written a page at a time, with a turn of the event loop between pages.
  const many = (n: number, tag: string) => Array.from({ length: n }, (_, i) => polygonInput(`${tag}${i}`, i === n - 1 ? { late: 'key' } : { i }, [square(-5 + (i % 100) * 0.002, 37 + Math.floor(i / 100) * 0.002)]));

  it.each(['geojson', 'csv'])('%s: writes page by page with progress, the mirror as it was when it began, in the order of the one-string export', async (ext) => {
    const farm = farmWith('Big', many(4500, 'p'));
    const file = join(t.dir, `big.${ext}`);
    const progress: [number, number][] = [];
    const r = await exportFile(t.mirror, file, {
      farmLocalId: farm,
      onProgress: (done, total) => {
        progress.push([done, total]);
        // Edited and added while the export runs: not in it.
        if (progress.length === 2) {
          t.mirror.write.createParcels(farm, [polygonInput('added later', {}, [square(-4, 38)])]);
          t.mirror.write.updateParcel(t.mirror.read.parcels(farm)[4400]!.local_id, { name: 'renamed later' });
        }
      },
    });
    expect(r.parcels).toBe(4500);
    expect(progress).toEqual([[0, 4500], [2000, 4500], [4000, 4500], [4500, 4500]]);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toMatch(/added later|renamed later/);
    t.mirror.write.undo();
    t.mirror.write.undo();
    expect(text).toBe(ext === 'csv' ? exportCSV(t.mirror.read, { farmLocalId: farm }) : exportGeoJSON(t.mirror.read, { farmLocalId: farm }));
    if (ext === 'csv') expect(text.split('\r\n')[0]).toMatch(/,i,late$/);
  });

  it('cancelled halfway: nothing under the name asked for, an earlier export left whole, no temporary file', async () => {
    farmWith('Big', many(4500, 'c'));
    const file = join(t.dir, 'out.geojson');
    writeFileSync(file, 'the earlier export');
    const stop = new AbortController();
    await expect(exportFile(t.mirror, file, { signal: stop.signal, onProgress: (done) => { if (done > 0) stop.abort(); } })).rejects.toMatchObject({ name: 'AbortError' });
    expect(readFileSync(file, 'utf8')).toBe('the earlier export');
    expect(readdirSync(t.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    await expect(exportFile(t.mirror, join(t.dir, 'never.csv'), { signal: stop.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(existsSync(join(t.dir, 'never.csv'))).toBe(false);
  });
});
