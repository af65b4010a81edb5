// The attribute table's host side (core/api-table.ts) on a real SQLite mirror: ranges in the query's order with the
// total, every column sortable (empties last) and filterable, a parcel found in the order, the ids of a range, the
// metadata keys; another account's farm or parcels refused; a bulk edit of 500 parcels as ONE undo entry that queues
// an update per parcel, undone in one step, and refused whole when one parcel would be invalid.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Backend } from './backend.ts';
import { inProcess } from '../core/rpc.ts';
import type { Api, TableQuery } from '../core/api.ts';
import type { FarmRow } from '../db/types.ts';
import { ByteResources } from './bytes.ts';
import { downloadHandlers } from './downloads.ts';
import { parseBytesPath } from '../core/bytes-protocol.ts';

const dir = mkdtempSync(join(tmpdir(), 'furrow-table-'));
const ACC = 'acc-00000000-0000-4000-8000-0000000000a1';
const OTHER = 'acc-00000000-0000-4000-8000-0000000000a2';
let backend: Backend;
let api: ReturnType<typeof inProcess<Api>>;
let north: FarmRow;
let south: FarmRow;
let notMine: FarmRow;

const parcel = (name: string, hectares: number, metadata: Record<string, string | number | boolean> = {}) =>
  ({ name, metadata, geom: { type: 'Feature', properties: { metadata: { hectares } }, geometry: { type: 'Point', coordinates: [-4.7, 37.8] } } });

beforeAll(() => {
  backend = new Backend({ home: dir });
  api = inProcess<Api>(backend.handlers);
  const m = backend.mirror;
  for (const id of [ACC, OTHER]) m.syncDb.prepare("INSERT INTO accounts (id, service_url, mode, label, created) VALUES (?, 'http://127.0.0.1:1', 'api_key', 'T', '2026-01-01')").run(id);
  north = m.write.createFarm(ACC, 'North');
  south = m.write.createFarm(ACC, 'South');
  notMine = m.write.createFarm(OTHER, 'Not mine');
  m.write.createParcels(north.local_id, [
    parcel('beta', 3, { soil: 'clay', irrigated: true }), parcel('Alpha', 5, { soil: 'loam' }), parcel('gamma', 1, { soil: 'Clay loam', depth: 40 }),
  ]);
  m.write.createParcels(south.local_id, [parcel('delta', 10), parcel('Epsilon', 2, { soil: 'sand', depth: 12 })]);
  m.write.createParcels(notMine.local_id, [parcel('secret', 4, { soil: 'clay' })]);
  // Every parcel synced but Alpha (pending, its op left) and gamma (rejected).
  const id = (name: string) => m.syncDb.prepare('SELECT local_id FROM parcels WHERE name = ?').pluck().get(name) as string;
  m.syncDb.prepare("DELETE FROM outbox WHERE entity = 'parcel' AND local_id NOT IN (?, ?)").run(id('Alpha'), id('gamma'));
  m.syncDb.prepare("UPDATE outbox SET state = 'rejected', last_error = 'no' WHERE entity = 'parcel' AND local_id = ?").run(id('gamma'));
  m.write.createCrop(ACC, id('beta'), { name: 'Wheat', sowing: '2025-10-01' });
  m.write.createCrop(ACC, id('delta'), { name: 'Barley' });
});
afterAll(() => {
  backend.close();
  rmSync(dir, { recursive: true, force: true });
});

const names = async (query: Omit<TableQuery, 'account'>, offset = 0, limit = 100) =>
  (await api.parcelTable({ query: { account: ACC, ...query }, offset, limit })).rows.map((r) => r.name);

