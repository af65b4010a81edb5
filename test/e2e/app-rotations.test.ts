// Crop rotations and plants in the app, as app.test.ts runs it (`npm start`'s launcher with the embedded demo service,
// Debian's Chromium): a demo parcel's rotation timeline read against the service's own crops; a crop added (a closure
// before its sowing refused inline first), changed and another deleted, then synced and found so on the service;
// the farm's rotation table with its family-repeat warnings where the service's crops say a family follows itself,
// one campaign at a time; the map coloured by crop family with its legend; the orchard's plants counted as the
// service counts them, searched, and one shown in its popup.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/process.ts';
import { SHOTS } from './embed-harness.ts';
import { demoApi, openApp, selectBySearch, shownOn, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';

let ctx: DemoApp;
let page: Page;
let problems: () => Promise<string[]>;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-rotations-');
  ({ page, problems } = await openApp(ctx.browser, ctx.app.url));
}, 150_000);

afterAll(async () => {
  await ctx?.stop();
});

const poll = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: 30_000 });

interface Crop { id: number; name: string | null; campaign: string | null; variety: string | null; family: { id: number; name?: string } | null; sowing: string | null; closure: string | null; is_active: boolean; parcel: number }

const api = () => demoApi(ctx);
const serviceParcel = async (name: string) => (await api().parcel(name))!;
const serviceCrops = async (parcelId: number) => api().get<Crop[]>(`/api/parcels/${parcelId}/crops/`);
const familyNames = async () => new Map((await api().get<{ id: number; name: string }[]>('/api/crop-families/')).map((f) => [f.id, f.name]));

const select = (name: string) => selectBySearch(page, name);

const timeline = () => page.locator('.rotation .crops > li.crop');
const cropTexts = () => timeline().evaluateAll((els) => els.map((e) => [e.querySelector('.crop-head strong')!.textContent, e.querySelector('.crop-name')!.textContent, e.querySelector('.badge')!.textContent]));

