// axe-core (the accessibility engine browsers' audit tools run) on every screen of the app, as app.test.ts runs it
// (`npm start`'s launcher with the embedded demo service, Debian's Chromium at 1280x800): the map, search, the
// metadata filter, a parcel's editor, its crop form and crop deletion, the parcel list and the map's keys, Modify, the delete confirmation, drawing and the new parcel form, the hectare
// point, a conflict, the six panels (Settings, Accounts, Sync details, Help, Crop rotation, Import), the
// deactivation confirmation, the layers panel, the create-farm form, the map coloured by crop, and the map at 200 %
// zoom with its legend folded and opened. Every rule axe
// runs by default (WCAG 2.0/2.1/2.2 A and AA, and its best practices) must find nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT } from '../helpers/process.ts';
import { SHOTS } from './embed-harness.ts';
import { demoApi, mapCentre, openApp, shownOn, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';

let ctx: DemoApp;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-axe-');
  ({ browser } = ctx);
}, 150_000);

afterAll(async () => {
  await ctx?.stop();
});

const poll = <T>(fn: () => Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout });
/** axe-core's own build, read by the test: the page's policy allows no added script, so it is evaluated over the DevTools protocol. */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation { id: string; impact: string | null; help: string; nodes: string[] }
/** Every screen's violations, by screen: one run says all that is wrong, not only the first screen's. */
const found = new Map<string, Violation[]>();

