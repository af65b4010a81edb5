// Zip bombs are refused from the central directory, before anything inflates; an ordinary zipped Shapefile still
// imports. The hostile archives are built here, small on disk.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { zipSync } from 'fflate';
import { ImportError, importFile } from './index.ts';
import { checkZip, zipEntries } from './zip-guard.ts';
import { buildShapefile, WGS84_PRJ, zipShapefile } from './fixtures/shapefile-writer.ts';
import { ACCOUNT, tempMirror, type TempMirror } from './fixtures/temp-mirror.ts';

let t: TempMirror;
beforeEach(() => { t = tempMirror(); });
afterEach(() => t.close());
const opts = { accountId: ACCOUNT, farmName: 'Bomb' };

const layer = () => buildShapefile(1, [{ name: 'HECTARES', type: 'N', length: 6, decimals: 2 }], [
  { geometry: { type: 'Point', at: [-5.9, 37.4] }, attributes: { HECTARES: 1.5 } },
]);

async function refused(zip: Uint8Array): Promise<ImportError> {
  const e = await importFile(t.mirror, t.file('bomb.zip', zip), opts).then(() => null, (err: unknown) => err);
  expect(e).toBeInstanceOf(ImportError);
  expect(t.mirror.read.farms(ACCOUNT)).toEqual([]);
  return e as ImportError;
}

/** The zip with a second central-directory record, named `name`, for the first entry's data (an overlapping bomb). */
function withOverlap(zip: Uint8Array, name: string): Uint8Array {
  const v = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const eocd = zip.length - 22;
  const cdStart = v.getUint32(eocd + 16, true);
  const firstLen = 46 + v.getUint16(cdStart + 28, true) + v.getUint16(cdStart + 30, true) + v.getUint16(cdStart + 32, true);
  const copy = zip.slice(cdStart, cdStart + firstLen);
  const nameBytes = new TextEncoder().encode(name);
  const record = new Uint8Array(46 + nameBytes.length);
  record.set(copy.subarray(0, 46));
  new DataView(record.buffer).setUint16(28, nameBytes.length, true);
  new DataView(record.buffer).setUint16(30, 0, true);
  new DataView(record.buffer).setUint16(32, 0, true);
  record.set(nameBytes, 46);
  const out = new Uint8Array(eocd + record.length + 22);
  out.set(zip.subarray(0, eocd));
  out.set(record, eocd);
  out.set(zip.subarray(eocd), eocd + record.length);
  const ov = new DataView(out.buffer);
  const end = eocd + record.length;
  ov.setUint16(end + 8, ov.getUint16(end + 8, true) + 1, true);
  ov.setUint16(end + 10, ov.getUint16(end + 10, true) + 1, true);
  ov.setUint32(end + 12, ov.getUint32(end + 12, true) + record.length, true);
  return out;
}

describe('zip bombs', () => {
  it('a layer file that would inflate 1,000 times (a valid .shp beside 8 MiB of zeros) is refused before inflating', async () => {
    const files = layer();
    const zip = zipSync({ 'w.shp': files.shp, 'w.shx': files.shx, 'w.dbf': new Uint8Array(8 * 1024 * 1024), 'w.prj': new TextEncoder().encode(WGS84_PRJ) });
    expect(zip.length).toBeLessThan(64 * 1024);
    const e = await refused(zip);
    expect(e.code).toBe('zip_too_large');
    expect(e.message).toMatch(/w\.dbf would inflate \d+ times/);
  });

  it('a KMZ of empty elements that would inflate hundreds of times is refused before it is parsed', async () => {
    const kml = `<kml xmlns="http://www.opengis.net/kml/2.2"><Document>${'<Folder/>'.repeat(1_000_000)}</Document></kml>`;
    const zip = zipSync({ 'doc.kml': new TextEncoder().encode(kml) });
    expect(zip.length).toBeLessThan(100 * 1024);
    const e = await refused(zip);
    expect(e.code).toBe('zip_too_large');
    expect(e.message).toMatch(/doc\.kml would inflate \d+ times/);
  });

  it('entries that overlap on the same bytes are refused', async () => {
    const zip = withOverlap(zipShapefile('w', layer(), { 'w.prj': WGS84_PRJ }), 'x.dbf');
    expect(zipEntries(zip, 'bomb.zip').map((e) => e.name)).toContain('x.dbf');
    const e = await refused(zip);
    expect(e.code).toBe('zip_overlapping');
  });

  it('layer files declaring more than the limit in all are refused; files the import does not read do not count', () => {
    const files = layer();
    const zip = zipSync({ 'w.shp': files.shp, 'w.shx': files.shx, 'w.dbf': files.dbf, 'notes.bin': new Uint8Array(4096).fill(7) });
    const limits = { entryBytes: 1_000_000, totalBytes: files.shp.length + files.dbf.length - 1, ratio: 200 };
    const needed = (n: string) => /\.(shp|dbf)$/.test(n);
    expect(() => checkZip(zip, 'w.zip', needed, limits)).toThrow(/inflate to more than/);
    expect(() => checkZip(zip, 'w.zip', needed, { ...limits, totalBytes: files.shp.length + files.dbf.length })).not.toThrow();
    expect(() => checkZip(zip, 'w.zip', needed, { ...limits, totalBytes: 1e9, entryBytes: files.shp.length - 1 })).toThrow(/w\.shp would inflate to \d+ bytes; .*FURROW_IMPORT_MAX_BYTES/);
  });

  it('an ordinary zipped Shapefile still imports', async () => {
    const report = await importFile(t.mirror, t.file('ok.zip', zipShapefile('w', layer(), { 'w.prj': WGS84_PRJ })), opts);
    expect(report.imported).toBe(1);
  });
});
