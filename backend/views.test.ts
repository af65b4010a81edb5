// The map's features written by SQLite as JSON text around the stored JSON (MirrorReader.viewportJson and
// searchJson) must be exactly the objects parcelFeatures builds, whatever the row: a drawn polygon, a hectare point,
// an imported geometry kept as the file's own bytes (whitespace and all), a name needing escapes, a parcel rejected
// with its reason; the same in every sync state, search's in search's order, and the viewport says when it is cut.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mirror } from '../db/mirror.ts';
import { importFile } from '../db/import/index.ts';
import { parcelInputs } from '../test/helpers/sync.ts';
import { pointParcel } from '../test/helpers/service.ts';
import { parcelFeatures } from './views.ts';
import type { ParcelFeature } from '../core/api.ts';

const dir = mkdtempSync(join(tmpdir(), 'furrow-views-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ACC = 'acc-00000000-0000-4000-8000-0000000000v1';

describe('the map\'s features as JSON texts', () => {
  it('are parcelFeatures as JSON texts, row for row, for a viewport and for a search', async () => {
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
      const byId = (fs: ParcelFeature[]) => new Map(fs.map((f) => [f.id, f]));
      const texts = m.read.viewportJson([-5, 36, -3, 38], 100, ACC);
      expect(texts).toHaveLength(3);
      expect(byId(texts.map((t) => JSON.parse(t) as ParcelFeature))).toEqual(byId(parcelFeatures(m, hits)));
      expect(parcelFeatures(m, hits).find((f) => f.id === drawn!.local_id)!.properties).toMatchObject({ state: 'rejected', reason: 'Parcel "x" overlaps' });
      // Search: the same objects, in search's own order (name matches first), and nothing for no match.
      for (const q of ['Imported', 'Le clos', 'S-1', 'olive', 'Point']) {
        expect(m.read.searchJson(q, 50, ACC).map((t) => JSON.parse(t) as unknown)).toEqual(parcelFeatures(m, m.read.search(q, 50, ACC)));
      }
      expect(m.read.searchJson('Imported', 50, ACC)).toHaveLength(1);
      expect(m.read.searchJson('nothing-like-this', 50, ACC)).toEqual([]);
    } finally {
      m.close();
    }
  });

  it('the viewport JSON SQLite writes is parcelFeatures in every sync state, up to one more than the limit', () => {
    const m = Mirror.open(join(dir, 'states.db'));
    try {
      m.write.addAccount({ id: ACC, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
      m.write.addAccount({ id: `${ACC}2`, service_url: 'http://127.0.0.1:1', mode: 'api_key' });
      const farm = m.write.createFarm(ACC, 'States');
      const ids = m.write.createParcels(farm.local_id, parcelInputs(9, 's')).created.map((p) => p.local_id);
      m.write.createParcels(m.write.createFarm(`${ACC}2`, 'Other account').local_id, parcelInputs(3, 's'));
      const op = (id: string) => (m.syncDb.prepare('SELECT id FROM outbox WHERE local_id = ?').pluck().get(id) as number);
      const set = m.syncDb.prepare('UPDATE outbox SET state = ?, last_error = ? WHERE id = ?');
      set.run('committed', null, op(ids[0]!)); // synced
      set.run('in_flight', null, op(ids[1]!));
      set.run('uncertain', '504 from the service', op(ids[2]!));
      set.run('rejected', 'Parcel "x" overlaps', op(ids[3]!));
      set.run('blocked', 'token expired', op(ids[4]!));
      set.run('conflict', 'parent farm deleted on the service', op(ids[5]!)); // an op's own reason, not a list
      const conflict = m.syncDb.prepare("INSERT INTO conflicts (account_id, entity, local_id, kind, fields, created, resolved) VALUES (?, 'parcel', ?, 'edit', ?, '2026-01-01', ?)");
      conflict.run(ACC, ids[6]!, '["name","metadata.Supplier ID"]', null); // outranks its queued op
      conflict.run(ACC, ids[7]!, '["name"]', '2026-01-02'); // resolved: the parcel is only pending
      conflict.run(ACC, ids[8]!, '[]', null);
      const all = m.read.viewportJson([-180, -90, 180, 90], 100, ACC);
      const expected = parcelFeatures(m, m.read.viewport([-180, -90, 180, 90], 100, ACC));
      const got = all.map((t) => JSON.parse(t) as ParcelFeature);
      expect(got).toHaveLength(9);
      expect(new Map(got.map((f) => [f.id, f]))).toEqual(new Map(expected.map((f) => [f.id, f])));
      const state = (i: number) => got.find((f) => f.id === ids[i])!.properties;
      expect([0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => [state(i).state, state(i).reason])).toEqual([
        ['synced', null], ['sending', null], ['uncertain', '504 from the service'], ['rejected', 'Parcel "x" overlaps'], ['blocked', 'token expired'],
        ['conflict', 'parent farm deleted on the service'], ['conflict', 'name, metadata.Supplier ID'], ['pending', null], ['conflict', '']]);
      // limit + 1 at most: one more than the limit says the answer is cut.
      expect(m.read.viewportJson([-180, -90, 180, 90], 4, ACC)).toHaveLength(5);
      expect(m.read.viewportJson([10, 10, 11, 11], 4, ACC)).toEqual([]);
    } finally {
      m.close();
    }
  });
});
