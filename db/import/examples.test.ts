// The files in examples/ (the ones the README imports) stay importable, and the three formats say the same thing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { importFile } from './index.ts';
import { ACCOUNT, tempMirror, type TempMirror } from './fixtures/temp-mirror.ts';

const EXAMPLES = resolve(import.meta.dirname, '../../examples');

let t: TempMirror;
beforeEach(() => {
  t = tempMirror();
});
afterEach(() => t.close());

interface Imported { name: string; source_type: string; hectares: number; holes: number; metadata: Record<string, unknown> }

async function importExample(file: string): Promise<Imported[]> {
  const report = await importFile(t.mirror, resolve(EXAMPLES, file), { accountId: ACCOUNT, farmName: `Cortijo La Campana (${file})` });
  expect(report.skipped).toEqual([]);
  return t.mirror.read.parcels(report.farm.local_id).map((p) => ({
    name: p.name, source_type: p.source_type, hectares: p.hectares,
    holes: p.source_type === 'Polygon' ? (JSON.parse(p.geometry) as { coordinates: unknown[] }).coordinates.length - 1 : 0,
    metadata: JSON.parse(p.metadata) as Record<string, unknown>,
  }));
}

const POLYGONS = ['Haza del Pozo', 'Haza Larga', 'Cañada Honda', 'Olivar del Cerro'];

describe('examples/', () => {
  it('fields.geojson: four fields (one with a hole) and a point parcel with its hectares, metadata from the properties', async () => {
    const parcels = await importExample('fields.geojson');
    expect(parcels.map((p) => p.name)).toEqual([...POLYGONS, 'Parcela de ensayo']);
    expect(parcels.map((p) => p.holes)).toEqual([0, 0, 1, 0, 0]);
    expect(parcels[4]).toMatchObject({ source_type: 'Point', hectares: 1.5 });
    expect(parcels[0]!.metadata).toEqual({ supplier: 'S-41', crop_type: 'Durum wheat', campaign: '2025/26', irrigated: 'no' });
    // Plausible fields: between 5 and 40 ha each.
    for (const p of parcels.slice(0, 4)) {
      expect(p.hectares).toBeGreaterThan(5);
      expect(p.hectares).toBeLessThan(40);
    }
  });

  it('fields.kml gives the same parcels as fields.geojson', async () => {
    const geojson = await importExample('fields.geojson');
    const kml = await importExample('fields.kml');
    expect(kml).toEqual(geojson);
  });

  it('fields-shp.zip (a Shapefile holds one geometry type) gives the same four fields', async () => {
    const geojson = (await importExample('fields.geojson')).slice(0, 4);
    const shp = await importExample('fields-shp.zip');
    expect(shp.map((p) => p.name)).toEqual(POLYGONS);
    expect(shp.map(({ hectares: _, ...rest }) => rest)).toEqual(geojson.map(({ hectares: _, ...rest }) => rest));
    // Shapefile rings are written clockwise and re-read: the area is the same to the square metre.
    shp.forEach((p, i) => expect(p.hectares).toBeCloseTo(geojson[i]!.hectares, 4));
  });
});
