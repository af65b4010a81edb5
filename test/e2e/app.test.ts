// The app end to end, as a new user runs it: `npm start`'s launcher (app/start.ts) with the embedded default — the
// real local service with its demo, the real mirror host serving browser mode — and Debian's Chromium driving the
// page: the demo parcels on the map, a polygon drawn by clicking on the canvas (refused above the account's limit),
// its area in the panel, undo and redo, a hectare point, Sync now, and the service holding both over its HTTP API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type Page } from 'playwright-core';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SHOTS } from './embed-harness.ts';
import { ROOT } from '../helpers/process.ts';
import { mapCentre, openApp, shownOn, startDemoApp, waitOnline, type DemoApp, type RunningApp } from './app-harness.ts';

let ctx: DemoApp;
let dir: string;
let app: RunningApp;
let url: string;
let out = '';
let err = '';
let service: string;
let browser: Browser;
let page: Page;
let problems: () => Promise<string[]>;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-');
  ({ dir, app, service, browser } = ctx);
  ({ url } = app);
  out = app.out();
  err = app.err();
}, 150_000);

afterAll(async () => {
  await ctx?.stop();
});

const shown = () => shownOn(page);
const draftHa = async () => (await page.locator('[data-field=draft-hectares]').textContent()) ?? '';

/** The service's own view, over its HTTP API with the demo's key, as curl would. */
async function onService(path: string): Promise<unknown> {
  const { api_key: key } = JSON.parse(readFileSync(join(dir, 'data', 'demo-credentials.json'), 'utf8')) as { api_key: string };
  const account = /account\s+(acc-[\w-]+)/.exec(err)![1]!;
  const r = await fetch(`${service}${path}`, { headers: { 'x-api-key': key, 'service-account': account } });
  expect(r.status).toBe(200);
  return r.json();
}

