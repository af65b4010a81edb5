// The rotation plan through core/api.ts against a real mirror host process in browser mode: a farm's rule set kept
// in the mirror (defaults until chosen, each farm its own, refused in words when it cannot be kept), the current
// campaign the plan starts after, and the plan exported by a page — the campaign summary as CSV, the plan with its
// rule set and violations as JSON — at the bytes path answered, never to the command line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { RpcCode } from '../core/rpc.ts';
import { defaultRuleSet } from '../core/crops/rule-set.ts';
import { Mirror } from '../db/mirror.ts';
import { pointParcel } from '../test/helpers/service.ts';
import { startBrowserHost, type BrowserHost } from '../test/helpers/browser-host.ts';

const ACC = 'acc-00000000-0000-4000-8000-0000000000c1';
let b: BrowserHost;
let farm: string;
let other: string;

beforeAll(async () => {
  b = await startBrowserHost('furrow-plan-', {
    ttlMs: 60_000,
    prepare: (h) => {
      const m = Mirror.open(join(h, 'mirror.db'));
      m.syncDb.prepare("INSERT INTO accounts (id, service_url, mode, label, created) VALUES (?, 'http://127.0.0.1:1', 'api_key', 'Grower', '2026-01-01')").run(ACC);
      farm = m.write.createFarm(ACC, 'Finca Plan').local_id;
      const withRegion = (p: ReturnType<typeof pointParcel>, region: string) => ({ ...p, metadata: { region } });
      const { created } = m.write.createParcels(farm, [withRegion(pointParcel('North', 20, -4, 37), 'n'), withRegion(pointParcel('South', 20, -4.01, 37), 's')]);
      const [north, south] = created;
      const crop = (p: string, campaign: string, name: string, family: string, active = false, sowing: string | null = null) =>
        m.write.createCrop(ACC, p, { campaign, name, family_name: family, is_active: active, sowing });
      crop(north!.local_id, '2023/2024', 'Chickpea', 'Fabaceae', false, '2023-10-10');
      crop(north!.local_id, '2024/2025', 'Wheat', 'Poaceae', true, '2024-10-10');
      crop(south!.local_id, '2024/2025', 'Sunflower', 'Asteraceae', false, '2024-10-10');
      // The plan: a Fabaceae back after two years, and one crop on the whole farm.
      crop(north!.local_id, '2025/2026', 'Lentil', 'Fabaceae');
      crop(south!.local_id, '2025/2026', 'Lentil', 'Fabaceae');
      other = m.write.createFarm(ACC, 'Other').local_id;
      m.close();
    },
  });
}, 120_000);
afterAll(async () => { await b?.close(); });

