// The sync cockpit, as app.test.ts runs the app (`npm start`'s launcher with the embedded demo service, Debian's
// Chromium): the account's counts; the next sync's preview (a new parcel and the billable hectares it adds); a parcel
// the service rejects (its limit for the account lowered by the service's admin CLI meanwhile) shown with the
// service's reason, fixed from the cockpit (Fix, its vertices retyped smaller) and synced; and a conflict made through
// the service's HTTP API while the app holds an unsynced rename, settled from the cockpit with Keep theirs; and most of
// a farm deleted on the service, held by the sync, said in the status line, and applied from the cockpit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { join } from 'node:path';
import { serviceCli } from '../helpers/process.ts';
import { SHOTS } from './embed-harness.ts';
import { demoApi, lonLatAt, openApp, shownOn, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';
import { polygonHectares } from '../../core/geo/area.ts';

let ctx: DemoApp;
let browser: Browser;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-cockpit-');
  ({ browser } = ctx);
}, 150_000);

afterAll(async () => {
  await ctx?.stop();
});

const poll = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: 30_000 });
const api = () => demoApi(ctx);

const round = (x: number) => Math.round(x * 1e6) / 1e6;

describe('the sync cockpit', () => {
  it('previews the next sync, shows a rejected parcel with the reason, and the parcel fixed from it syncs', async () => {
    const { page, problems } = await openApp(browser, ctx.app.url);
    await poll(() => shownOn(page)).toBeGreaterThanOrEqual(12);
    await waitOnline(page);

    // The service's admin agrees a 5 ha limit for the account; the app still knows 100 ha.
    const limited = serviceCli(join(ctx.dir, 'data'), ['set-parcel-limit', '--account', api().account(), '--hectares', '5']);
    expect(limited.status, limited.stderr).toBe(0);

    // A parcel of about 8 ha, typed south of the farm in view.
    const box = (await page.locator('.map .ol-viewport').boundingBox())!;
    const [lon0, lat0] = await lonLatAt(page, box.x + box.width / 2, box.y + box.height - 2);
    await page.mouse.move(box.x + box.width + 100, box.y + 10);
    const ring: [number, number][] = [[0, -0.004], [0.0036, -0.004], [0.0036, -0.0066], [0, -0.0066]].map(([dx, dy]) => [round(lon0 + dx!), round(lat0 + dy!)]);
    const hectares = polygonHectares([[...ring, ring[0]!]]);
    expect(hectares).toBeGreaterThan(6);
    await page.getByRole('button', { name: 'Draw polygon' }).click();
    const vertex = page.getByLabel('Vertex (longitude, latitude)');
    for (const [lon, lat] of ring) {
      await vertex.fill(`${lon}, ${lat}`);
      await vertex.press('Enter');
    }
    await page.getByRole('button', { name: 'Finish polygon' }).click();
    await page.getByLabel('Name').fill('Too big');
    await page.getByRole('button', { name: 'Save parcel' }).click();
    await poll(() => page.locator('[data-field=name]').textContent()).toBe('Too big');

    // The cockpit (C): the next sync sends the parcel and adds its hectares to the billed area.
    await page.locator('.top h1').click();
    await page.keyboard.press('c');
    const cockpit = page.getByRole('dialog', { name: 'Sync details' });
    const preview = cockpit.getByRole('list', { name: 'What the next sync sends' });
    await poll(() => preview.locator('li').allTextContents()).toEqual(['Parcels: 1 new', `Billable area: +${hectares.toFixed(2)} ha (${hectares.toFixed(2)} ha new)`]);
    await page.screenshot({ path: join(SHOTS, 'app-cockpit.png') });

    // Synced from its row: the service refuses it, and the cockpit says why.
    await cockpit.getByRole('button', { name: /^Sync / }).click();
    const rejected = cockpit.getByRole('list', { name: 'Rejected' });
    await poll(() => rejected.locator('li').count()).toBe(1);
    expect(await rejected.locator('li .error').textContent()).toMatch(/5/);
    await poll(() => cockpit.locator('td[data-count=rejected]').textContent()).toBe('1');
    expect(await api().parcel('Too big')).toBeUndefined();
    await page.screenshot({ path: join(SHOTS, 'app-cockpit-rejected.png') });

    // Fix: Modify opens on it; two vertices typed closer make it about 3.5 ha; saved, synced, on the service.
    await rejected.getByRole('button', { name: 'Fix' }).click();
    await poll(() => page.locator('#panel-title').textContent()).toBe('Modifying Too big');
    await page.locator('.vertices summary').click();
    const fields = page.locator('.vertices input');
    await poll(() => fields.count()).toBe(4);
    const values = await fields.evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    const east = ring[1]![0];
    const smaller: [number, number][] = ring.map(([lon, lat]) => [lon === east ? round(lon0 + 0.0016) : lon, lat]);
    for (const [i, v] of values.entries()) {
      const [lon] = v.split(',').map(Number);
      if (lon !== east) continue;
      await fields.nth(i).fill(`${round(lon0 + 0.0016)}, ${v.split(',')[1]!.trim()}`);
      await fields.nth(i).press('Enter');
    }
    const fixed = polygonHectares([[...smaller, smaller[0]!]]);
    expect(fixed).toBeLessThan(5);
    await poll(() => page.locator('[data-field=modify-hectares]').textContent()).toBe(`${fixed.toFixed(2)} ha`);
    await page.getByRole('button', { name: 'Save shape' }).click();
    await poll(() => page.locator('#panel-title').textContent()).toBe('Parcel');
    await page.locator('.top h1').click();
    await page.keyboard.press('s');
    await poll(async () => (await api().parcel('Too big'))?.properties.hectares).toBeCloseTo(fixed, 2);
    await page.keyboard.press('c');
    await poll(() => cockpit.locator('td[data-count=rejected]').textContent()).toBe('0');
    expect(await cockpit.getByRole('list', { name: 'Rejected' }).count()).toBe(0);
    expect(await problems()).toEqual([]);
  }, 120_000);

  it('lists a conflict made on the service over an unsynced rename, and settles it with Keep theirs', async () => {
    const { page, problems } = await openApp(browser, ctx.app.url);
    await poll(() => shownOn(page)).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    // Renamed here (not synced yet), and on the service meanwhile.
    await page.locator('.top h1').click();
    await page.keyboard.press('Control+f');
    await page.keyboard.type('Olivar D');
    await poll(() => page.getByRole('listbox', { name: 'Search results' }).getByRole('option').first().textContent()).toMatch(/^Olivar D/);
    await page.keyboard.press('Enter');
    await poll(() => page.locator('[data-field=name]').textContent()).toBe('Olivar D');
    const editor = page.getByRole('form', { name: 'Edit parcel' });
    await editor.getByLabel('Name', { exact: true }).fill('Olivar D (mine)');
    await editor.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => page.locator('[data-field=name]').textContent()).toBe('Olivar D (mine)');
    const onService = (await api().parcel('Olivar D'))!;
    expect((await api().send('PATCH', `/api/parcels/${onService.id}/`, { name: 'Olivar D (theirs)' })).status).toBe(200);

    await page.locator('.top h1').click();
    await page.keyboard.press('s');
    await page.keyboard.press('c');
    const cockpit = page.getByRole('dialog', { name: 'Sync details' });
    const conflicts = cockpit.getByRole('list', { name: 'Conflicts' });
    await poll(() => conflicts.locator('li').count()).toBe(1);
    expect(await conflicts.locator('li strong').textContent()).toBe('Olivar D (mine)');
    await poll(() => cockpit.locator('td[data-count=conflicts]').textContent()).toBe('1');
    await page.screenshot({ path: join(SHOTS, 'app-cockpit-conflict.png') });
    await conflicts.getByRole('button', { name: 'Keep theirs' }).click();
    await poll(() => cockpit.locator('td[data-count=conflicts]').textContent()).toBe('0');
    await poll(() => page.locator('[data-field=name]').textContent()).toBe('Olivar D (theirs)');
    // Synced again: the service keeps its name; nothing needs the user. Sync details closes first: no key acts
    // behind an open panel.
    await page.keyboard.press('Escape');
    await poll(() => cockpit.count()).toBe(0);
    await page.keyboard.press('s');
    await poll(() => page.getByRole('button', { name: 'Sync details', exact: true }).textContent()).toBe('Sync details');
    expect((await api().parcel('Olivar D (theirs)'))?.id).toBe(onService.id);
    expect(await problems()).toEqual([]);
  }, 120_000);

  it('holds deletions of most of a farm made on the service, says so, and applies them from Sync details when asked', async () => {
    const { page, problems } = await openApp(browser, ctx.app.url);
    await poll(() => shownOn(page)).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    // On the service, 11 of Hof Sonnenfeld's 12 parcels deleted at once: more than a fifth of the farm.
    const hof = (await api().get<{ id: number; name: string }[]>('/api/farms/')).find((f) => f.name === 'Hof Sonnenfeld')!;
    const parcels = (await api().get<{ features: { id: number }[] }>(`/api/farms/${hof.id}/parcels/`)).features;
    expect(parcels).toHaveLength(12);
    for (const p of parcels.slice(1)) expect((await api().send('DELETE', `/api/parcels/${p.id}/`)).status).toBe(204);
    const farm = page.getByRole('button', { name: /Hof Sonnenfeld/ });
    const message = page.getByRole('status', { name: 'Message' });

    await page.locator('.top h1').click();
    await page.keyboard.press('s');
    await poll(() => message.textContent()).toBe("Held: the service deleted 11 of the 12 parcels synced here in farm 'Hof Sonnenfeld': nothing was deleted here. " +
      'If the service is right, apply them in Sync details (C).');
    // Nothing was deleted here.
    expect(await farm.textContent()).toMatch(/12 parcels/);

    await page.keyboard.press('c');
    const cockpit = page.getByRole('dialog', { name: 'Sync details' });
    const held = cockpit.getByRole('list', { name: 'Deletions held' });
    await poll(() => held.locator('li').count()).toBe(1);
    expect(await cockpit.textContent()).not.toContain('Nothing needs you.');
    await page.screenshot({ path: join(SHOTS, 'app-cockpit-held.png') });
    await cockpit.getByRole('button', { name: 'Apply these deletions' }).click();
    await poll(() => held.count()).toBe(0);
    await poll(() => farm.textContent()).toMatch(/1 parcel ·/);
    await poll(() => message.textContent()).toMatch(/^Synced/);
    await poll(() => cockpit.textContent()).toContain('Nothing needs you.');
    expect(await problems()).toEqual([]);
  }, 120_000);
});
