// The map's features written as JSON text around the stored JSON (parcelFeaturesJson) must be exactly the objects
// parcelFeatures builds, whatever the row: a drawn polygon, a hectare point, an imported geometry kept as the file's
// own bytes (whitespace and all), a name needing escapes, a parcel rejected with its reason.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mirror } from '../db/mirror.ts';
import { importFile } from '../db/import/index.ts';
import { parcelInputs } from '../test/helpers/sync.ts';
import { pointParcel } from '../test/helpers/service.ts';
import { parcelFeatures, parcelFeaturesJson } from './views.ts';

const dir = mkdtempSync(join(tmpdir(), 'furrow-views-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ACC = 'acc-00000000-0000-4000-8000-0000000000v1';

describe('parcelFeaturesJson', () => {
  it('is parcelFeatures as JSON text, row for row', async () => {
    const m = Mirror.open(join(dir, 'mirror.db'));
    try {
      m.syncDb.prepare("INSERT INTO accounts (id, service_url, mode, label, created) VALUES (?, 'http://127.0.0.1:1', 'api_key', 'views', '2026-01-01')").run(ACC);
      const farm = m.write.createFarm(ACC, 'Farm "A"');
      const [drawn] = m.write.createParcels(farm.local_id, [{ ...(parcelInputs(1, 'd')[0] as object), name: 'Le "clos" \\ ünïcode' }]).created;
      m.write.createParcels(farm.local_id, [{ ...pointParcel('Point', 5, -4.1, 37.1), metadata: { 'Supplier ID': 'S-1', n: 2.5 } }]);
      const file = join(dir, 'pretty.geojson');
      writeFileSync(file, `{"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"name": "Imported", "crop": "olive"},
         "geometry": { "type" : "Polygon", "coordinates": [ [ [-4.2, 37.2], [-4.199, 37.2], [-4.199, 37.201], [-4.2, 37.201], [-4.2, 37.2] ] ] } }]}`);
      await importFile(m, file, { accountId: ACC, farmName: 'Imported' });
      m.syncDb.prepare("UPDATE outbox SET state = 'rejected', last_error = 'Parcel \"x\" overlaps' WHERE local_id = ?").run(drawn!.local_id);
      const hits = m.read.viewport([-5, 36, -3, 38], 100, ACC);
      expect(hits).toHaveLength(3);
      const text = parcelFeaturesJson(m, hits);
      expect(JSON.parse(text)).toEqual(parcelFeatures(m, hits));
      expect(parcelFeatures(m, hits).find((f) => f.id === drawn!.local_id)!.properties).toMatchObject({ state: 'rejected', reason: 'Parcel "x" overlaps' });
      expect(parcelFeaturesJson(m, [])).toBe('[]');
    } finally {
      m.close();
    }
  });
});
