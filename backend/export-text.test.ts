// The app's export (core/api.ts exportText) through the backend's handlers, on a real mirror: a farm's parcels or the
// ones chosen, as GeoJSON or CSV text with a file name; another account's farm refused; above EXPORT_TEXT_MAX parcels
// a readable refusal that names the CLI.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Backend, fileBase } from './backend.ts';
import { inProcess } from '../core/rpc.ts';
import type { Api } from '../core/api.ts';
import { EXPORT_TEXT_MAX } from '../core/api-codes.ts';
import { pointParcel } from '../test/helpers/service.ts';

const dir = mkdtempSync(join(tmpdir(), 'furrow-export-text-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ACC = 'acc-00000000-0000-4000-8000-0000000000e1';
const OTHER = 'acc-00000000-0000-4000-8000-0000000000e2';

describe('exportText', () => {
  it("writes a farm's parcels or the chosen ones as GeoJSON or CSV, and refuses what is too large to carry", async () => {
    const backend = new Backend({ home: dir });
    const api = inProcess<Api>(backend.handlers);
    try {
      const m = backend.mirror;
      for (const id of [ACC, OTHER]) m.syncDb.prepare("INSERT INTO accounts (id, service_url, mode, label, created) VALUES (?, 'http://127.0.0.1:1', 'api_key', 'Grower', '2026-01-01')").run(id);
      const farm = m.write.createFarm(ACC, 'Finca: Norte/Sur');
      const [a, b] = m.write.createParcels(farm.local_id, [pointParcel('Olivo 1', 2), pointParcel('Olivo 2', 3)]).created;
      const other = m.write.createFarm(OTHER, 'Not mine');

      const geo = await api.exportText({ account: ACC, farm: farm.local_id, format: 'geojson' });
      expect([geo.parcels, geo.fileName]).toEqual([2, 'Finca NorteSur.geojson']);
      const parsed = JSON.parse(geo.text) as { features: { properties: { name: string; hectares: number } }[] };
      expect(parsed.features.map((f) => [f.properties.name, f.properties.hectares])).toEqual([['Olivo 1', 2], ['Olivo 2', 3]]);

      const csv = await api.exportText({ account: ACC, parcels: [b!.local_id], format: 'csv' });
      expect([csv.parcels, csv.fileName]).toEqual([1, 'Olivo 2.csv']);
      expect(csv.text.split('\r\n').filter(Boolean)).toHaveLength(2);
      expect(csv.text).toContain('Olivo 2');
      // A deleted parcel is left out.
      m.write.deleteParcel(a!.local_id);
      expect((await api.exportText({ account: ACC, parcels: [a!.local_id, b!.local_id], format: 'geojson' })).parcels).toBe(1);

      await expect(api.exportText({ account: ACC, farm: other.local_id, format: 'csv' })).rejects.toMatchObject({ code: 'not_found' });
      // Another account's parcel is not exported through this one.
      const [theirs] = m.write.createParcels(other.local_id, [pointParcel('Theirs', 1)]).created;
      expect((await api.exportText({ account: ACC, parcels: [theirs!.local_id], format: 'csv' })).parcels).toBe(0);

      // Above the limit: refused with the way out, nothing built.
      const big = m.write.createFarm(ACC, 'Big');
      m.write.createParcels(big.local_id, Array.from({ length: EXPORT_TEXT_MAX + 1 }, (_, i) => pointParcel(`P${i}`, 1, -4 + (i % 300) * 0.001, 37 + Math.floor(i / 300) * 0.001)));
      await expect(api.exportText({ account: ACC, farm: big.local_id, format: 'geojson' })).rejects.toMatchObject({ code: 'too_large', message: expect.stringMatching(/more than the app exports at once .* the CLI/) });
    } finally {
      backend.close();
    }
  }, 60_000);

  it('names files after what they hold, keeping letters of every script', () => {
    expect(fileBase('Finca: Norte/Sur')).toBe('Finca NorteSur');
    expect(fileBase('Hof Sönnenfeld  Ä-1_b.c')).toBe('Hof Sönnenfeld Ä-1_b.c');
    expect(fileBase('***')).toBe('parcels');
  });
});