describe('the attribute table', () => {
  it("reads an account's rows by name, any case, with every column and the total; a farm's alone", async () => {
    const page = await api.parcelTable({ query: { account: ACC }, offset: 0, limit: 100 });
    expect(page.total).toBe(5);
    expect(page.rows.map((r) => r.name)).toEqual(['Alpha', 'beta', 'delta', 'Epsilon', 'gamma']);
    expect(page.rows[1]).toMatchObject({ name: 'beta', hectares: 3, farm: 'North', state: 'synced', crop: 'Wheat', metadata: { soil: 'clay', irrigated: true } });
    expect(page.rows.map((r) => r.state)).toEqual(['pending', 'synced', 'synced', 'synced', 'rejected']);
    expect(await names({ farm: south.local_id })).toEqual(['delta', 'Epsilon']);
  });

  it('reads a range from an offset, the total still all of them', async () => {
    const page = await api.parcelTable({ query: { account: ACC }, offset: 2, limit: 2 });
    expect([page.total, page.offset, page.rows.map((r) => r.name)]).toEqual([5, 2, ['delta', 'Epsilon']]);
    expect(await api.parcelTableIds({ query: { account: ACC }, offset: 1, limit: 3 })).toHaveLength(3);
  });

  it('sorts by every column, either way, with empty values last', async () => {
    expect(await names({ sort: { column: 'hectares', desc: true } })).toEqual(['delta', 'Alpha', 'beta', 'Epsilon', 'gamma']);
    expect(await names({ sort: { column: 'farm' } })).toEqual(['Alpha', 'beta', 'gamma', 'delta', 'Epsilon']);
    expect(await names({ sort: { column: 'state', desc: true } })).toEqual(['gamma', 'Alpha', 'Epsilon', 'delta', 'beta']);
    expect(await names({ sort: { column: 'crop' } })).toEqual(['delta', 'beta', 'Alpha', 'Epsilon', 'gamma']);
    expect(await names({ sort: { column: 'meta:soil' } })).toEqual(['beta', 'gamma', 'Alpha', 'Epsilon', 'delta']);
    // Descending, the parcels without a depth still come last, by name the same way.
    expect(await names({ sort: { column: 'meta:depth', desc: true } })).toEqual(['gamma', 'Epsilon', 'delta', 'beta', 'Alpha']);
  });

  it('filters by every column: contains and equals in any case, below and above a number, empty, not empty', async () => {
    expect(await names({ filters: [{ column: 'meta:soil', op: 'contains', value: 'CLAY' }] })).toEqual(['beta', 'gamma']);
    expect(await names({ filters: [{ column: 'meta:soil', op: 'equals', value: 'clay' }] })).toEqual(['beta']);
    expect(await names({ filters: [{ column: 'hectares', op: 'gt', value: 2 }, { column: 'hectares', op: 'lt', value: 10 }] })).toEqual(['Alpha', 'beta']);
    expect(await names({ filters: [{ column: 'meta:depth', op: 'lt', value: 20 }] })).toEqual(['Epsilon']);
    // A text is never "below" a number: the soil's words are not compared with 5.
    expect(await names({ filters: [{ column: 'meta:soil', op: 'lt', value: 5 }] })).toEqual([]);
    expect(await names({ filters: [{ column: 'meta:soil', op: 'empty' }] })).toEqual(['delta']);
    expect(await names({ filters: [{ column: 'crop', op: 'notEmpty' }] })).toEqual(['beta', 'delta']);
    expect(await names({ filters: [{ column: 'state', op: 'equals', value: 'rejected' }] })).toEqual(['gamma']);
    expect(await names({ filters: [{ column: 'farm', op: 'equals', value: 'south' }] })).toEqual(['delta', 'Epsilon']);
    expect(await names({ filters: [{ column: 'name', op: 'contains', value: 'a' }], sort: { column: 'name', desc: true } })).toEqual(['gamma', 'delta', 'beta', 'Alpha']);
    const page = await api.parcelTable({ query: { account: ACC, filters: [{ column: 'meta:soil', op: 'contains', value: 'a' }] }, offset: 0, limit: 1 });
    expect([page.total, page.rows.length]).toEqual([4, 1]);
  });

  it('finds where a parcel stands in the order, and says when the query does not hold it', async () => {
    const all = await api.parcelTableIds({ query: { account: ACC, sort: { column: 'hectares' } }, offset: 0, limit: 100 });
    const found = await api.parcelTable({ query: { account: ACC, sort: { column: 'hectares' } }, offset: 0, limit: 1, find: all[3]! });
    expect(found.found).toBe(3);
    const none = await api.parcelTable({ query: { account: ACC, farm: south.local_id }, offset: 0, limit: 1, find: all[0]! });
    expect(none.found).toBeNull(); // gamma (1 ha) is North's
  });

  it("lists the metadata keys, an account's or a farm's, never another account's", async () => {
    expect(await api.parcelTableKeys({ account: ACC })).toEqual(['depth', 'irrigated', 'soil']);
    expect(await api.parcelTableKeys({ account: ACC, farm: south.local_id })).toEqual(['depth', 'soil']);
  });

  it("refuses another account's farm, and never shows another account's rows", async () => {
    await expect(api.parcelTable({ query: { account: ACC, farm: notMine.local_id }, offset: 0, limit: 5 })).rejects.toMatchObject({ code: 'not_found' });
    await expect(api.parcelTableKeys({ account: ACC, farm: notMine.local_id })).rejects.toMatchObject({ code: 'not_found' });
    expect(await names({ filters: [{ column: 'name', op: 'equals', value: 'secret' }] })).toEqual([]);
  });
});

