// Importing the same fields twice, and undoing an import, end to end (`npm start`'s launcher with the embedded demo
// service, the real mirror host, Debian's Chromium) — issue 29's items 10 and 11: examples/fields.geojson imported,
// then examples/fields.kml previewed: every feature is marked as the parcel already there (same shape, another
// format) and skipped by default, so nothing is stacked; the app's own export with one new field imports that one
// only. Undo of an import takes away the farm it created, which then never reaches the service; a farm already synced
// is deleted on the service at the next sync, like any other delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/process.ts';
import { SHOTS } from './embed-harness.ts';
import { demoApi, openApp, shownOn, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';

let ctx: DemoApp;
let page: Page;
let problems: () => Promise<string[]>;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-import-twice-');
  ({ page, problems } = await openApp(ctx.browser, ctx.app.url));
}, 180_000);

afterAll(async () => {
  await ctx?.stop();
});

const poll = <T>(fn: () => Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout });
const dialog = () => page.getByRole('dialog', { name: /^Import / });
const status = () => page.locator('.statusbar .message').textContent();
const farmButton = (name: string) => page.locator('.farms button.farm', { hasText: name });
/** The preview table's rows as [#, name, problems or what it is]. */
const rows = () => dialog().getByRole('table').locator('tbody tr').evaluateAll((trs) => trs.map((tr) => {
  const td = [...tr.querySelectorAll('td')];
  return [td[0]?.textContent ?? '', td[1]?.textContent ?? '', td[4]?.textContent ?? '', tr.className];
}));

async function choose(name: string, buffer: Buffer): Promise<void> {
  await page.getByLabel('File to import').setInputFiles({ name, mimeType: 'application/octet-stream', buffer });
}

async function importInto(farm: string, button: string): Promise<void> {
  await dialog().getByLabel('New farm name').fill(farm);
  await dialog().getByRole('button', { name: button }).click();
  await poll(() => dialog().count()).toBe(0);
}

/** Ctrl+Z from the page (outside any field), as a user undoes. */
async function undo(): Promise<void> {
  await page.locator('.top h1').click();
  await page.keyboard.press('Control+z');
}

async function syncNow(): Promise<void> {
  await page.locator('.top h1').click();
  await page.keyboard.press('s');
  await poll(status, 60_000).toMatch(/^Synced/);
}

describe('importing fields that are there already', () => {
  it('marks every feature of the same farm in another format, skips them, and imports only what is new', async () => {
    await poll(() => shownOn(page)).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    const geojson = readFileSync(join(ROOT, 'examples/fields.geojson'));
    await choose('fields.geojson', geojson);
    await poll(() => dialog().locator('#import-summary').textContent()).toMatch(/^5 features: all can be imported/);
    expect(await dialog().locator('#import-duplicates').count()).toBe(0);
    await importInto('Cortijo La Campana', 'Import 5 valid features');
    await poll(status).toMatch(/^Imported 5 parcels from fields\.geojson into Cortijo La Campana\./);

    // The same farm as KML: each feature is the parcel already here, by name and farm, and skipped unless asked.
    await choose('fields.kml', readFileSync(join(ROOT, 'examples/fields.kml')));
    // The whole dialog's text: a failure shows what it said instead (an error, the progress of a preview still read).
    await poll(() => dialog().textContent()).toMatch(/5 features[\s\S]*5 of them are in this account already \(the same shape as a parcel here\)/);
    const names = ['Haza del Pozo', 'Haza Larga', 'Cañada Honda', 'Olivar del Cerro', 'Parcela de ensayo'];
    expect(await rows()).toEqual(names.map((n, i) => [String(i + 1), n, `Already here: ${n} (Cortijo La Campana): skipped`, 'duplicate']));
    const skip = dialog().getByLabel('Skip the parcels already here');
    expect(await skip.isChecked()).toBe(true);
    expect(await dialog().getByRole('button', { name: 'Nothing new to import' }).isDisabled()).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'app-import-duplicates.png') });
    // Asked for them again, they can be imported as they are.
    await skip.uncheck();
    expect((await rows())[0]![2]).toBe('Already here: Haza del Pozo (Cortijo La Campana): imported again');
    expect(await dialog().getByRole('button', { name: 'Import 5 valid features' }).isEnabled()).toBe(true);
    await dialog().getByRole('button', { name: 'Cancel' }).click();

    // The app's own export of the farm, with one field more: only that one is imported.
    const exported = JSON.parse(geojson.toString('utf8')) as { features: unknown[] };
    exported.features.push({ type: 'Feature', properties: { name: 'Haza Nueva' }, geometry: { type: 'Polygon', coordinates: [[[-5.396, 37.58], [-5.392, 37.58], [-5.392, 37.583], [-5.396, 37.583], [-5.396, 37.58]]] } });
    await choose('campana-export.geojson', Buffer.from(JSON.stringify(exported)));
    await poll(() => dialog().textContent()).toMatch(/5 of them are in this account already/);
    await importInto('Finca nueva', 'Import 1 new feature');
    await poll(status).toBe('Imported 1 parcel from campana-export.geojson into Finca nueva; 5 parcels already in the account left out. They go to the service at the next sync; Undo takes them back.');
    await poll(() => farmButton('Finca nueva').textContent()).toMatch(/1 parcel\b/);
    await poll(() => farmButton('Cortijo La Campana').textContent()).toMatch(/5 parcels/);
    expect(await problems()).toEqual([]);
  }, 180_000);

  it('undoes an import with the farm it created, which never reaches the service; a synced one is deleted there', async () => {
    await undo();
    await poll(status).toBe('Undone: Import campana-export.geojson');
    await poll(() => farmButton('Finca nueva').count()).toBe(0);
    await syncNow();
    const api = demoApi(ctx);
    const farmNames = async () => (await api.get<{ name: string }[]>('/api/farms/')).map((f) => f.name).sort();
    await poll(farmNames).toContain('Cortijo La Campana');
    expect(await farmNames()).not.toContain('Finca nueva');
    expect(await api.parcel('Haza Nueva')).toBeUndefined();

    // Redone and synced, then undone again: the farm is on the service, and its delete goes there too.
    await page.locator('.top h1').click();
    await page.keyboard.press('Control+Shift+z');
    await poll(status).toBe('Redone: Import campana-export.geojson');
    await poll(() => farmButton('Finca nueva').count()).toBe(1);
    await syncNow();
    await poll(farmNames).toContain('Finca nueva');
    await undo();
    await poll(() => farmButton('Finca nueva').count()).toBe(0);
    await syncNow();
    await poll(farmNames).not.toContain('Finca nueva');
    expect(await api.parcel('Haza Nueva')).toBeUndefined();
    expect(await problems()).toEqual([]);
  }, 180_000);
});
