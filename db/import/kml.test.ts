import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { zipSync } from 'fflate';
import { ImportError, importFile } from './index.ts';
import { ACCOUNT, square, tempMirror, type TempMirror } from './fixtures/temp-mirror.ts';

let t: TempMirror;
beforeEach(() => {
  t = tempMirror();
});
afterEach(() => t.close());

const opts = { accountId: ACCOUNT, farmName: 'Finca KML' };
const meta = (localId: string) => JSON.parse(t.mirror.read.parcel(localId)!.metadata) as Record<string, unknown>;
const ring = (lon: number, lat: number) => square(lon, lat).map(([x, y]) => `${x},${y},0`).join(' ');
const polygon = (lon: number, lat: number) => `<Polygon><outerBoundaryIs><LinearRing><coordinates>${ring(lon, lat)}</coordinates></LinearRing></outerBoundaryIs></Polygon>`;

const KML = `<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2">
  <Document>
    <Style id="green"><PolyStyle><color>7f00ff00</color></PolyStyle><LineStyle><width>2</width></LineStyle></Style>
    <Schema name="parcel" id="parcel"><SimpleField name="contract_year" type="int"/></Schema>
    <Folder>
      <name>Campaign 2024</name>
      <Placemark>
        <name>Olivar viejo</name>
        <description><![CDATA[<b>Irrigated</b> since 2019]]></description>
        <styleUrl>#green</styleUrl>
        <ExtendedData>
          <Data name="Supplier ID"><value>SUP-00042</value></Data>
          <Data name="crop_type"><value>olive</value></Data>
          <SchemaData schemaUrl="#parcel"><SimpleData name="contract_year">2024</SimpleData></SchemaData>
        </ExtendedData>
        ${polygon(-5.9, 37.4)}
      </Placemark>
      <Placemark>
        <name>Pozo</name>
        <ExtendedData><Data name="hectares"><value>1.5</value></Data><Data name="depth"><value>40 m</value></Data></ExtendedData>
        <Point><coordinates>-5.89,37.41,0</coordinates></Point>
      </Placemark>
      <Placemark>
        <name>Viña</name>
        <MultiGeometry>${polygon(-5.88, 37.4)}${polygon(-5.87, 37.4)}</MultiGeometry>
      </Placemark>
    </Folder>
  </Document>
</kml>`;

