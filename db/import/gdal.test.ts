// Files as GDAL writes them (fixtures/gdal.ts): the committed copies are imported, and where ogr2ogr is installed a
// freshly written file must decode exactly like its committed copy.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { zipSync, unzipSync } from 'fflate';
import { importFile } from './index.ts';
import { readImportSource } from './read.ts';
import { dbfEncoding } from './dbf-encoding.ts';
import { ACCOUNT, tempMirror, type TempMirror } from './fixtures/temp-mirror.ts';
import { GDAL_AVAILABLE, GDAL_FIXTURES, committedGdalFixture, generateGdalFixture, type GdalFixture } from './fixtures/gdal.ts';

let t: TempMirror;
beforeEach(() => {
  t = tempMirror();
});
afterEach(() => t.close());

const opts = { accountId: ACCOUNT, farmName: 'Finca GDAL' };
const meta = (localId: string) => JSON.parse(t.mirror.read.parcel(localId)!.metadata) as Record<string, unknown>;
const imported = async (name: GdalFixture, bytes: Uint8Array = committedGdalFixture(name)) => {
  const report = await importFile(t.mirror, t.file(name, bytes), opts);
  return { report, parcels: t.mirror.read.parcels(report.farm.local_id) };
};
const coordinates = (geometry: string) => (JSON.parse(geometry) as { coordinates: number[][][] }).coordinates;

describe('files written by GDAL', () => {
  it('a UTF-8 DBF without its .cpg is read as UTF-8 (only the records are checked, not the binary header)', async () => {
    const { parcels } = await imported('utf8-no-cpg.zip');
    expect(parcels.map((p) => p.name)).toEqual(['Cañada Real', 'Olivar de la Peña']);
    expect(meta(parcels[0]!.local_id)).toEqual({ cultivo: 'trigo', nota: 'año 2024 — ñandú' });
  });

  it("a DBF whose header's language driver id says code page 1251 (no .cpg) is read as such", async () => {
    const { report, parcels } = await imported('cp1251-ldid.zip');
    expect(parcels.map((p) => p.name)).toEqual(['Поле у реки', 'Сад']);
    expect(meta(parcels[1]!.local_id)).toEqual({ culture: 'яблоня' });
    expect(report.notes).toEqual([]);
  });

  it('PolygonZ keeps each height as the third number of its position', async () => {
    const { report, parcels } = await imported('polygonz.zip');
    expect(report.notes).toEqual([]);
    expect(parcels.map((p) => p.name)).toEqual(['Terraza alta', 'Terraza baja']);
    // The writer turns rings clockwise; every position still has its own height.
    const ring = coordinates(parcels[0]!.geometry)[0]!;
    expect(ring).toHaveLength(5);
    expect(ring.every((p) => p.length === 3)).toBe(true);
    expect(new Set(ring.map((p) => `${p[0]},${p[1]}:${p[2]}`))).toEqual(new Set(['-3.6,37.1:812.5', '-3.599,37.1:813.5', '-3.599,37.101:814.5', '-3.6,37.101:815.5']));
    expect(coordinates(parcels[1]!.geometry)[0]!.map((p) => p[2])).toEqual(expect.arrayContaining([790.25, 793.25]));
    // The area is the ground's, as for the same polygon in 2D.
    expect(parcels[0]!.hectares).toBeGreaterThan(0.9);
    expect(parcels[0]!.hectares).toBeLessThan(1.0);
  });

  it('PointZ: the points are imported, and the summary says their heights are not kept', async () => {
    const { report, parcels } = await imported('pointz.zip');
    expect(parcels.map((p) => [p.name, p.source_type, p.hectares])).toEqual([['Pozo 1', 'Point', 1.5], ['Pozo 2', 'Point', 2.5]]);
    // Pozo 2 is at height 0: nothing lost there.
    expect(report.notes).toEqual(['the height (z) of 1 point(s) is not kept: a point parcel is the square of its hectares on the ground (polygons keep theirs)']);
  });

  it("a KMZ from the LIBKML driver: doc.kml's NetworkLinks to layers/*.kml inside the archive are followed", async () => {
    const { report, parcels } = await imported('libkml.kmz');
    expect(report).toMatchObject({ imported: 4, skipped: [] });
    expect(parcels.map((p) => p.name).sort()).toEqual(['Pozo 1', 'Pozo 2', 'Terraza alta', 'Terraza baja']);
    const alta = parcels.find((p) => p.name === 'Terraza alta')!;
    expect(meta(alta.local_id)).toEqual({ cultivo: 'almendro' });
    expect(coordinates(alta.geometry)[0]![0]).toHaveLength(3);
    expect(parcels.find((p) => p.name === 'Pozo 1')).toMatchObject({ source_type: 'Point', hectares: 1.5 });
    expect(report.notes).toEqual([expect.stringMatching(/^the height \(z\) of 1 point\(s\) is not kept/)]);
  });

  it.runIf(GDAL_AVAILABLE).each(GDAL_FIXTURES)('%s written now by ogr2ogr decodes exactly like the committed copy', async (name) => {
    const decode = async (bytes: Uint8Array) => {
      const source = await readImportSource(t.file(name, bytes), false);
      // In feature order, except that the order of a KMZ's layers follows GDAL's directory listing.
      const features = 'features' in source ? source.features.map((f) => JSON.stringify(f)) : null;
      return features && { features: name.endsWith('.kmz') ? features.sort() : features, notes: 'notes' in source ? source.notes : [] };
    };
    const fresh = await decode(generateGdalFixture(name));
    expect(fresh).not.toBeNull();
    expect(fresh).toEqual(await decode(committedGdalFixture(name)));
  });
});

