// The next sync's preview, read from a real mirror's outbox: counts by entity and kind, and the hectares it adds to
// what the service bills (created parcels, an edited shape's change, deleted parcels subtracted).
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mirror } from './mirror.ts';
import { syncItems, syncPreview } from './sync-preview.ts';
import { pointParcel } from '../test/helpers/service.ts';

const dir = mkdtempSync(join(tmpdir(), 'furrow-preview-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ACC = 'acc-00000000-0000-4000-8000-0000000000a1';
const OTHER = 'acc-00000000-0000-4000-8000-0000000000a2';

/** As a sync that committed them leaves them: server ids, no open op. */
function synced(m: Mirror, entity: 'farm' | 'parcel', ids: string[]): void {
  for (const [i, id] of ids.entries()) {
    m.syncDb.prepare(`UPDATE ${entity === 'farm' ? 'farms' : 'parcels'} SET server_id = ? WHERE local_id = ?`).run(100 + i, id);
    m.syncDb.prepare("UPDATE outbox SET state = 'committed' WHERE entity = ? AND local_id = ?").run(entity, id);
  }
}

describe("the next sync's preview", () => {
  it('counts what waits to be sent and the billable hectares it adds', () => {
    const m = Mirror.open(join(dir, 'mirror.db'));
    try {
      for (const id of [ACC, OTHER]) m.syncDb.prepare("INSERT INTO accounts (id, service_url, mode, label, created) VALUES (?, 'http://127.0.0.1:1', 'api_key', 'p', '2026-01-01')").run(id);
      const farm = m.write.createFarm(ACC, 'Preview');
      const made = m.write.createParcels(farm.local_id, [pointParcel('a', 2), pointParcel('b', 3.5), pointParcel('c', 1.25)]).created;
      m.write.createParcels(m.write.createFarm(OTHER, 'Not counted').local_id, [pointParcel('x', 40)]);
      const fresh = syncPreview(m.syncDb, ACC);
      expect(fresh.ops).toEqual({ farm: { create: 1, update: 0, delete: 0 }, parcel: { create: 3, update: 0, delete: 0 }, crop: { create: 0, update: 0, delete: 0 } });
      expect([fresh.hectaresCreated, fresh.hectaresDeleted, fresh.uncertain]).toEqual([6.75, 0, 0]);
      expect(fresh.hectaresAdded).toBeCloseTo(6.75, 9);

      // Synced; then one parcel grows from 2 to 5 ha, one is deleted, one renamed, and a crop is added.
      synced(m, 'farm', [farm.local_id]);
      synced(m, 'parcel', made.map((p) => p.local_id));
      const [a, b, c] = made as [typeof made[0], typeof made[0], typeof made[0]];
      m.write.updateParcel(a.local_id, { geom: pointParcel('a', 5).geom });
      m.write.deleteParcel(b.local_id);
      m.write.updateParcel(c.local_id, { name: 'c renamed' });
      m.write.createCrop(ACC, c.local_id, { name: 'Wheat' });
      const edited = syncPreview(m.syncDb, ACC);
      expect(edited.ops).toEqual({ farm: { create: 0, update: 0, delete: 0 }, parcel: { create: 0, update: 2, delete: 1 }, crop: { create: 1, update: 0, delete: 0 } });
      expect([edited.hectaresCreated, edited.hectaresDeleted]).toEqual([0, 3.5]);
      expect(edited.hectaresAdded).toBeCloseTo(3 - 3.5, 9);

      // Uncertain work is counted apart, not as sent.
      m.syncDb.prepare("UPDATE outbox SET state = 'uncertain' WHERE entity = 'crop'").run();
      const unsure = syncPreview(m.syncDb, ACC);
      expect([unsure.ops.crop.create, unsure.uncertain]).toEqual([0, 1]);

      // What needs a look, with the names of what it is about; queued work is not listed.
      m.syncDb.prepare("UPDATE outbox SET state = 'rejected', last_error = 'Parcel above the agreed limit' WHERE entity = 'parcel' AND local_id = ? AND op = 'update'").run(a.local_id);
      m.syncDb.prepare("UPDATE outbox SET last_error = 'no answer (504)', sent_at = '2026-11-26T10:00:00.000Z', checks = 1 WHERE entity = 'crop'").run();
      const items = syncItems(m.syncDb, ACC);
      expect(items.map((i) => [i.entity, i.kind, i.name, i.state, i.reason])).toEqual([
        ['parcel', 'update', 'a', 'rejected', 'Parcel above the agreed limit'],
        ['crop', 'create', 'Wheat', 'uncertain', 'no answer (504)'],
      ]);
      expect(items[1]).toMatchObject({ localId: m.read.crops(c.local_id)[0]!.local_id, sentAt: '2026-11-26T10:00:00.000Z', checks: 1 });
      expect(syncItems(m.syncDb, OTHER)).toEqual([]);
    } finally {
      m.close();
    }
  });
});
