// Crop rotations through core/api.ts, as the app will use them: a real mirror host process, a real local service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as } from '../test/helpers/engine.ts';
import { square } from '../test/helpers/service.ts';
import { events, hostWorld, type HostWorld } from '../test/helpers/host.ts';
import type { Host } from './launch.ts';
import { RpcCode } from '../core/rpc.ts';

let hw: HostWorld;
beforeAll(async () => { hw = await hostWorld(); });
afterAll(async () => { await hw?.close(); });

const poly = (lon: number, lat: number) => ({ type: 'Polygon' as const, coordinates: square(lon, lat, 100) });
const parcelInput = (name: string, lon: number) => ({ name, geom: { type: 'Feature', properties: {}, geometry: poly(lon, 38.5) } });

/** A farm with parcels on the service, for an account; their server ids by name. */
async function serviceFarm(acc: string, name: string, parcels: string[]): Promise<Record<string, number>> {
  const r = await hw.w.api('POST', '/api/farms/', { farm: { name }, parcels: parcels.map((p, i) => parcelInput(p, -5 + i * 0.01)) }, as(acc));
  expect(r.status).toBe(201);
  return Object.fromEntries((r.body.parcels as { id: number; properties: { name: string } }[]).map((p) => [p.properties.name, p.id]));
}
async function serviceCrop(acc: string, body: Record<string, unknown>): Promise<{ id: number; family: { id: number } | null }> {
  const r = await hw.w.api('POST', '/api/crops/', body, as(acc));
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}
const parcelId = async (h: Host, acc: string, name: string) => (await h.api.search({ account: acc, text: name })).find((f) => f.properties.name === name)!.id;