/** axe on the whole page as it is now, kept under `screen`; a screenshot beside it to look at. */
async function audit(screen: string): Promise<void> {
  if (!await page.evaluate(() => 'axe' in window)) await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, o: object): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: string[]; failureSummary?: string }[] }[] }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary ?? ''}`) }));
  });
  // Every rule counts, the crop chips' contrast too (their ink is chosen by WCAG ratio: core/crops/family-colours.ts inkOn).
  found.set(screen, violations);
  if (process.env.AXE_LOG) console.log(screen, JSON.stringify(found.get(screen), null, 1));
  await page.screenshot({ path: join(SHOTS, `app-axe-${screen.replace(/\W+/g, '-')}.png`) });
}

const field = (f: string) => page.locator(`[data-field=${f}]`).textContent();
const message = () => page.getByRole('status', { name: 'Message' }).textContent();
/** Takes the keyboard's focus off any field, as a click on the header does, so the app's single keys act. */
const away = () => page.locator('.top h1').click();

async function select(query: string): Promise<void> {
  await away();
  await page.keyboard.press('/');
  await page.keyboard.type(query);
  await poll(() => page.getByRole('listbox', { name: 'Search results' }).getByRole('option').first().textContent()).toMatch(new RegExp(`^${query}`));
  await page.keyboard.press('Enter');
  await poll(() => field('name')).toBe(query);
}

async function closeWith(dialog: string, close: string): Promise<void> {
  await page.getByRole('dialog', { name: dialog }).getByRole('button', { name: close }).click();
  await poll(() => page.getByRole('dialog', { name: dialog }).count()).toBe(0);
}

describe('axe-core on every screen of the app', () => {
  it('finds no violation', async () => {
    ({ page } = await openApp(browser, ctx.app.url));
    await poll(() => shownOn(page), 60_000).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    await poll(message).toMatch(/^Synced/);
    await audit('map');

    // Search, with its results open.
    await away();
    await page.keyboard.press('/');
    await page.keyboard.type('Olivar');
    await poll(() => page.getByRole('listbox', { name: 'Search results' }).getByRole('option').count()).toBeGreaterThan(0);
    await audit('search');
    await page.keyboard.press('Escape');

    // A metadata filter on: its banner and its condition.
    await page.getByLabel('Filter key').fill('crop_type');
    await page.getByLabel('Filter value').fill('Olive');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await poll(() => page.locator('.filter-banner').count()).toBe(1);
    await audit('filter');
    await page.getByRole('button', { name: 'Remove crop_type = Olive' }).click();

    // A parcel's panel: facts, editor, plants, crops.
    await select('Olivar B');
    await audit('parcel');

    // A crop added (its form), and a crop's deletion asked.
    await page.getByRole('button', { name: '+ Add crop' }).click();
    await poll(() => page.getByRole('button', { name: 'Save crop' }).count()).toBe(1);
    await audit('crop-form');
    await page.locator('.crop-form').getByRole('button', { name: 'Cancel' }).click();
    await page.locator('.rotation .crops li').first().getByRole('button', { name: /^Delete / }).click();
    await poll(() => page.getByRole('button', { name: 'Delete crop' }).count()).toBe(1);
    await audit('crop-delete');
    await page.getByRole('button', { name: 'Keep it' }).click();

    // The parcel list, a row chosen from the keyboard; the map's keys selecting a parcel in view.
    await page.getByRole('listbox', { name: /^Parcels of / }).getByRole('option').first().focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await audit('parcel-list');
    await page.locator('.map').focus();
    await page.keyboard.press(']');
    await poll(() => page.getByRole('status', { name: 'Selection' }).textContent()).toMatch(/in view/);
    await audit('map-keys');
    await select('Olivar B');

    await away();
    await page.keyboard.press('m');
    await poll(() => page.locator('[data-field=modify-hectares]').count()).toBe(1);
    await audit('modify');
    await page.keyboard.press('Escape');
    await poll(() => page.locator('[data-field=modify-hectares]').count()).toBe(0);

    await away();
    await page.keyboard.press('Delete');
    await poll(() => page.getByRole('alertdialog').isVisible()).toBe(true);
    await audit('delete');
    await page.getByRole('alertdialog').getByRole('button', { name: 'Cancel' }).click();
    await poll(() => page.getByRole('alertdialog').isVisible()).toBe(false);

    // Drawing, then the new parcel form.
    const { cx, cy } = await mapCentre(page);
    await away();
    await page.keyboard.press('d');
    await poll(() => page.locator('[data-field=draft-hectares]').count()).toBe(1);
    for (const [dx, dy] of [[-300, -200], [-260, -200], [-260, -160]] as const) await page.mouse.click(cx + dx, cy + dy);
    await audit('drawing');
    await page.mouse.click(cx - 300, cy - 160);
    await page.keyboard.press('Enter');
    await poll(() => page.getByRole('button', { name: 'Save parcel' }).count()).toBe(1);
    await audit('new-parcel');
    await page.keyboard.press('Escape');
    await away();
    await page.keyboard.press('Escape');
    await poll(() => page.locator('[data-field=draft-hectares]').count()).toBe(0);

    // A hectare point placed, before it is saved.
    await page.keyboard.press('p');
    await page.mouse.click(cx - 280, cy - 180);
    await poll(() => page.getByLabel('Hectares').count()).toBe(1);
    await audit('point');
    await page.keyboard.press('Escape');
    await away();
    await page.keyboard.press('Escape');
    await poll(() => page.getByLabel('Hectares').count()).toBe(0);

    // The six panels.
    await page.keyboard.press('Control+,');
    await poll(() => page.getByRole('dialog', { name: 'Settings' }).count()).toBe(1);
    await audit('settings');
    await closeWith('Settings', 'Close settings');

    await away();
    await page.keyboard.press('a');
    await poll(() => page.getByRole('dialog', { name: 'Accounts' }).locator('tbody tr').count()).toBeGreaterThanOrEqual(1);
    await audit('accounts');
    await closeWith('Accounts', 'Close accounts');

    await away();
    await page.keyboard.press('c');
    await poll(() => page.getByRole('dialog', { name: 'Sync details' }).count()).toBe(1);
    await audit('sync-details');
    await closeWith('Sync details', 'Close sync details');

    await away();
    await page.keyboard.press('?');
    await poll(() => page.getByRole('dialog', { name: 'Keyboard shortcuts' }).count()).toBe(1);
    await audit('help');
    await closeWith('Keyboard shortcuts', 'Close the keyboard shortcuts');

    await away();
    await page.keyboard.press('r');
    await poll(() => page.locator('.rotation-table').count()).toBe(1);
    await audit('rotation');
    await page.getByRole('button', { name: 'Close the rotation table' }).click();

    await page.getByLabel('File to import').setInputFiles(join(ROOT, 'examples', 'fields.geojson'));
    await poll(() => page.locator('.import-dialog #import-summary').count()).toBe(1);
    await audit('import');
    await page.getByRole('button', { name: 'Close the import preview' }).click();
    await poll(() => page.locator('.import-dialog').count()).toBe(0);

    // The layers panel (a WMS layer's form open) and the create-farm form.
    await page.locator('.layers-control > button').click();
    await poll(() => page.getByRole('dialog', { name: 'Layers' }).count()).toBe(1);
    await page.getByRole('form', { name: 'Add an online layer' }).getByLabel('Kind').selectOption('wms');
    await audit('layers');
    await page.locator('.layers-control > button').click();
    await page.getByRole('button', { name: 'Create farm' }).click();
    await poll(() => page.getByRole('form', { name: 'Create farm' }).count()).toBe(1);
    await audit('create-farm');
    await page.getByRole('form', { name: 'Create farm' }).getByRole('button', { name: 'Cancel' }).click();

    // The map coloured by crop family: its legend.
    await page.getByLabel('Colour by').selectOption('family');
    await poll(() => page.locator('.crop-legend').count()).toBe(1);
    await audit('colour-by-family');
    await page.getByLabel('Colour by').selectOption('state');

    // A conflict: renamed here and on the service, then synced.
    const svc = demoApi(ctx);
    await select('Olivar B');
    const { id } = (await svc.parcel('Olivar B'))!;
    await page.getByRole('form', { name: 'Edit parcel' }).getByLabel('Name').fill('Olivar B (mine)');
    await page.getByRole('form', { name: 'Edit parcel' }).getByRole('button', { name: 'Save changes' }).click();
    await poll(() => field('name')).toBe('Olivar B (mine)');
    expect((await svc.send('PATCH', `/api/parcels/${id}/`, { name: 'Olivar B (theirs)' })).status).toBe(200);
    await poll(() => page.getByRole('button', { name: 'Sync now' }).isEnabled()).toBe(true);
    await page.getByRole('button', { name: 'Sync now' }).click();
    await poll(() => field('state')).toBe('Conflict');
    await audit('conflict');

    // The deactivation confirmation, for another account of the organization.
    const other = await svc.send('POST', '/api/accounts/', { account_email: 'axe@example.com' });
    expect(other.status).toBe(201);
    await away();
    await page.keyboard.press('a');
    const accounts = page.getByRole('dialog', { name: 'Accounts' });
    await accounts.getByRole('button', { name: 'Refresh' }).click();
    await accounts.getByRole('button', { name: 'Deactivate axe@example.com' }).click();
    await poll(() => page.getByRole('alertdialog').isVisible()).toBe(true);
    await audit('deactivate');
    await page.getByRole('alertdialog').getByRole('button', { name: 'Keep the account' }).click();
    // The Accounts screen again, with the new account's row and its buttons (Connect here, Deactivate…).
    await poll(() => page.getByRole('alertdialog').isVisible()).toBe(false);
    await audit('accounts-rows');
    await closeWith('Accounts', 'Close accounts');

    // At 200 % zoom (640x400 CSS pixels): the folded legend, then opened; the rotation table over the whole window.
    await page.setViewportSize({ width: 640, height: 400 });
    await poll(() => page.locator('.legend-toggle').count()).toBe(1);
    await audit('small-window');
    await page.locator('.legend-toggle').click();
    await poll(() => page.getByLabel('Colour by').isVisible()).toBe(true);
    await audit('small-window-legend');

    const report = [...found].flatMap(([screen, vs]) => vs.map((v) => `${screen}: ${v.id} (${v.impact}) ${v.help}\n    ${v.nodes.slice(0, 4).join('\n    ')}`));
    expect(found.size).toBe(27);
    expect(report).toEqual([]);
  }, 400_000);
});