describe('importFile: KML', () => {
  it('imports placemarks; names from <name>, ExtendedData as metadata, styles dropped, MultiGeometry split', async () => {
    const report = await importFile(t.mirror, t.file('fields.kml', KML), opts);
    expect(report).toMatchObject({ imported: 4, parts: 2, skipped: [] });
    const parcels = t.mirror.read.parcels(report.farm.local_id);
    expect(parcels.map((p) => p.name)).toEqual(['Olivar viejo', 'Pozo', 'Viña (part 1 of 2)', 'Viña (part 2 of 2)']);
    expect(meta(parcels[0]!.local_id)).toEqual({
      description: '<b>Irrigated</b> since 2019', 'Supplier ID': 'SUP-00042', crop_type: 'olive', contract_year: 2024,
    });
    expect(parcels[1]).toMatchObject({ source_type: 'Point', hectares: 1.5 });
    expect(meta(parcels[1]!.local_id)).toEqual({ depth: '40 m' });
    // KML carries an altitude; the position keeps it (the core accepts 2 or 3 numbers).
    expect(JSON.parse(parcels[0]!.geometry).coordinates[0][0]).toEqual([-5.9, 37.4, 0]);
  });

  it('reports an invalid placemark by its index and imports nothing', async () => {
    const kml = KML.replace('<Point><coordinates>-5.89,37.41,0</coordinates></Point>',
      '<LineString><coordinates>-5.89,37.41 -5.88,37.42</coordinates></LineString>');
    const e = await importFile(t.mirror, t.file('bad.kml', kml), opts).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ImportError);
    expect((e as ImportError).problems.map((p) => [p.index, p.code])).toEqual([[1, 'geometry_type']]);
    expect(t.mirror.read.farms(ACCOUNT)).toEqual([]);
  });

  it('reads the KML inside a KMZ', async () => {
    const kmz = zipSync({ 'doc.kml': new TextEncoder().encode(KML) });
    const report = await importFile(t.mirror, t.file('fields.kmz', kmz), opts);
    expect(report.imported).toBe(4);
  });

  it('refuses XML that is not KML, and broken XML', async () => {
    const notKml = await importFile(t.mirror, t.file('x.kml', '<?xml version="1.0"?><gpx></gpx>'), opts).catch((err: unknown) => err);
    expect(notKml).toMatchObject({ code: 'unreadable', message: expect.stringContaining('not KML') as unknown });
    const broken = await importFile(t.mirror, t.file('y.kml', '<kml><Placemark><name>x</Placemark>'), opts).catch((err: unknown) => err);
    expect(broken).toMatchObject({ code: 'unreadable' });
  });

  describe('read as a stream, never as one tree', () => {
    const placemark = (i: number, extra = '') => `<Placemark><name>P${i}</name><ExtendedData><SchemaData schemaUrl="#parcel"><SimpleData name="contract_year">${2000 + (i % 25)}</SimpleData></SchemaData></ExtendedData>${extra}${polygon(-5.9 + (i % 50) * 0.01, 37 + Math.floor(i / 50) * 0.01)}</Placemark>`;
    const doc = (body: string) => `<?xml version="1.0" encoding="UTF-8"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document>` +
      `<Schema name="parcel" id="parcel"><SimpleField name="contract_year" type="int"/></Schema>${body}</Document></kml>`;

    it('keeps document order and schema types across the batches placemarks are read in', async () => {
      const report = await importFile(t.mirror, t.file('many.kml', doc(Array.from({ length: 600 }, (_, i) => placemark(i)).join(''))), opts);
      expect(report.imported).toBe(600);
      const parcels = t.mirror.read.parcels(report.farm.local_id);
      expect(parcels.map((p) => p.name)).toEqual(Array.from({ length: 600 }, (_, i) => `P${i}`));
      expect(meta(parcels[599]!.local_id)).toEqual({ contract_year: 2000 + (599 % 25) });
    });

    it('passes over millions of elements outside the placemarks without keeping them', async () => {
      // 3,000,000 empty elements (12 MB): as a tree they took a few GB; streamed they are read and dropped.
      const filler = `<Folder>${'<a/>'.repeat(1_000_000)}</Folder>`;
      const report = await importFile(t.mirror, t.file('padded.kml', doc(`${filler}${placemark(1)}${filler}${filler}`)), opts);
      expect(report.imported).toBe(1);
    });

    it('refuses elements nested deeper than KML ever needs with a clear error, not a stack overflow', async () => {
      const e = await importFile(t.mirror, t.file('deep.kml', doc(`${'<Folder>'.repeat(200_000)}${'</Folder>'.repeat(200_000)}`)), opts).catch((err: unknown) => err);
      expect(e).toMatchObject({ code: 'unreadable', message: 'deep.kml is not valid KML (XML): elements are nested more than 100 deep (at <Folder>); KML never needs that' });
      const inside = await importFile(t.mirror, t.file('deep2.kml', doc(placemark(1, `${'<x>'.repeat(150)}${'</x>'.repeat(150)}`))), opts).catch((err: unknown) => err);
      expect(inside).toMatchObject({ code: 'unreadable', message: expect.stringContaining('nested more than 100 deep') as unknown });
    });

    it('refuses a placemark of more elements than any parcel needs', async () => {
      const e = await importFile(t.mirror, t.file('fat.kml', doc(placemark(1, `<ExtendedData>${'<b/>'.repeat(150_000)}</ExtendedData>`))), opts).catch((err: unknown) => err);
      expect(e).toMatchObject({ code: 'unreadable', message: 'fat.kml: placemark 1 holds more than 100,000 elements; no parcel needs that many' });
      expect(t.mirror.read.farms(ACCOUNT)).toEqual([]);
    });

    it('says where broken XML breaks, and keeps placemarks that use namespaces declared above them', async () => {
      const broken = await importFile(t.mirror, t.file('y.kml', '<kml>\n<Document><Placemark><name>x</Placemark>'), opts).catch((err: unknown) => err);
      expect(broken).toMatchObject({ code: 'unreadable', message: expect.stringMatching(/^y\.kml is not valid KML \(XML\): line 2:\d+: /) as unknown });
      const gx = `<?xml version="1.0"?><kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Document>` +
        `<Placemark><name>G</name><gx:balloonVisibility>1</gx:balloonVisibility>${polygon(-5.9, 37.4)}</Placemark></Document></kml>`;
      const report = await importFile(t.mirror, t.file('gx.kml', gx), opts);
      expect(t.mirror.read.parcels(report.farm.local_id).map((p) => p.name)).toEqual(['G']);
    });
  });
});