// Each test starts a host and syncs with the service process: well under a minute, even on a busy 2-core machine.
describe('crop rotations through the mirror host', () => {
  it("shows a parcel's rotation and the farm's campaigns as the service has them, flagging a family that follows itself", async () => {
    const { h, acc } = await hw.connected();
    expect(await h.api.cropFamilies({ account: acc })).toEqual([]);
    expect((await hw.w.api('POST', '/api/crop-families/', { name: 'Testaceae', observation: 'Made up for the test' })).status).toBe(201);
    const ids = await serviceFarm(acc, 'Rotations', ['North', 'South', 'East']);
    const wheat = await serviceCrop(acc, {
      parcel: ids.North, name: 'Wheat', campaign: '2022/2023', family: { name: 'Poaceae' }, sowing: '2022-10-15', closure: '2023-07-01',
      harvested_qty: 5.2, area: 1, is_active: false,
    });
    await serviceCrop(acc, { parcel: ids.North, name: 'Barley', variety: 'Planet', campaign: '2023/2024', family: { name: 'Poaceae' }, is_active: false });
    await serviceCrop(acc, { parcel: ids.North, name: 'Chickpea', campaign: '2024/2025', family: { name: 'Fabaceae' } });
    await serviceCrop(acc, { parcel: ids.South, name: 'Sunflower', campaign: '2023/2024', family: { name: 'Asteraceae' }, is_active: false });
    await serviceCrop(acc, { parcel: ids.South, name: 'Wheat', campaign: '2024/2025', family: { name: 'Poaceae' }, sowing: '2024-10-20', closure: '2025-07-01', is_active: false });
    // No campaign: placed by its dates, sown right after the wheat's closure.
    await serviceCrop(acc, { parcel: ids.South, name: 'Oats', family: { name: 'Poaceae' }, sowing: '2025-08-01' });
    expect((await h.api.sync({ account: acc }))[0]).toMatchObject({ synced: true });

    const families = await h.api.cropFamilies({ account: acc });
    expect(families.find((f) => f.name === 'Testaceae')).toMatchObject({ observation: 'Made up for the test' });
    expect(families.map((f) => f.name)).toEqual([...families.map((f) => f.name)].sort((a, b) => a.localeCompare(b)));
    const poaceae = families.find((f) => f.name === 'Poaceae')!.id;
    expect(poaceae).toBe(wheat.family!.id);
    // What the map is coloured among: every family offered, and the active crops' names (the past ones are not shown).
    const names = await h.api.cropColourNames({ account: acc });
    expect(names.families.sort()).toEqual(families.map((f) => f.name).sort());
    expect(names.crops.sort()).toEqual(['Chickpea', 'Oats']);

    const north = await h.api.rotation({ parcel: await parcelId(h, acc, 'North') });
    expect(north.map((c) => c.name)).toEqual(['Chickpea', 'Barley', 'Wheat']);
    const [chickpea, barley, oldWheat] = north;
    expect(oldWheat).toMatchObject({
      serverId: wheat.id, campaign: '2022/2023', variety: null, family: { id: poaceae, name: 'Poaceae' }, sowing: '2022-10-15', closure: '2023-07-01',
      harvestedQty: 5.2, area: 1, active: false, state: 'synced', reason: null, warnings: [],
    });
    expect(barley!.warnings).toEqual([{ code: 'family_repeats', after: oldWheat!.id, family: 'Poaceae', by: 'campaign', message: 'Poaceae again on this parcel, right after Wheat, 2022/2023' }]);
    expect(chickpea).toMatchObject({ active: true, variety: null, warnings: [] });

    const farm = (await h.api.farms({ account: acc }))[0]!;
    const grid = await h.api.farmRotation({ farm: farm.id });
    expect(grid.campaigns).toEqual(['2022/2023', '2023/2024', '2024/2025', null]);
    expect(grid.parcels.map((p) => p.name)).toEqual(['East', 'North', 'South']);
    const cells = (name: string) => grid.parcels.find((p) => p.name === name)!.cells;
    expect(cells('East').map((c) => c.crops.length)).toEqual([0, 0, 0, 0]);
    expect(cells('North').map((c) => [c.campaign, c.crops.map((x) => x.name), c.familyRepeats])).toEqual([
      ['2022/2023', ['Wheat'], false], ['2023/2024', ['Barley'], true], ['2024/2025', ['Chickpea'], false], [null, [], false],
    ]);
    // After the sunflower, the wheat is fine; the oats without a campaign follow the wheat by their dates.
    expect(cells('South').map((c) => [c.crops.map((x) => x.name), c.familyRepeats])).toEqual([[[], false], [['Sunflower'], false], [['Wheat'], false], [['Oats'], true]]);
    expect(cells('South')[3]!.crops[0]!.warnings).toMatchObject([{ by: 'dates', family: 'Poaceae' }]);

    // One campaign: the barley is still flagged, by the wheat of the campaign before (not shown).
    const one = await h.api.farmRotation({ farm: farm.id, campaign: '2023/2024' });
    expect(one.campaigns).toEqual(['2023/2024']);
    expect(one.parcels.map((p) => p.cells.map((c) => [c.crops.map((x) => x.name), c.familyRepeats]))).toEqual([[[[], false]], [[['Barley'], true]], [[['Sunflower'], false]]]);

    // The map coloured by crop: each parcel with its active crop and family (the newest sowing), none without.
    const box: [number, number, number, number] = [-5.1, 38.4, -4.9, 38.6];
    const shown = await h.api.viewport({ account: acc, bbox: box, crops: true });
    const cropOf = (name: string) => shown.features.find((f) => f.properties.name === name)!.properties.crop;
    expect([cropOf('North'), cropOf('South'), cropOf('East')]).toEqual([{ name: 'Chickpea', family: 'Fabaceae' }, { name: 'Oats', family: 'Poaceae' }, null]);
    const plain = await h.api.viewport({ account: acc, bbox: box });
    expect(plain.features.map((f) => 'crop' in f.properties)).toEqual([false, false, false]);
    // Otherwise the same features.
    expect(shown.features.map((f) => { const { crop: _, ...rest } = f.properties; return { ...f, properties: rest }; })).toEqual(plain.features);

    await expect(h.api.rotation({ parcel: 'no-such-parcel' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.api.farmRotation({ farm: 'no-such-farm' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.api.cropFamilies({ account: 'acc-nope' })).rejects.toMatchObject({ code: 'no_account' });
  }, 60_000);

  it('edits crops offline through the outbox, validated, with change events; a crop waits for its parcel and reaches the service with its family', async () => {
    const { h, acc } = await hw.connected();
    await h.api.sync({ account: acc }); // the service's families
    const poaceae = (await h.api.cropFamilies({ account: acc })).find((f) => f.name === 'Poaceae')!.id;
    const farm = await h.api.createFarm({ account: acc, name: 'Offline rotations' });
    const parcel = await h.api.createParcel({ farm: farm.id, name: 'New field', geometry: poly(-5.5, 38.5) });
    const ev = events(h);

    // A family named ignoring case is the service's own.
    const wheat = await h.api.createCrop({ parcel: parcel.id, name: 'Wheat', campaign: '2024', family: { name: ' poaceae' }, sowing: '2024-01-15', closure: '2024-07-01', harvestedQty: 4, area: 2 });
    expect(wheat).toMatchObject({ parcel: parcel.id, serverId: null, family: { id: poaceae, name: 'Poaceae' }, harvestedQty: 4, area: 2, active: true, state: 'pending', warnings: [] });
    await ev.until((e) => e.type === 'changed' && e.crops.includes(wheat.id));
    const barley = await h.api.createCrop({ parcel: parcel.id, name: 'Barley', campaign: '2025', family: { id: poaceae } });
    expect(barley.warnings).toMatchObject([{ after: wheat.id, family: 'Poaceae' }]);
    const quinoa = await h.api.createCrop({ parcel: parcel.id, name: 'Quinoa', campaign: '2026', family: { name: 'Pseudocereals' }, active: false });
    expect(quinoa).toMatchObject({ family: { id: null, name: 'Pseudocereals' }, active: false });

    // What the service would refuse is refused here, with every problem; nothing is written.
    const refused = async (args: Parameters<Host['api']['createCrop']>[0], code: string, problem?: string) => {
      const err = await h.api.createCrop(args).then(() => null, (e: unknown) => e);
      expect(err).toMatchObject({ code });
      if (problem) expect((err as { details: { code: string }[] }).details.map((d) => d.code)).toContain(problem);
    };
    await refused({ parcel: parcel.id, sowing: '2024-05-01', closure: '2024-04-01' }, 'invalid_crop', 'closure_before_sowing');
    await refused({ parcel: parcel.id, sowing: '2024-02-30' }, 'invalid_crop', 'format');
    await refused({ parcel: parcel.id, area: -1 }, 'invalid_crop', 'minimum');
    await refused({ parcel: parcel.id, name: 'x'.repeat(256) }, 'invalid_crop', 'type');
    await refused({ parcel: parcel.id, family: { id: 999_999 } }, 'invalid_crop', 'unknown_family');
    await refused({ parcel: parcel.id, family: { name: '   ' } }, RpcCode.invalidArguments);
    await refused({ parcel: 'no-such-parcel', name: 'Lost' }, 'not_found');
    await expect(h.api.updateCrop({ id: wheat.id, closure: '2023-12-31' })).rejects.toMatchObject({ code: 'invalid_crop', details: [{ code: 'closure_before_sowing' }] });
    expect((await h.api.rotation({ parcel: parcel.id })).map((c) => c.name)).toEqual(['Quinoa', 'Barley', 'Wheat']);

    // Another family: the warning goes; a field left out stays as it was.
    ev.clear();
    const changed = await h.api.updateCrop({ id: barley.id, family: { name: 'Fabaceae' }, variety: 'Planet' });
    expect(changed).toMatchObject({ name: 'Barley', campaign: '2025', variety: 'Planet', family: { name: 'Fabaceae' }, warnings: [] });
    await ev.until((e) => e.type === 'changed' && e.crops.includes(barley.id));
    await h.api.deleteCrop({ id: quinoa.id });
    await ev.until((e) => e.type === 'changed' && e.crops.includes(quinoa.id));
    expect(await h.api.undo({ account: acc })).toBe('Delete crop');
    expect((await h.api.rotation({ parcel: parcel.id })).map((c) => c.name)).toEqual(['Quinoa', 'Barley', 'Wheat']);
    await expect(h.api.deleteCrop({ id: 'no-such-crop' })).rejects.toMatchObject({ code: 'not_found' });

    // The farm, its parcel, then its crops: each crop waited for its parcel's server id.
    expect((await h.api.sync({ account: acc }))[0]).toMatchObject({ synced: true, left: 0, rejected: 0 });
    const synced = await h.api.rotation({ parcel: parcel.id });
    expect(synced.map((c) => [c.name, c.state])).toEqual([['Quinoa', 'synced'], ['Barley', 'synced'], ['Wheat', 'synced']]);
    expect(synced.every((c) => c.serverId !== null)).toBe(true);
    // The service created the new family (the organization's API key may), and the next pull knows its id.
    expect(synced[0]!.family).toEqual({ id: expect.any(Number), name: 'Pseudocereals' });
    const serverParcel = (await h.api.parcel({ id: parcel.id })).properties.serverId!;
    const onService = (await hw.w.api('GET', `/api/parcels/${serverParcel}/crops/`, undefined, as(acc))).body as { name: string; family: { name: string } | null; variety: string | null }[];
    expect(onService.map((c) => [c.name, c.family?.name, c.variety]).sort()).toEqual([['Barley', 'Fabaceae', 'Planet'], ['Quinoa', 'Pseudocereals', null], ['Wheat', 'Poaceae', null]]);

    await h.api.deleteCrop({ id: quinoa.id });
    expect((await h.api.rotation({ parcel: parcel.id }))[0]).toMatchObject({ name: 'Barley' });
    expect((await h.api.sync({ account: acc }))[0]).toMatchObject({ synced: true, committed: 1 });
    expect(((await hw.w.api('GET', `/api/parcels/${serverParcel}/crops/`, undefined, as(acc))).body as unknown[])).toHaveLength(2);
  }, 60_000);

  it("refuses a new family on an account connected by token (the service would), and takes one of the service's", async () => {
    const acc = await hw.newAccount();
    const h = await hw.host();
    await h.api.connect({ service: hw.w.svc.url, account: acc, apiKey: hw.w.apiKey, bearer: true });
    await h.api.sync({ account: acc });
    const farm = await h.api.createFarm({ account: acc, name: 'Token farm' });
    const parcel = await h.api.createParcel({ farm: farm.id, name: 'Token field', geometry: poly(-6, 38.5) });
    await expect(h.api.createCrop({ parcel: parcel.id, name: 'Quinoa', family: { name: 'Neweaceae' } })).rejects.toMatchObject({ code: 'invalid_crop', details: [{ code: 'unknown_family' }] });
    const oats = await h.api.createCrop({ parcel: parcel.id, name: 'Oats', family: { name: 'POACEAE' } });
    expect(oats.family).toMatchObject({ name: 'Poaceae' });
    expect((await h.api.sync({ account: acc }))[0]).toMatchObject({ synced: true, rejected: 0, left: 0 });
  }, 60_000);
});
