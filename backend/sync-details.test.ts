// The sync cockpit's conflicts through core/api.ts, as the app uses them: a real mirror host, a real local service. A
// crop edited here and on the service lists both sides field by field, and is settled field by field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as } from '../test/helpers/engine.ts';
import { square } from '../test/helpers/service.ts';
import { hostWorld, type HostWorld } from '../test/helpers/host.ts';
import { ApiErrorCode } from '../core/api-codes.ts';

let hw: HostWorld;
beforeAll(async () => { hw = await hostWorld(); });
afterAll(async () => { await hw?.close(); });

describe('a crop conflict in the sync cockpit', () => {
  it('shows both sides of each field and settles them field by field: the service holds the mix', async () => {
    const { h, acc } = await hw.connected();
    const farm = await hw.w.api('POST', '/api/farms/', { farm: { name: 'Crop clash' }, parcels: [{ name: 'North', geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: square(-5, 38.5, 100) } } }] }, as(acc));
    expect(farm.status).toBe(201);
    const parcel = (farm.body.parcels as { id: number }[])[0]!.id;
    const made = await hw.w.api('POST', '/api/crops/', { parcel, name: 'Wheat', variety: 'Artur', campaign: '2025/2026', harvested_qty: 4, family: { name: 'Poaceae' } }, as(acc));
    expect(made.status).toBe(201);
    expect((await h.api.sync({ account: acc }))[0]).toMatchObject({ synced: true });
    const north = (await h.api.search({ account: acc, text: 'North' }))[0]!.id;
    const [crop] = await h.api.rotation({ parcel: north });

    // Variety and quantity edited on both sides; the campaign only here.
    await h.api.updateCrop({ id: crop!.id, variety: 'Mine', harvestedQty: 5, campaign: '2026/2027' });
    const patched = await hw.w.api('PATCH', `/api/crops/${made.body.id}/`, { variety: 'Theirs', harvested_qty: 6 }, as(acc));
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect((await h.api.sync({ account: acc }))[0]).toMatchObject({ synced: false, conflicts: 1 });

    const [c, ...more] = (await h.api.syncDetails({ account: acc })).conflicts;
    expect(more).toEqual([]);
    expect(c).toMatchObject({ entity: 'crop', kind: 'edit', name: 'Wheat' });
    const side = (f: string) => c!.differences.find((d) => d.field === f);
    expect(side('variety')).toEqual({ field: 'variety', mine: 'Mine', theirs: 'Theirs', overlaps: true });
    expect(side('harvested_qty')).toEqual({ field: 'harvested_qty', mine: '5', theirs: '6', overlaps: true });
    expect(side('campaign')).toMatchObject({ mine: '2026/2027', theirs: '2025/2026', overlaps: false });
    expect(side('family_id')).toBeUndefined();

    await expect(h.api.resolve({ conflict: c!.id, keep: 'mine', fields: { colour: 'theirs' } })).rejects.toMatchObject({ code: ApiErrorCode.invalidChoice });
    await h.api.resolve({ conflict: c!.id, keep: 'mine', fields: { variety: 'theirs', harvested_qty: 'mine' } });
    expect((await h.api.sync({ account: acc }))[0]).toMatchObject({ synced: true });
    const onService = await hw.w.api('GET', `/api/crops/${made.body.id}/`, undefined, as(acc));
    expect(onService.body).toMatchObject({ variety: 'Theirs', harvested_qty: 5, campaign: '2026/2027' });
    expect((await h.api.syncDetails({ account: acc })).conflicts).toEqual([]);
  }, 120_000);
});