describe('crop rotations and plants in the app', () => {
  it("shows a parcel's rotation as the service has it, and adds, changes and deletes crops that then sync", async () => {
    await poll(() => shownOn(page)).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    await select('Olivar B');
    const parcel = await serviceParcel('Olivar B');
    const families = await familyNames();
    const before = await serviceCrops(parcel.id);
    expect(before).toHaveLength(3);
    // Newest first, each with its campaign, name and whether it is on the ground.
    const expected = [...before].sort((a, b) => (b.sowing ?? '').localeCompare(a.sowing ?? '')).map((c) => [c.campaign, c.name, c.is_active ? 'Active' : 'Past']);
    await poll(cropTexts).toEqual(expected);
    const families0 = await timeline().locator('.family').allTextContents();
    expect(families0).toEqual([...before].sort((a, b) => (b.sowing ?? '').localeCompare(a.sowing ?? '')).map((c) => families.get(c.family!.id)));

    // Add: the campaign after the newest is proposed; a closure before the sowing is refused as typed.
    await page.getByRole('button', { name: '+ Add crop' }).click();
    const form = page.getByRole('form', { name: 'New crop' });
    const newest = expected[0]![0]!;
    const next = `${Number(newest.slice(0, 4)) + 1}/${Number(newest.slice(0, 4)) + 2}`;
    expect(await form.getByLabel('Campaign').inputValue()).toBe(next);
    await form.getByLabel('Crop', { exact: true }).fill('Vetch');
    await form.getByLabel('Variety').fill('Villosa');
    await form.getByLabel('Family').fill('fabaceae');
    await form.getByLabel('Sowing').fill('2026-10-15');
    await form.getByLabel('Closure').fill('2026-09-01');
    await poll(() => form.getByRole('alert').first().textContent()).toBe('Closure (2026-09-01) is before sowing (2026-10-15).');
    await form.getByLabel('Closure').fill('2027-06-30');
    await form.getByLabel('Harvested quantity').fill('3,5');
    await expect.poll(() => form.getByRole('alert').count()).toBe(0);
    await form.getByRole('button', { name: 'Save crop' }).click();
    // One active crop per parcel: saving asks to close the one on the ground, ending it at the new one's sowing.
    const ask = page.getByRole('alertdialog', { name: 'Close the active crop?' });
    expect(await ask.textContent()).toContain(`${expected[0]![1]} ${expected[0]![0]} (ending 2026-10-15) is active on this parcel.`);
    await ask.getByRole('button', { name: 'Close it and save' }).click();
    const past = expected.map(([campaign, name]) => [campaign, name, 'Past']);
    await poll(() => cropTexts()).toEqual([[next, 'Vetch · Villosa', 'Active'], ...past]);
    await poll(() => page.locator('.statusbar .message').textContent()).toMatch(/Added Vetch to Olivar B/);
    expect(await timeline().first().locator('.family').textContent()).toBe('Fabaceae');
    await page.screenshot({ path: join(SHOTS, 'app-rotation.png') });

    // Change it: another variety.
    await page.getByRole('button', { name: `Edit ${next} Vetch` }).click();
    const edit = page.getByRole('form', { name: 'Edit Vetch' });
    expect(await edit.getByLabel('Harvested quantity').inputValue()).toBe('3.5');
    await edit.getByLabel('Variety').fill('Sativa');
    await edit.getByRole('button', { name: 'Save crop' }).click();
    await poll(() => cropTexts()).toEqual([[next, 'Vetch · Sativa', 'Active'], ...past]);

    // Delete the oldest, after its confirmation ("Keep it" first keeps it).
    const [oldCampaign, oldName] = expected[2]!;
    await page.getByRole('button', { name: `Delete ${oldCampaign} ${oldName}` }).click();
    await page.getByRole('button', { name: 'Keep it' }).click();
    expect(await timeline().count()).toBe(4);
    await page.getByRole('button', { name: `Delete ${oldCampaign} ${oldName}` }).click();
    await page.getByRole('button', { name: 'Delete crop' }).click();
    await poll(() => cropTexts()).toEqual([[next, 'Vetch · Sativa', 'Active'], past[0], past[1]]);

    // Sync now (S): the service holds the new crop with its family and fields, and not the deleted one.
    await page.locator('.top h1').click();
    await page.keyboard.press('s');
    await poll(async () => (await serviceCrops(parcel.id)).map((c) => c.name).sort()).toEqual(['Vetch', expected[0]![1], expected[1]![1]].sort());
    const vetch = (await serviceCrops(parcel.id)).find((c) => c.name === 'Vetch')!;
    expect(vetch).toMatchObject({ campaign: next, variety: 'Sativa', sowing: '2026-10-15', closure: '2027-06-30', harvested_qty: 3.5, is_active: true });
    expect(families.get(vetch.family!.id)).toBe('Fabaceae');
    expect((await serviceCrops(parcel.id)).find((c) => c.name === expected[0]![1])).toMatchObject({ is_active: false, closure: '2026-10-15' });
    await poll(() => timeline().first().locator('.crop-facts').textContent()).toMatch(/Synced$/);
  }, 120_000);

  it("shows a farm's rotation table with a warning wherever the service's crops have a family follow itself", async () => {
    await page.getByRole('button', { name: /Hof Sonnenfeld/ }).click();
    await page.getByRole('button', { name: 'Crop rotation' }).click();
    const table = page.getByRole('dialog', { name: 'Crop rotation of Hof Sonnenfeld' });
    await poll(() => table.locator('tbody tr').count()).toBe(12);
    // Where the service's crops say a family follows itself, campaign after campaign.
    const families = await familyNames();
    const farms = await api().get<{ id: number; name: string }[]>('/api/farms/');
    const farmId = farms.find((f) => f.name === 'Hof Sonnenfeld')!.id;
    const parcels = (await api().get<{ features: { id: number; properties: { name: string } }[] }>(`/api/farms/${farmId}/parcels/`)).features;
    const repeats: string[] = [];
    for (const p of parcels) {
      const crops = (await serviceCrops(p.id)).sort((a, b) => (a.campaign ?? '').localeCompare(b.campaign ?? ''));
      crops.forEach((c, i) => { if (i && families.get(c.family!.id) === families.get(crops[i - 1]!.family!.id)) repeats.push(`${p.properties.name}|${c.campaign}`); });
    }
    expect(repeats.length).toBeGreaterThan(0);
    const campaigns = await table.locator('thead th').allTextContents();
    const flagged = await table.locator('tbody tr').evaluateAll((rows, cols) => rows.flatMap((r) => {
      const name = r.querySelector('th button')!.textContent;
      return [...r.querySelectorAll('td')].flatMap((td, i) => (td.classList.contains('repeats') ? [`${name}|${cols[i + 1]}`] : []));
    }), campaigns);
    expect(flagged.sort()).toEqual(repeats.sort());
    expect(await table.locator('.warning').textContent()).toBe(`⚠ ${repeats.length} place${repeats.length === 1 ? '' : 's'} where a family follows itself.`);
    await page.screenshot({ path: join(SHOTS, 'app-rotation-table.png') });
    copyFileSync(join(SHOTS, 'app-rotation-table.png'), join(ROOT, 'docs/img/app-rotation-table.png'));

    // One campaign: one column, its flags kept.
    const one = repeats[0]!.split('|')[1]!;
    await table.getByLabel('Campaign').selectOption(one);
    await poll(() => table.locator('thead th').allTextContents()).toEqual(['Parcel', one]);
    await poll(() => table.locator('td.repeats').count()).toBe(repeats.filter((r) => r.endsWith(`|${one}`)).length);

    // A parcel's name selects it on the map; Esc (or R) closes the table.
    const [firstName] = repeats[0]!.split('|');
    await table.getByRole('button', { name: firstName, exact: true }).click();
    await poll(() => page.locator('[data-field=name]').textContent()).toBe(firstName);
    expect(await table.count()).toBe(0);
    await page.locator('.top h1').click();
    await page.keyboard.press('r');
    await poll(() => table.count()).toBe(1);
    await page.keyboard.press('Escape');
    await poll(() => table.count()).toBe(0);
  }, 90_000);

  it('colours the map by crop family, with the families shown in its legend', async () => {
    // Hof Sonnenfeld in view, all of it (the last test zoomed to one of its parcels).
    await page.getByRole('button', { name: /Hof Sonnenfeld/ }).click();
    await page.waitForTimeout(500); // the fit's animation
    await page.getByLabel('Colour by').selectOption('family');
    const legend = page.getByRole('list', { name: 'Crop families shown' });
    // Hof Sonnenfeld in view: its active crops' families, as the service has them.
    await poll(async () => (await legend.locator('li').allTextContents()).length).toBeGreaterThanOrEqual(2);
    const shown = await shownOn(page);
    const counted = (await legend.locator('li').allTextContents()).reduce((n, t) => n + Number(/\((\d+)\)$/.exec(t)![1]), 0);
    expect(counted).toBe(shown);
    const names = (await legend.locator('li').allTextContents()).map((t) => t.replace(/ \(\d+\)$/, ''));
    expect(names.filter((n) => !['Others', 'No active crop', 'Crop with no family'].includes(n)).every((n) => ['Poaceae', 'Amaranthaceae', 'Brassicaceae', 'Fabaceae', 'Asteraceae', 'Oleaceae', 'Rosaceae'].includes(n))).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'app-colour-by-family.png') });
    await page.getByLabel('Colour by').selectOption('state');
    await poll(() => page.locator('.legend').textContent()).toMatch(/Synced/);
  }, 60_000);

  it('exports the selected parcel as GeoJSON and the chosen farm as CSV, as downloads', async () => {
    await select('Olivar C');
    const [one] = await Promise.all([page.waitForEvent('download'), page.getByRole('group', { name: 'Export this parcel' }).getByRole('button', { name: 'GeoJSON' }).click()]);
    expect(one.suggestedFilename()).toBe('Olivar C.geojson');
    const geo = JSON.parse(readFileSync((await one.path())!, 'utf8')) as { features: { properties: { name: string; hectares: number } }[] };
    expect(geo.features.map((f) => f.properties.name)).toEqual(['Olivar C']);
    expect(geo.features[0]!.properties.hectares).toBeCloseTo((await api().parcel('Olivar C'))!.properties.hectares, 6);
    await poll(() => page.locator('.statusbar .message').textContent()).toBe('Exported 1 parcel to Olivar C.geojson.');

    await page.getByRole('button', { name: /Finca El Olivar/ }).click();
    const [farm] = await Promise.all([page.waitForEvent('download'), page.getByRole('group', { name: 'Export the farm Finca El Olivar' }).getByRole('button', { name: 'CSV' }).click()]);
    expect(farm.suggestedFilename()).toBe('Finca El Olivar.csv');
    const rows = readFileSync((await farm.path())!, 'utf8').split('\r\n').filter(Boolean);
    const farms = await api().get<{ id: number; name: string }[]>('/api/farms/');
    const onService = await api().get<{ features: unknown[] }>(`/api/farms/${farms.find((f) => f.name === 'Finca El Olivar')!.id}/parcels/`);
    expect(rows[0]!.startsWith('local_id,server_id,farm,name,hectares,wkt')).toBe(true);
    expect(rows.length - 1).toBe(onService.features.length);
  }, 60_000);

  it("counts the orchard's plants as the service does, searches them, and shows one", async () => {
    await select('Almond orchard');
    const orchard = await serviceParcel('Almond orchard');
    const plants = await api().get<{ features: { id: number; properties: { info: Record<string, unknown> } }[] }>(`/api/parcels/${orchard.id}/plants/`);
    expect(plants.features.length).toBeGreaterThan(20);
    await poll(() => page.locator('[data-field=plant-count]').textContent()).toBe(plants.features.length.toLocaleString('en-US'));
    await page.locator('.parcel-plants summary').click();
    const search = page.getByRole('searchbox', { name: 'Search plants' });
    const target = plants.features[7]!;
    await search.fill(String(target.id));
    await poll(() => page.locator('.plant-list button').count()).toBe(1);
    await page.locator('.plant-list button').click();
    await poll(() => page.getByRole('dialog', { name: `Plant ${target.id}` }).count()).toBe(1);
    // The map zooms to it (a quarter of a second) and draws the crowns before the picture is taken.
    await page.waitForTimeout(800);
    await page.screenshot({ path: join(SHOTS, 'app-plants.png') });
    expect(await problems()).toEqual([]);
  }, 60_000);
});
