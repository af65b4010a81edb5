import { describe, expect, it } from 'vitest';
import { farmNameOf, featuresToImport, fileProblem, geometryWords, importedMessage, previewSummary, sameAsWords } from './import-words.ts';

describe('the import preview', () => {
  it('takes GeoJSON, KML/KMZ and zipped Shapefiles up to its size, and says why not otherwise', () => {
    for (const name of ['a.geojson', 'a.JSON', 'b.kml', 'b.kmz', 'c.zip']) expect(fileProblem(name, 1000)).toBeNull();
    expect(fileProblem('fields.csv', 10)).toBe('fields.csv is not a file Furrow imports: drop a GeoJSON (.geojson, .json), a KML (.kml, .kmz) or a zipped Shapefile (.zip).');
    expect(fileProblem('geojson', 10)).toMatch(/^geojson is not a file Furrow imports/);
    expect(fileProblem('ortho.TIF', 10)).toBe('ortho.TIF is imagery or tiles, not parcels: open it under the parcels from Layers (B), "Open a file as a layer…".');
    expect(fileProblem('tiles.pmtiles', 10)).toMatch(/^tiles\.pmtiles is imagery or tiles, not parcels/);
    expect(fileProblem('big.geojson', 25 * 1024 * 1024)).toBe('big.geojson is 25 MB, more than the app previews (20 MB): import it with the CLI, npm run -s cli -- import FILE --farm NAME.');
    expect(fileProblem('empty.kml', 0)).toBe('empty.kml is empty: there is nothing to import.');
  });

  it('sums a preview up', () => {
    expect(previewSummary({ total: 8, valid: 5, invalid: 3, parcels: 6, hectares: 45.2 })).toBe('8 features: 5 can be imported (6 parcels, 45.20 ha), 3 cannot.');
    expect(previewSummary({ total: 4, valid: 4, invalid: 0, parcels: 4, hectares: 1234.5 })).toBe('4 features: all can be imported (4 parcels, 1,234.50 ha).');
    expect(previewSummary({ total: 5, valid: 5, invalid: 0, parcels: 5, hectares: 90.31, duplicateFeatures: 5 })).toBe('5 features: all can be imported (5 parcels, 90.31 ha) (all already in the account).');
    expect(previewSummary({ total: 8, valid: 5, invalid: 3, parcels: 6, hectares: 45.2, duplicateFeatures: 2 })).toBe('8 features: 5 can be imported (6 parcels, 45.20 ha) (2 already in the account), 3 cannot.');
    expect(previewSummary({ total: 1, valid: 1, invalid: 0, parcels: 1, hectares: 2 })).toBe('1 feature: 1 can be imported (1 parcel, 2.00 ha).');
    expect(previewSummary({ total: 2, valid: 0, invalid: 2, parcels: 0, hectares: 0 })).toBe('2 features: none can be imported.');
  });

  it('names the new farm after the file, and says what an import did', () => {
    expect(farmNameOf('Cortijo La Campana.geojson')).toBe('Cortijo La Campana');
    expect(farmNameOf('.kml')).toBe('.kml');
    expect(importedMessage({ imported: 6, skipped: 3, farmName: 'Cortijo' }, 'f.geojson'))
      .toBe('Imported 6 parcels from f.geojson into Cortijo; 3 features with problems left out. They go to the service at the next sync; Undo takes them back.');
    expect(importedMessage({ imported: 1, skipped: 0, duplicates: 5, farmName: 'Cortijo' }, 'f.kml'))
      .toBe('Imported 1 parcel from f.kml into Cortijo; 5 parcels already in the account left out. They go to the service at the next sync; Undo takes them back.');
    expect(geometryWords('MultiPolygon', 2)).toBe('MultiPolygon · 2 parcels');
    expect(geometryWords(null, 0)).toBe('No geometry');
  });

  it('says which features the account has already, and counts what an import then takes', () => {
    const sameAs = { name: 'Haza del Pozo', farm: 'Cortijo La Campana' };
    expect(sameAsWords({ duplicates: 1, parcels: 1, sameAs })).toBe('Already here: Haza del Pozo (Cortijo La Campana)');
    expect(sameAsWords({ duplicates: 1, parcels: 2, sameAs })).toBe('Already here (1 of its 2 parcels): Haza del Pozo (Cortijo La Campana)');
    expect(sameAsWords({ duplicates: 0, parcels: 1, sameAs: null })).toBeNull();
    expect([featuresToImport({ valid: 6, duplicateFeatures: 5 }, true), featuresToImport({ valid: 6, duplicateFeatures: 5 }, false)]).toEqual([1, 6]);
  });
});