describe('npm start (browser mode)', () => {
  it('prints the service, its demo credentials, why it is browser mode and the address to open', () => {
    expect(err).toContain(`Parcel service listening on ${service}`);
    expect(err).toMatch(/x-api-key\s+fk_/);
    // The harness sets FURROW_NO_BROWSER: where Electron's binary is installed, no window opens either.
    expect(out).toMatch(/Electron's binary is not installed.*the app runs in your browser|FURROW_NO_BROWSER is set: Electron's window does not open/);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]{43}&account=acc-[\w-]+$/);
    // The organization's key stays in the service's banner and the host: the launcher's own output never repeats it.
    const { api_key: key } = JSON.parse(readFileSync(join(dir, 'data', 'demo-credentials.json'), 'utf8')) as { api_key: string };
    expect(out).not.toContain(key);
  });

  it('shows the demo parcels, draws a polygon by clicking the map, undoes, redoes, drops a 5 ha point and syncs both to the service', async () => {
    ({ page, problems } = await openApp(browser, url));
    // The token left the address bar as soon as the page read it.
    await expect.poll(() => page.url()).not.toContain('token');
    // It opens on the largest farm, all three farms listed.
    await expect.poll(shown, { timeout: 20_000 }).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    await expect.poll(() => page.locator('.farms').textContent()).toMatch(/Almendral La Vega[\s\S]*Finca El Olivar[\s\S]*Hof Sonnenfeld/);
    await page.screenshot({ path: join(SHOTS, 'app-map.png') });

    const { cx, cy } = await mapCentre(page);

    // A polygon across the whole map, kilometres wide, is far above the limit: red, and it cannot be saved.
    await page.getByRole('button', { name: 'Draw polygon' }).click();
    for (const [dx, dy] of [[-400, -300], [400, -300], [400, 300], [-150, 300]] as const) await page.mouse.click(cx + dx, cy + dy);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/above this account's limit of 100\.00 ha/);
    expect(await page.getByRole('button', { name: 'Save parcel' }).isDisabled()).toBe(true);
    // The finished polygon's name field has the focus: Esc there only leaves the field, a second Esc discards.
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.value ?? '')).toMatch(/^Parcel /);
    await page.keyboard.press('Escape');
    expect(await page.getByRole('button', { name: 'Save parcel' }).count()).toBe(1);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('button', { name: 'Save parcel' }).count()).toBe(0);

    // A bow tie, its ring crossing itself: the service's reason, live, and it cannot be saved.
    await page.getByRole('button', { name: 'Draw polygon' }).click();
    for (const [dx, dy] of [[-60, -40], [60, 40], [60, -40], [-60, 40]] as const) await page.mouse.click(cx + dx, cy + dy);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/crosses or touches itself.*cannot be saved/);
    await page.screenshot({ path: join(SHOTS, 'app-draw-refused.png') });
    expect(await page.getByRole('button', { name: 'Save parcel' }).isDisabled()).toBe(true);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('button', { name: 'Save parcel' }).count()).toBe(0);

    // At the farm's scale: a square of 120 px, with stray fifth clicks taken back by Backspace and by Ctrl+Z.
    await page.getByRole('button', { name: /Finca El Olivar/ }).click();
    await page.waitForTimeout(1000); // the fit's animation (300 ms) has ended and its view was read
    const inView = await shown();
    await page.getByRole('button', { name: 'Draw polygon' }).click();
    for (const [dx, dy] of [[-60, -60], [60, -60], [60, 60], [-60, 60]] as const) await page.mouse.click(cx + dx, cy + dy);
    const live = await draftHa();
    expect(Number.parseFloat(live)).toBeGreaterThan(0);
    await page.mouse.click(cx + 200, cy + 150);
    expect(await draftHa()).not.toBe(live);
    await page.keyboard.press('Backspace');
    expect(await draftHa()).toBe(live);
    // Ctrl+Z, as in desktop GIS, takes a vertex back too while drawing (not the last saved edit).
    await page.mouse.click(cx - 200, cy + 150);
    expect(await draftHa()).not.toBe(live);
    await page.keyboard.press('Control+z');
    expect(await draftHa()).toBe(live);
    await page.keyboard.press('Enter');
    const drawn = await draftHa();
    expect(Number.parseFloat(drawn)).toBeGreaterThan(1);
    expect(Number.parseFloat(drawn)).toBeLessThan(100);
    await page.getByLabel('Name').fill('E2E drawn field');
    await page.screenshot({ path: join(SHOTS, 'app-draw.png') });
    await page.getByRole('button', { name: 'Save parcel' }).click();

    // The panel shows it as the host stored it: the same geodesic hectares, pending until the sync.
    await expect.poll(() => page.locator('[data-field=name]').textContent()).toBe('E2E drawn field');
    expect(await page.locator('[data-field=hectares]').textContent()).toBe(drawn);
    expect(await page.locator('[data-field=farm]').textContent()).toBe('Finca El Olivar');
    expect(await page.locator('[data-field=state]').textContent()).toBe('Pending');
    await expect.poll(shown).toBe(inView + 1);

    await page.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(shown).toBe(inView);
    await page.locator('.top h1').click(); // the shortcut is the window's, not a field's
    await page.keyboard.press('Control+Shift+Z');
    await expect.poll(shown).toBe(inView + 1);

    // A hectare point: the square previewed is the one the service makes; above the limit it cannot be saved.
    await page.keyboard.press('p');
    await page.mouse.click(cx - 120, cy + 120); // between two rows of the farm's parcels
    const hectaresField = page.getByRole('textbox', { name: 'Hectares' });
    // The click leaves the hectares field focused and selected: typing replaces the number at once.
    await expect.poll(() => hectaresField.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type('7');
    expect(await hectaresField.inputValue()).toBe('7');
    await hectaresField.fill('500');
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/exceeds the account's limit of 100 ha/);
    expect(await page.getByRole('button', { name: 'Save parcel' }).isDisabled()).toBe(true);
    // A decimal comma is a decimal point, as farmers in Spain and Germany write it.
    await hectaresField.fill('2,5');
    await expect.poll(() => page.locator('.panel').textContent()).toContain('The square the service will make: 2.50 ha');
    await hectaresField.fill('-3');
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/a number above 0/);
    await hectaresField.fill('5');
    await expect.poll(() => page.locator('.panel').textContent()).toContain('The square the service will make: 5.00 ha');
    await page.getByLabel('Name').fill('E2E point');
    await page.screenshot({ path: join(SHOTS, 'app-point.png') });
    await page.getByRole('button', { name: 'Save parcel' }).click();
    await expect.poll(() => page.locator('[data-field=name]').textContent()).toBe('E2E point');
    expect(await page.locator('[data-field=hectares]').textContent()).toBe('5.00 ha');
    await expect.poll(shown).toBe(inView + 2);

    await page.getByRole('button', { name: 'Sync now' }).click();
    await expect.poll(() => page.getByRole('status', { name: 'Message' }).textContent(), { timeout: 30_000 }).toMatch(/^Synced: 2 sent/);
    // Selected by a click inside it on the map (near its top-left corner: the farm's parcels fitted around the map's
    // middle may lie under its middle): synced now.
    await page.mouse.click(cx - 52, cy - 52);
    await expect.poll(() => page.locator('[data-field=name]').textContent()).toBe('E2E drawn field');
    await expect.poll(() => page.locator('[data-field=state]').textContent()).toBe('Synced');
    await page.screenshot({ path: join(SHOTS, 'app-synced.png') });
    // The README's first picture: the demo farm with a parcel drawn and synced.
    copyFileSync(join(SHOTS, 'app-synced.png'), join(ROOT, 'docs/img/app.png'));

    const farms = await onService('/api/farms/') as { id: number; name: string }[];
    const farm = farms.find((f) => f.name === 'Finca El Olivar')!;
    const { features } = await onService(`/api/farms/${farm.id}/parcels/`) as { features: { properties: { name: string; hectares: number } }[] };
    const held = features.filter((f) => f.properties.name === 'E2E drawn field');
    expect(held).toHaveLength(1);
    expect(`${held[0]!.properties.hectares.toFixed(2)} ha`).toBe(drawn);
    const point = features.filter((f) => f.properties.name === 'E2E point');
    expect(point).toHaveLength(1);
    expect(point[0]!.properties.hectares).toBeCloseTo(5, 6);

    expect(await problems()).toEqual([]);
  }, 120_000);

  it('refuses a page that does not hold the launch token', async () => {
    const other = await browser.newPage();
    await other.goto(url.replace(/#token=.*/, '#token=wrong'));
    await expect.poll(() => other.getByRole('alert').textContent(), { timeout: 10_000 }).toMatch(/refused this page/);
    await other.close();
  });
});
