// The farms list and the box the map fits to, read for a whole account at once: the same summaries as reading each
// farm alone (totals, sync state, a farm the service does not have yet shown pending), and the farm's exact box.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Mirror } from '../db/mirror.ts';
import { pointParcel } from '../test/helpers/service.ts';
import { farmSummaries, farmSummary } from './views.ts';

const dir = mkdtempSync(join(tmpdir(), 'furrow-farms-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ACC = 'acc-00000000-0000-4000-8000-0000000000f1';
const OTHER = 'acc-00000000-0000-4000-8000-0000000000f2';

describe("an account's farms", () => {
  it('are each farm read alone, for farms with parcels, without, with a deleted parcel, and synced', () => {
    const m = Mirror.open(join(dir, 'mirror.db'));
    try {
      for (const id of [ACC, OTHER]) m.syncDb.prepare("INSERT INTO accounts (id, service_url, mode, label, created) VALUES (?, 'http://127.0.0.1:1', 'api_key', 'farms', '2026-01-01')").run(id);
      const a = m.write.createFarm(ACC, 'A');
      const b = m.write.createFarm(ACC, 'B');
      m.write.createFarm(ACC, 'Empty');
      const other = m.write.createFarm(OTHER, 'Not mine');
      m.write.createParcels(a.local_id, [pointParcel('a1', 2, -4, 37), pointParcel('a2', 3.5, -4.1, 37.2)]);
      const [gone] = m.write.createParcels(b.local_id, [pointParcel('b1', 1, -3, 38), pointParcel('b2', 7, -3.1, 38.1)]).created;
      m.write.deleteParcel(gone!.local_id);
      m.write.createParcels(other.local_id, [pointParcel('o1', 9, 2, 41)]);
      // B as the service has it: its id known and no op left, so synced rather than pending.
      m.syncDb.prepare("UPDATE farms SET server_id = 77 WHERE local_id = ?").run(b.local_id);
      m.syncDb.prepare("DELETE FROM outbox WHERE entity = 'farm' AND local_id = ?").run(b.local_id);

      const all = farmSummaries(m, ACC);
      expect(all).toEqual(m.read.farms(ACC).map((f) => farmSummary(m, f.local_id)));
      expect(all.map((f) => [f.name, f.parcels, f.state])).toEqual([['A', 2, 'pending'], ['B', 1, 'synced'], ['Empty', 0, 'pending']]);
      expect(all[0]!.hectares).toBeCloseTo(5.5, 9);
      expect(all[1]!.hectares).toBeCloseTo(7, 9);
    } finally {
      m.close();
    }
  });

  it("have a box: the union of their live parcels' boxes, none without parcels", () => {
    const m = Mirror.open(join(dir, 'extent.db'));
    try {
      m.syncDb.prepare("INSERT INTO accounts (id, service_url, mode, label, created) VALUES (?, 'http://127.0.0.1:1', 'api_key', 'farms', '2026-01-01')").run(ACC);
      const f = m.write.createFarm(ACC, 'Boxed');
      const made = m.write.createParcels(f.local_id, [pointParcel('w', 1, -4, 37), pointParcel('e', 1, -3.5, 37.4), pointParcel('far', 1, 10, 50)]).created;
      const parcels = m.read.parcels(f.local_id);
      const box = (rows: typeof parcels) => [Math.min(...rows.map((p) => p.minx)), Math.min(...rows.map((p) => p.miny)), Math.max(...rows.map((p) => p.maxx)), Math.max(...rows.map((p) => p.maxy))];
      expect(m.read.farmExtent(f.local_id)).toEqual(box(parcels));
      // A deleted parcel no longer widens it.
      m.write.deleteParcel(made[2]!.local_id);
      const [w, s, e, n] = m.read.farmExtent(f.local_id)!;
      expect(e).toBeLessThan(-3.49);
      expect([w < -4, s < 37, n > 37.4]).toEqual([true, true, true]);
      expect(m.read.farmExtent(m.write.createFarm(ACC, 'Bare').local_id)).toBeNull();
    } finally {
      m.close();
    }
  });

  it("list their parcels a page at a time by name (case aside), with hectares and state, and say where a parcel's page is", () => {
    const m = Mirror.open(join(dir, 'pages.db'));
    try {
      m.syncDb.prepare("INSERT INTO accounts (id, service_url, mode, label, created) VALUES (?, 'http://127.0.0.1:1', 'api_key', 'farms', '2026-01-01')").run(ACC);
      const f = m.write.createFarm(ACC, 'Many');
      // 120 parcels named out of order, one lower case, so that the order is the names' and not the creation's.
      const names = Array.from({ length: 120 }, (_, i) => `P${String(119 - i).padStart(3, '0')}`);
      names[5] = 'p114';
      const made = m.write.createParcels(f.local_id, names.map((n, i) => pointParcel(n, 1 + i / 100, -4 + i * 0.001, 37))).created;
      m.write.deleteParcel(made[0]!.local_id); // P119: gone from the list
      // One synced (its op done), the others pending.
      const synced = made.find((p) => p.name === 'P050')!;
      m.syncDb.prepare("DELETE FROM outbox WHERE entity = 'parcel' AND local_id = ?").run(synced.local_id);

      const first = m.read.farmParcelPage(f.local_id, 0, 50);
      expect(first.total).toBe(119);
      expect(first.parcels.map((p) => p.name).slice(0, 3)).toEqual(['P000', 'P001', 'P002']);
      expect(first.parcels.find((p) => p.name === 'P050')).toBeUndefined();
      const second = m.read.farmParcelPage(f.local_id, 50, 50);
      expect(second.parcels[0]).toMatchObject({ name: 'P050', state: 'synced', id: synced.local_id });
      expect(second.parcels[1]).toMatchObject({ name: 'P051', state: 'pending' });
      expect(second.parcels[1]!.hectares).toBeCloseTo(1 + 68 / 100, 9);
      const last = m.read.farmParcelPage(f.local_id, 100, 50).parcels.map((p) => p.name);
      expect(last).toHaveLength(19);
      expect(last).toContain('p114');
      expect(last.indexOf('p114')).toBe(last.indexOf('P113') + 1);
      expect(last.at(-1)).toBe('P118');
      // Each parcel's index is where the pages put it.
      const all = [first, second, m.read.farmParcelPage(f.local_id, 100, 50)].flatMap((p) => p.parcels);
      for (const [i, p] of all.entries()) if (i % 7 === 0 || p.name === 'p114') expect(m.read.farmParcelIndex(f.local_id, p.id, p.name)).toBe(i);
    } finally {
      m.close();
    }
  });
});
