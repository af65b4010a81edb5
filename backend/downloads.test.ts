// The app's export as a download (core/api-export.ts exportDownload) through the handlers of one page session,
// on a real mirror: a farm's parcels (written page by page, as the CLI's exportFile — the same bytes) or the ones
// chosen, as GeoJSON or CSV, registered in that session's bytes and named after what they hold; another account's
// farm refused, another account's parcel left out, a deleted one too; none without a page session. (bytes-server.test.ts
// serves it over HTTP from a real host.)
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Backend } from './backend.ts';
import { fileBase } from './export.ts';
import { ByteResources } from './bytes.ts';
import { downloadHandlers } from './downloads.ts';
import { inProcess, RpcCode } from '../core/rpc.ts';
import type { Api } from '../core/api.ts';
import { parseBytesPath } from '../core/bytes-protocol.ts';
import { pointParcel } from '../test/helpers/service.ts';

const dir = mkdtempSync(join(tmpdir(), 'furrow-downloads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ACC = 'acc-00000000-0000-4000-8000-0000000000e1';
const OTHER = 'acc-00000000-0000-4000-8000-0000000000e2';

describe('exportDownload', () => {
  it("writes a farm's parcels or the chosen ones as GeoJSON or CSV for the page session's bytes", async () => {
    const backend = new Backend({ home: dir });
    const bytes = new ByteResources(join(dir, 'exports'));
    const session = bytes.session();
    const api = inProcess<Api>({ ...backend.handlers, ...downloadHandlers(backend.mirror, session) });
    /** The file a download's path leads to, as the page would fetch it. */
    const fetched = async (path: string) => {
      const opened = (await bytes.open(parseBytesPath(path)!))!;
      if (!opened.handle) throw new Error('a download is a file');
      try {
        return { text: await opened.handle.readFile('utf8'), meta: opened.meta };
      } finally {
        await opened.handle.close();
      }
    };
    try {
      const m = backend.mirror;
      for (const id of [ACC, OTHER]) m.syncDb.prepare("INSERT INTO accounts (id, service_url, mode, label, created) VALUES (?, 'http://127.0.0.1:1', 'api_key', 'Grower', '2026-01-01')").run(id);
      const farm = m.write.createFarm(ACC, 'Finca: Norte/Sur');
      const [a, b] = m.write.createParcels(farm.local_id, [pointParcel('Olivo 1', 2), pointParcel('Olivo 2', 3)]).created;
      const other = m.write.createFarm(OTHER, 'Not mine');

      const progress: [number, number][] = [];
      const geo = await api.exportDownload({ account: ACC, farm: farm.local_id, format: 'geojson' }, { onProgress: (p) => progress.push([p.done, p.total]) });
      expect([geo.parcels, geo.fileName]).toEqual([2, 'Finca NorteSur.geojson']);
      expect(progress.at(-1)).toEqual([2, 2]);
      const got = await fetched(geo.path);
      expect(got.meta).toMatchObject({ type: 'application/geo+json', fileName: 'Finca NorteSur.geojson', download: true, size: geo.bytes });
      const parsed = JSON.parse(got.text) as { features: { properties: { name: string; hectares: number } }[] };
      expect(parsed.features.map((f) => [f.properties.name, f.properties.hectares])).toEqual([['Olivo 1', 2], ['Olivo 2', 3]]);
      // The command line's export of the farm, byte for byte.
      const reference = join(dir, 'reference.geojson');
      await api.exportFile({ path: reference, farm: farm.local_id });
      expect(got.text).toBe(readFileSync(reference, 'utf8'));
      // The host's copy is the user's alone.
      if (process.platform !== 'win32') {
        const files = readdirSync(join(dir, 'exports'));
        expect(files).toHaveLength(1);
        expect(statSync(join(dir, 'exports', files[0]!)).mode & 0o777).toBe(0o600);
      }

      const csv = await api.exportDownload({ account: ACC, parcels: [b!.local_id], format: 'csv' });
      expect([csv.parcels, csv.fileName]).toEqual([1, 'Olivo 2.csv']);
      const text = (await fetched(csv.path)).text;
      expect(text.split('\r\n').filter(Boolean)).toHaveLength(2);
      expect(text).toContain('Olivo 2');
      // A deleted parcel is left out.
      m.write.deleteParcel(a!.local_id);
      expect((await api.exportDownload({ account: ACC, parcels: [a!.local_id, b!.local_id], format: 'geojson' })).parcels).toBe(1);

      // Only what the service never got (a stale account's work, saved before it is removed): a parcel whose change
      // was sent is left out, and the changes that are no parcel's (here a farm's creation) are counted.
      m.write.createFarm(ACC, 'Empty, never sent');
      const sent = m.write.createFarm(ACC, 'Sent farm');
      const [done, waiting] = m.write.createParcels(sent.local_id, [pointParcel('Sent one', 1), pointParcel('Never sent', 2)]).created;
      m.syncDb.prepare("UPDATE outbox SET state = 'committed' WHERE local_id IN (?, ?, ?, ?)").run(sent.local_id, done!.local_id, farm.local_id, b!.local_id);
      m.syncDb.prepare("UPDATE outbox SET state = 'blocked' WHERE local_id = ?").run(waiting!.local_id);
      const unsent = await api.exportDownload({ account: ACC, unsent: true, format: 'geojson' });
      expect([unsent.parcels, unsent.fileName]).toEqual([1, 'Grower unsent.geojson']);
      expect((JSON.parse((await fetched(unsent.path)).text) as { features: { properties: { name: string } }[] }).features.map((f) => f.properties.name)).toEqual(['Never sent']);
      const otherOps = m.syncDb.prepare("SELECT count(*) FROM outbox WHERE account_id = ? AND state != 'committed' AND local_id != ?").pluck().get(ACC, waiting!.local_id) as number;
      expect(otherOps).toBeGreaterThan(0); // the empty farm's
      expect(unsent.otherUnsent).toBe(otherOps);

      await expect(api.exportDownload({ account: ACC, farm: other.local_id, format: 'csv' })).rejects.toMatchObject({ code: 'not_found' });
      // Another account's parcel is not exported through this one.
      const [theirs] = m.write.createParcels(other.local_id, [pointParcel('Theirs', 1)]).created;
      expect((await api.exportDownload({ account: ACC, parcels: [theirs!.local_id], format: 'csv' })).parcels).toBe(0);
      await expect(api.exportDownload({ account: 'acc-nope', format: 'csv' })).rejects.toMatchObject({ code: 'no_account' });

      // Without a page session (the CLI in process): refused.
      await expect(inProcess<Api>(backend.handlers).exportDownload({ account: ACC, format: 'csv' })).rejects.toMatchObject({ code: RpcCode.forbidden });
      // The session gone while a file was written: refused, nothing kept.
      session.close();
      await expect(api.exportDownload({ account: ACC, farm: farm.local_id, format: 'csv' })).rejects.toMatchObject({ code: RpcCode.disconnected });
    } finally {
      bytes.close();
      backend.close();
    }
  }, 60_000);

  it('writes a chosen coordinate system, says it in the file name, and refuses one it cannot write (invalid_crs)', async () => {
    const home = mkdtempSync(join(dir, 'crs-'));
    const backend = new Backend({ home });
    const bytes = new ByteResources(join(home, 'exports'));
    const api = inProcess<Api>({ ...backend.handlers, ...downloadHandlers(backend.mirror, bytes.session(), home) });
    try {
      const m = backend.mirror;
      m.syncDb.prepare("INSERT INTO accounts (id, service_url, mode, label, created) VALUES (?, 'http://127.0.0.1:1', 'api_key', 'Grower', '2026-01-01')").run(ACC);
      const farm = m.write.createFarm(ACC, 'Cortijo');
      m.write.createParcels(farm.local_id, [pointParcel('Pozo', 2)]);
      const r = await api.exportDownload({ account: ACC, farm: farm.local_id, format: 'geojson', crs: 25830 });
      expect(r.fileName).toBe('Cortijo EPSG-25830.geojson');
      const opened = (await bytes.open(parseBytesPath(r.path)!))!;
      if (!opened.handle) throw new Error('a download is a file');
      const doc = JSON.parse(await opened.handle.readFile('utf8')) as { crs: unknown; features: { geometry: { coordinates: number[] } }[] };
      await opened.handle.close();
      expect(doc.crs).toEqual({ type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::25830' } });
      // pointParcel's −4.78, 37.88 in UTM zone 30N: metres, not degrees.
      expect(doc.features[0]!.geometry.coordinates[0]).toBeGreaterThan(300_000);
      // 4326 is the default, said nowhere.
      expect((await api.exportDownload({ account: ACC, farm: farm.local_id, format: 'csv', crs: 4326 })).fileName).toBe('Cortijo.csv');
      await expect(api.exportDownload({ account: ACC, farm: farm.local_id, format: 'csv', crs: 1 }))
        .rejects.toMatchObject({ code: 'invalid_crs', message: 'Cannot export in EPSG:1: EPSG:1 is not in the EPSG definitions Furrow has', details: { code: 'crs_unknown' } });
      // British National Grid needs OSTN15, which the home's grids folder does not hold: the message says where it goes.
      await expect(api.exportDownload({ account: ACC, farm: farm.local_id, format: 'csv', crs: 27700 }))
        .rejects.toMatchObject({ code: 'invalid_crs', message: expect.stringContaining(`OSTN15_NTv2_OSGBtoETRS.gsb for its datum shift, the only accurate one, and Furrow does not have it: put it in ${join(home, 'grids')}`) as unknown,
          details: { code: 'grid_missing', grids: ['OSTN15_NTv2_OSGBtoETRS.gsb'] } });
    } finally {
      bytes.close();
      backend.close();
    }
  }, 60_000);

  it('names files after what they hold, keeping letters of every script', () => {
    expect(fileBase('Finca: Norte/Sur')).toBe('Finca NorteSur');
    expect(fileBase('Hof Sönnenfeld  Ä-1_b.c')).toBe('Hof Sönnenfeld Ä-1_b.c');
    expect(fileBase('***')).toBe('parcels');
  });
});