describe('the rotation plan through the host', () => {
  it("keeps each farm's rule set, the defaults until one is chosen, and refuses one that cannot be kept", async () => {
    const page = await b.tab();
    expect(await page.api.rotationRules({ farm })).toEqual({ farm, rules: defaultRuleSet(), chosen: false });
    const mine = { ...defaultRuleSet(), diversification: 'custom' as const, returnPeriods: [{ family: 'Fabaceae', years: 2 }] };
    expect(await page.api.setRotationRules({ farm, rules: mine })).toEqual({ farm, rules: mine, chosen: true });
    expect(await page.api.rotationRules({ farm })).toEqual({ farm, rules: mine, chosen: true });
    expect((await page.api.rotationRules({ farm: other })).chosen).toBe(false);
    await expect(page.api.setRotationRules({ farm, rules: { ...mine, returnPeriods: [{ family: 'Poaceae', years: 2 }, { family: 'POACEAE', years: 3 }] } }))
      .rejects.toMatchObject({ code: 'invalid_rules', message: 'POACEAE has two return periods' });
    await expect(page.api.setRotationRules({ farm, rules: { ...mine, maxSameCrop: -1 } })).rejects.toMatchObject({ code: RpcCode.invalidArguments });
    await expect(page.api.setRotationRules({ farm: 'no-such-farm', rules: null })).rejects.toMatchObject({ code: 'not_found' });
    // Nothing lost by the refusals.
    expect((await page.api.rotationRules({ farm })).rules).toEqual(mine);
    expect(await page.api.setRotationRules({ farm, rules: null })).toEqual({ farm, rules: defaultRuleSet(), chosen: false });
    await page.close();
  });

  it('tells the current campaign, the plan after it, and colours the map by a chosen campaign', async () => {
    const page = await b.tab();
    const grid = await page.api.farmRotation({ farm });
    expect(grid.current).toBe(2024);
    expect(grid.campaigns).toEqual(['2023/2024', '2024/2025', '2025/2026']);
    expect(await page.api.mapCampaigns({ account: ACC })).toEqual([
      { campaign: '2023/2024', planned: false }, { campaign: '2024/2025', planned: false }, { campaign: '2025/2026', planned: true },
    ]);
    const crops = async (campaign?: string) => Object.fromEntries((await page.api.viewport({ account: ACC, bbox: [-5, 36, -3, 38], crops: true, ...(campaign ? { campaign } : {}) }))
      .features.map((f) => [f.properties.name, f.properties.crop]));
    // Each parcel's active crop by default; its crop of the campaign asked, planned or past, else none.
    expect(await crops()).toEqual({ North: { name: 'Wheat', family: 'Poaceae' }, South: null });
    expect(await crops('2025/2026')).toEqual({ North: { name: 'Lentil', family: 'Fabaceae' }, South: { name: 'Lentil', family: 'Fabaceae' } });
    expect(await crops('2023/2024')).toEqual({ North: { name: 'Chickpea', family: 'Fabaceae' }, South: null });
    // With a metadata filter too (its own statement).
    expect((await page.api.viewport({ account: ACC, bbox: [-5, 36, -3, 38], crops: true, campaign: '2024/2025', metadata: { region: ['s'] } })).features.map((f) => [f.properties.name, f.properties.crop]))
      .toEqual([['South', { name: 'Sunflower', family: 'Asteraceae' }]]);
    await page.close();
  });

  it("exports the plan for a page: the summary as CSV, the plan with its rules and violations as JSON; not the command line's", async () => {
    const page = await b.tab();
    const csv = await page.api.planDownload({ farm, format: 'csv' });
    expect(csv.fileName).toBe('Finca Plan campaign summary.csv');
    const text = (await b.get(csv.path)).body.toString('utf8');
    expect(text.split('\r\n')).toEqual([
      'campaign,planned,by,name,family,hectares,share',
      '2023/2024,false,crop,Chickpea,Fabaceae,20.0000,1.0000', '2023/2024,false,family,Fabaceae,,20.0000,1.0000',
      '2024/2025,false,crop,Sunflower,Asteraceae,20.0000,0.5000', '2024/2025,false,crop,Wheat,Poaceae,20.0000,0.5000',
      '2024/2025,false,family,Asteraceae,,20.0000,0.5000', '2024/2025,false,family,Poaceae,,20.0000,0.5000',
      '2025/2026,true,crop,Lentil,Fabaceae,40.0000,1.0000', '2025/2026,true,family,Fabaceae,,40.0000,1.0000', '',
    ]);
    const json = await page.api.planDownload({ farm, format: 'json' });
    const got = await b.get(json.path);
    expect(got.headers['content-type']).toBe('application/json');
    const plan = JSON.parse(got.body.toString('utf8')) as { rules: unknown; violations: { rule: string; parcel: string | null; campaign: string }[]; parcels: { name: string; crops: { planned: boolean }[] }[] };
    expect(plan.rules).toEqual(defaultRuleSet());
    expect(plan.parcels.map((p) => [p.name, p.crops.filter((c) => c.planned).length])).toEqual([['North', 1], ['South', 1]]);
    expect(plan.violations.map((v) => `${v.rule} ${v.parcel} ${v.campaign}`)).toEqual([
      'return_period North 2025/2026', 'diversification null 2023/2024', 'diversification null 2023/2024',
      'diversification null 2024/2025', 'diversification null 2024/2025', 'diversification null 2025/2026', 'diversification null 2025/2026',
    ]);
    await expect(b.host.api.planDownload({ farm, format: 'csv' })).rejects.toMatchObject({ code: RpcCode.forbidden });
    await expect(page.api.planDownload({ farm, format: 'xml' as 'csv' })).rejects.toMatchObject({ code: RpcCode.invalidArguments });
    await page.close();
  });
});