describe('KMZ links that leave the archive', () => {
  const kml = (body: string) => new TextEncoder().encode(`<?xml version="1.0" encoding="UTF-8"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document>${body}</Document></kml>`);
  const link = (href: string) => `<NetworkLink><Link><href>${href}</href></Link></NetworkLink>`;
  const layer = unzipSync(committedGdalFixture('libkml.kmz'))['layers/terrazas.kml']!;

  it.each([
    ['http://example.com/fields.kml', /links to http:\/\/example\.com\/fields\.kml, outside the archive; .*never fetches/],
    ['/home/me/fields.kml', /outside the archive/],
    ['../fields.kml', /outside the archive/],
    ['layers/missing.kml', /links to layers\/missing\.kml, which the archive does not hold/],
  ])('%s is refused, with nothing imported', async (href, message) => {
    const kmz = zipSync({ 'doc.kml': kml(link('layers/terrazas.kml') + link(href)), 'layers/terrazas.kml': layer });
    await expect(importFile(t.mirror, t.file('links.kmz', kmz), opts)).rejects.toMatchObject({ code: 'external_link', message: expect.stringMatching(message) as unknown });
    expect(t.mirror.read.farms(ACCOUNT)).toEqual([]);
  });

  it('a relative link from a subfolder (layers/a.kml → ../b.kml, escaped spaces) resolves inside the archive; a cycle is read once', async () => {
    const kmz = zipSync({
      'doc.kml': kml(link('layers/a.kml')),
      'layers/a.kml': kml(`${link('../other%20layers/b.kml')}${link('../doc.kml')}`),
      'other layers/b.kml': layer,
    });
    const report = await importFile(t.mirror, t.file('nested.kmz', kmz), opts);
    expect(t.mirror.read.parcels(report.farm.local_id).map((p) => p.name)).toEqual(['Terraza alta', 'Terraza baja']);
  });

  it('a plain .kml with a NetworkLink is refused: the content is elsewhere', async () => {
    await expect(importFile(t.mirror, t.file('linked.kml', kml(link('layers/terrazas.kml'))), opts))
      .rejects.toMatchObject({ code: 'external_link', message: expect.stringMatching(/^linked\.kml links to layers\/terrazas\.kml \(a NetworkLink\)/) as unknown });
  });
});

describe('dbfEncoding', () => {
  /** A DBF of one record: 32-byte header (LDID at byte 29), one field descriptor, the terminator, the record. */
  function dbf(ldid: number, record: number[]): Uint8Array {
    const header = new Uint8Array(32 + 32 + 1);
    header[0] = 3;
    header[4] = 1;
    const headerLength = header.length;
    header[8] = headerLength & 0xff;
    header[9] = headerLength >> 8;
    header[10] = record.length + 1;
    header[29] = ldid;
    header.set(new TextEncoder().encode('NAME'), 32);
    header[32 + 11] = 'C'.charCodeAt(0);
    header[32 + 16] = record.length;
    header[64] = 0x0d;
    return new Uint8Array([...header, 0x20, ...record, 0x1a]);
  }
  const cpg = (s: string) => new TextEncoder().encode(s);
  // "é" in UTF-8 is C3 A9, which Windows-1252 reads as "Ã©": only the declared encoding can tell them apart.
  const utf8E = [0xc3, 0xa9];

  it('takes the .cpg first, then the LDID, then UTF-8 when the records are valid UTF-8, then Windows-1252', () => {
    expect(dbfEncoding(cpg('1251'), dbf(87, utf8E), 'f')).toEqual({ encoding: 'windows-1251', from: 'cpg' });
    expect(dbfEncoding(cpg(' UTF-8\n'), dbf(0, utf8E), 'f')).toEqual({ encoding: 'utf-8', from: 'cpg' });
    expect(dbfEncoding(cpg('8859-5'), undefined, 'f')).toEqual({ encoding: 'iso-8859-5', from: 'cpg' });
    expect(dbfEncoding(undefined, dbf(87, utf8E), 'f')).toEqual({ encoding: 'windows-1252', from: 'ldid' });
    expect(dbfEncoding(undefined, dbf(201, [0xcf, 0xee]), 'f')).toEqual({ encoding: 'windows-1251', from: 'ldid' });
    expect(dbfEncoding(undefined, dbf(0, utf8E), 'f')).toEqual({ encoding: 'utf-8', from: 'utf-8 records' });
    expect(dbfEncoding(undefined, dbf(0, [0xe9]), 'f')).toEqual({ encoding: 'windows-1252', from: 'default' });
  });

  it('passes over a code page it cannot decode, and says so', () => {
    expect(dbfEncoding(cpg('x-unknown-charset'), dbf(0, utf8E), 'f.zip')).toEqual({
      encoding: 'utf-8', from: 'utf-8 records', note: 'f.zip: its .cpg names "x-unknown-charset", an encoding Furrow cannot read: its text was read as UTF-8; check accented letters',
    });
    // LDID 2 is DOS code page 850, which no TextDecoder reads.
    expect(dbfEncoding(undefined, dbf(2, [0xe9]), 'f.zip')).toMatchObject({ encoding: 'windows-1252', from: 'default', note: expect.stringContaining('code page 850') as unknown });
  });
});