describe("an export of the table's rows", () => {
  it('holds the rows shown, filtered and in their order, as CSV or GeoJSON; never of another account', async () => {
    const bytes = new ByteResources(join(dir, 'exports'));
    const page = inProcess<Api>({ ...backend.handlers, ...downloadHandlers(backend.mirror, bytes.session()) });
    const read = async (path: string) => {
      const opened = (await bytes.open(parseBytesPath(path)!))!;
      try {
        return await opened.handle!.readFile('utf8');
      } finally {
        await opened.handle!.close();
      }
    };
    const table: TableQuery = { account: ACC, filters: [{ column: 'meta:soil', op: 'notEmpty' }], sort: { column: 'hectares', desc: true } };
    const csv = await page.exportDownload({ account: ACC, table, format: 'csv' });
    expect([csv.parcels, csv.fileName]).toEqual([4, 'T table.csv']);
    const lines = (await read(csv.path)).trim().split('\r\n');
    expect(lines.slice(1).map((l) => l.split(',')[3])).toEqual(['Alpha', 'beta', 'Epsilon', 'gamma']);
    const geo = await page.exportDownload({ account: ACC, table: { ...table, farm: south.local_id }, format: 'geojson' });
    expect((JSON.parse(await read(geo.path)) as { features: { properties: { name: string } }[] }).features.map((f) => f.properties.name)).toEqual(['Epsilon']);
    expect(geo.fileName).toBe('South table.geojson');
    await expect(page.exportDownload({ account: OTHER, table, format: 'csv' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(page.exportDownload({ account: ACC, table: { account: ACC, farm: notMine.local_id }, format: 'csv' })).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('a bulk edit from the table', () => {
  it('sets a metadata key on 500 parcels as one edit, queues 500 updates, and one undo brings every parcel back', async () => {
    const m = backend.mirror;
    const farm = m.write.createFarm(ACC, 'Bulk');
    m.write.createParcels(farm.local_id, Array.from({ length: 500 }, (_, i) => parcel(`B${i}`, 1, { n: i, keep: 'yes' })));
    m.syncDb.prepare("UPDATE outbox SET state = 'committed' WHERE state = 'queued'").run();
    const ids = await api.parcelTableIds({ query: { account: ACC, farm: farm.local_id }, offset: 0, limit: 1000 });
    expect(ids).toHaveLength(500);
    const entries = () => m.syncDb.prepare('SELECT count(*) FROM history WHERE undone = 0').pluck().get() as number;
    const before = entries();
    expect(await api.bulkEditParcels({ account: ACC, parcels: ids, edit: { metadata: { key: 'status', value: 'fallow' } } })).toEqual({ parcels: 500 });
    expect(entries()).toBe(before + 1);
    expect((await api.history({ account: ACC })).undo).toBe('Bulk edit of 500 parcel(s): set status');
    expect(m.syncDb.prepare("SELECT count(*) FROM outbox WHERE entity = 'parcel' AND op = 'update' AND state = 'queued'").pluck().get()).toBe(500);
    expect(await names({ farm: farm.local_id, filters: [{ column: 'meta:status', op: 'equals', value: 'fallow' }] }, 0, 1000)).toHaveLength(500);
    // The other keys are kept.
    expect(JSON.parse(m.read.parcel(ids[7]!)!.metadata)).toMatchObject({ keep: 'yes', status: 'fallow' });

    expect(await api.undo({ account: ACC })).toBe('Bulk edit of 500 parcel(s): set status');
    expect(await names({ farm: farm.local_id, filters: [{ column: 'meta:status', op: 'notEmpty' }] }, 0, 1000)).toEqual([]);
    expect(JSON.parse(m.read.parcel(ids[7]!)!.metadata)).toEqual({ n: expect.any(Number), keep: 'yes' });
  });

  it('removes a key and adds an active crop to each parcel, in one undo step', async () => {
    const ids = await api.parcelTableIds({ query: { account: ACC, farm: south.local_id }, offset: 0, limit: 10 });
    await api.bulkEditParcels({ account: ACC, parcels: ids, edit: { metadata: { key: 'soil', value: null }, crop: { name: 'Oats', campaign: '2026' } } });
    const rows = (await api.parcelTable({ query: { account: ACC, farm: south.local_id }, offset: 0, limit: 10 })).rows;
    expect(rows.map((r) => [r.name, r.crop, r.metadata.soil])).toEqual([['delta', 'Oats', undefined], ['Epsilon', 'Oats', undefined]]);
    await api.undo({ account: ACC });
    const back = (await api.parcelTable({ query: { account: ACC, farm: south.local_id }, offset: 0, limit: 10 })).rows;
    expect(back.map((r) => [r.name, r.crop, r.metadata.soil])).toEqual([['delta', 'Barley', undefined], ['Epsilon', null, 'sand']]);
  });

  it('refuses the whole edit when one parcel would be invalid, or is not the account\'s: nothing changes', async () => {
    const m = backend.mirror;
    const ids = await api.parcelTableIds({ query: { account: ACC, farm: north.local_id }, offset: 0, limit: 10 });
    const history = (await api.history({ account: ACC })).undo;
    await expect(api.bulkEditParcels({ account: ACC, parcels: ids, edit: { metadata: { key: 'note', value: 'x'.repeat(100_000) } } })).rejects.toMatchObject({ code: 'invalid_parcel' });
    const secret = m.syncDb.prepare("SELECT local_id FROM parcels WHERE name = 'secret'").pluck().get() as string;
    await expect(api.bulkEditParcels({ account: ACC, parcels: [...ids, secret], edit: { metadata: { key: 'note', value: 'x' } } })).rejects.toMatchObject({ code: 'not_found' });
    await expect(api.bulkEditParcels({ account: ACC, parcels: ids, edit: {} })).rejects.toMatchObject({ code: 'invalid_parcel' });
    expect((await api.history({ account: ACC })).undo).toBe(history);
    expect(await api.parcelTableKeys({ account: ACC, farm: north.local_id })).toEqual(['depth', 'irrigated', 'soil']);
  });
});
