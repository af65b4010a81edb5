// A farm manager's crops in the app, the trial's steps (issue 29, items 5–7), as `npm start` runs it with the embedded
// demo service in Debian's Chromium: Lentil added to a Chickpea parcel takes its family from its name, closes the
// Chickpea (one active crop per parcel), and a parcel's crop_type is shown to disagree until one is updated from the
// other; coloured by active crop, Lentil and Durum wheat (one colour before) and every other crop shown have colours of
// their own, each family the same colour as on the embedded map, and the crop chips' text is legible (WCAG 4.5:1);
// and the view's choices (colour by, filter, plants, the farm) come back after the app is restarted (the map's layers:
// app-layers.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { freePorts } from '../helpers/process.ts';
import { ensureRenderer } from '../../app/renderer-build.ts';
import { CHROMIUM_ARGS, SHOTS } from './embed-harness.ts';
import { demoApi, openApp, selectBySearch, shownOn, startApp, waitOnline, type RunningApp } from './app-harness.ts';

let dir: string;
let env: NodeJS.ProcessEnv;
let service: string;
let app: RunningApp;
let browser: Browser;
let page: Page;
let problems: () => Promise<string[]>;

beforeAll(async () => {
  await ensureRenderer();
  dir = mkdtempSync(join(tmpdir(), 'furrow-app-crop-view-'));
  const [servicePort, appPort] = (await freePorts(2)) as [number, number];
  service = `http://127.0.0.1:${servicePort}`;
  env = { DATA_DIR: join(dir, 'data'), FURROW_HOME: join(dir, 'home'), PORT: String(servicePort), HOST: '127.0.0.1', FURROW_APP_PORT: String(appPort) };
  app = await startApp(env);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  ({ page, problems } = await openApp(browser, app.url));
}, 150_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const poll = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: 30_000 });
const api = () => demoApi({ dir, app, service });

interface Crop { id: number; name: string | null; family: { id: number } | null; closure: string | null; is_active: boolean }

const select = (name: string) => selectBySearch(page, name);

const timeline = () => page.locator('.rotation .crops > li.crop');
const cropTexts = () => timeline().evaluateAll((els) => els.map((e) => `${e.querySelector('.crop-name')!.textContent} ${e.querySelector('.badge')!.textContent}`));
const mismatch = () => page.getByRole('group', { name: 'crop_type and active crop differ' });
const sync = async () => { await page.locator('.top h1').click(); await page.keyboard.press('s'); };

/** '#rrggbb' of a CSS rgb()/rgba() colour. */
const hex = (css: string) => `#${(css.match(/\d+/g) ?? []).slice(0, 3).map((n) => Number(n).toString(16).padStart(2, '0')).join('')}`;

/** WCAG's contrast ratio of two '#rrggbb' colours, computed here on its own (not the app's function). */
function contrast(a: string, b: string): number {
  const l = (h: string) => [1, 3, 5].map((i) => Number.parseInt(h.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)).reduce((s, c, i) => s + c * [0.2126, 0.7152, 0.0722][i]!, 0);
  const [x, y] = [l(a), l(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
}

/** The map legend's entries while coloured by crop or family: name → the swatch's colour as drawn. */
async function legendColours(): Promise<Map<string, string>> {
  const entries = await page.locator('.legend .crop-legend li').evaluateAll((els) => els
    .map((e) => [e.textContent!.replace(/\s*\(\d+\)$/, '').trim(), getComputedStyle(e.querySelector('.swatch')!).backgroundColor] as [string, string]));
  return new Map(entries.filter(([n]) => !['Others', 'No active crop', 'Crop with no family', 'Crop with no name'].includes(n!)).map(([n, c]) => [n, hex(c)]));
}

describe("a farm manager's crops, colours and view", () => {
  it('infers Lentil\'s family, closes the Chickpea it replaces, and offers to bring crop_type in step', async () => {
    await poll(() => shownOn(page)).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    await page.getByRole('button', { name: /Finca El Olivar/ }).click();
    await select('Olivar A');
    await poll(cropTexts).toEqual(['Chickpea Active', 'Sunflower Past', 'Durum wheat Past']);
    expect(await mismatch().count()).toBe(0); // crop_type Chickpea, active Chickpea

    await page.getByRole('button', { name: '+ Add crop' }).click();
    const form = page.getByRole('form', { name: 'New crop' });
    // The family follows the name while the user has not chosen one; once they have, it is theirs.
    await form.getByLabel('Crop', { exact: true }).fill('Lentil');
    expect(await form.getByLabel('Family').inputValue()).toBe('Fabaceae');
    expect(await form.getByText("From the crop's name").count()).toBe(1);
    await page.screenshot({ path: join(SHOTS, 'app-crop-family-inferred.png') });
    await form.getByLabel('Crop', { exact: true }).fill('Durum wheat');
    expect(await form.getByLabel('Family').inputValue()).toBe('Poaceae');
    await form.getByLabel('Family').fill('Fabaceae');
    await form.getByLabel('Crop', { exact: true }).fill('Chickling');
    expect(await form.getByLabel('Family').inputValue()).toBe('Fabaceae');
    await form.getByLabel('Crop', { exact: true }).fill('Lentil');
    await form.getByLabel('Sowing').fill('2026-10-20');
    await form.getByRole('button', { name: 'Save crop' }).click();

    // A second active crop: asked to close the first, which then ends at the new one's sowing.
    const ask = page.getByRole('alertdialog', { name: 'Close the active crop?' });
    await poll(() => ask.textContent()).toContain('Chickpea 2025/2026 (ending 2026-10-20) is active on this parcel.');
    await page.screenshot({ path: join(SHOTS, 'app-crop-close-active.png') });
    await ask.getByRole('button', { name: 'Back' }).click();
    expect(await cropTexts()).toEqual(['Chickpea Active', 'Sunflower Past', 'Durum wheat Past']);
    await form.getByRole('button', { name: 'Save crop' }).click();
    await ask.getByRole('button', { name: 'Close it and save' }).click();
    await poll(cropTexts).toEqual(['Lentil Active', 'Chickpea Past', 'Sunflower Past', 'Durum wheat Past']);
    expect(await timeline().first().locator('.family').textContent()).toBe('Fabaceae');

    // crop_type still says Chickpea: shown, and updated from the crop in one click.
    await poll(() => mismatch().textContent()).toContain("The parcel's crop_type says Chickpea, but its active crop is Lentil (2026/2027).");
    await page.screenshot({ path: join(SHOTS, 'app-crop-mismatch.png') });
    await mismatch().getByRole('button', { name: 'Set crop_type to Lentil' }).click();
    await poll(() => mismatch().count()).toBe(0);
    // The offer is gone with the button pressed: the focus is on the parcel's heading, not the page's body.
    await poll(() => page.evaluate(() => document.activeElement?.id ?? '')).toBe('panel-title');
    await sync();
    const parcel = (await api().parcel('Olivar A'))!;
    await poll(async () => (await api().parcel('Olivar A'))!.properties.metadata.crop_type).toBe('Lentil');
    const families = new Map((await api().get<{ id: number; name: string }[]>('/api/crop-families/')).map((f) => [f.id, f.name]));
    await poll(async () => (await api().get<Crop[]>(`/api/parcels/${parcel.id}/crops/`)).map((c) => [c.name, c.is_active, c.closure, families.get(c.family!.id)]).sort())
      .toEqual([['Chickpea', false, '2026-10-20', 'Fabaceae'], ['Lentil', true, null, 'Fabaceae'], ['Durum wheat', false, expect.any(String), 'Poaceae'], ['Sunflower', false, expect.any(String), 'Asteraceae']].sort());

    // The other way, on Olivar E (Chickpea too): crop_type edited in its metadata, the crop renamed from it.
    await select('Olivar E');
    await poll(cropTexts).toEqual(['Chickpea Active', 'Sunflower Past', 'Durum wheat Past']);
    const editor = page.getByRole('form', { name: 'Edit parcel' });
    const keys = await editor.locator('.meta-row input[aria-label^="Key "]').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    await editor.getByLabel(`Value ${keys.indexOf('crop_type') + 1}`, { exact: true }).fill('Lentil');
    await editor.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => mismatch().textContent()).toContain('says Lentil, but its active crop is Chickpea');
    await mismatch().getByRole('button', { name: 'Rename the crop to Lentil' }).click();
    await poll(cropTexts).toEqual(['Lentil Active', 'Sunflower Past', 'Durum wheat Past']);
    await poll(() => mismatch().count()).toBe(0);
    await poll(() => page.evaluate(() => document.activeElement?.id ?? '')).toBe('panel-title');
  }, 150_000);

  it('gives every active crop shown a colour of its own, each family the embedded map\'s colour, and chips legible text', async () => {
    // Lentil sown on the service too (Olivar I), so that this test stands on its own: the trial's pair is in view.
    const olivarI = (await api().parcel('Olivar I'))!;
    expect((await api().send('POST', '/api/crops/', { parcel: olivarI.id, name: 'Lentil', campaign: '2026/2027', family: { name: 'Fabaceae' }, sowing: '2026-10-25', is_active: true })).status).toBe(201);
    // And a family of the organization's own (no colour of its own in core): both maps must still agree on it.
    const olivarJ = (await api().parcel('Olivar J'))!;
    expect((await api().send('POST', '/api/crops/', { parcel: olivarJ.id, name: 'Cotton', campaign: '2026/2027', family: { name: 'Malvaceae' }, sowing: '2026-10-25', is_active: true })).status).toBe(201);
    await sync();
    await page.getByRole('button', { name: /Finca El Olivar/ }).click();
    await page.getByLabel('Colour by').selectOption('crop');
    // Finca El Olivar's active crops (and the orchard's Almond where it is in view): Lentil and Durum wheat were one colour.
    await poll(async () => [...(await legendColours()).keys()]).toEqual(expect.arrayContaining(['Durum wheat', 'Olive', 'Lentil', 'Sunflower', 'Cotton']));
    const crops = await legendColours();
    expect(new Set(crops.values()).size, JSON.stringify([...crops])).toBe(crops.size);
    await page.screenshot({ path: join(SHOTS, 'app-colour-by-crop.png') });

    await page.getByLabel('Colour by').selectOption('family');
    await poll(async () => [...(await legendColours()).keys()]).toEqual(expect.arrayContaining(['Fabaceae', 'Poaceae', 'Oleaceae', 'Asteraceae', 'Malvaceae']));
    const families = await legendColours();
    expect(new Set(families.values()).size).toBe(families.size);
    // The embedded map the customer sees, each of its parcels in its family's colour.
    const embedUrl = /embedded map\s+(\S+)/.exec(app.err())![1]!;
    const data = await (await fetch(`${service}/embed/data/parcels?auth_id=${new URL(embedUrl).searchParams.get('auth_id')}`)).json() as { families: string[]; features: { properties: { name: string; crop: { family: string | null } | null } }[] };
    // It colours among the organization's families, as the app does: the service sends their names.
    expect([...data.families].sort()).toEqual((await api().get<{ name: string }[]>('/api/crop-families/')).map((f) => f.name).sort());
    const embed = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    await embed.goto(embedUrl);
    await embed.evaluate(() => (window as unknown as { __furrowEmbed: { ready: Promise<void> } }).__furrowEmbed.ready);
    for (const [family, colour] of families) {
      const parcel = data.features.find((f) => f.properties.crop?.family === family)!;
      expect(parcel, family).toBeDefined();
      const there = await embed.evaluate((n) => (window as unknown as { __furrowEmbed: { colorOf(n: string): string | null } }).__furrowEmbed.colorOf(n), parcel.properties.name);
      expect(there, family).toBe(colour);
    }
    await embed.context().close();

    // The chips of the rotation: text at 4.5:1 at least on every family's colour (white on the orchard's #44aa99 was 2.81).
    await select('Almond orchard');
    await poll(() => timeline().first().locator('.family').textContent()).toBe('Rosaceae');
    for (const name of ['Almond orchard', 'Olivar A']) {
      await select(name);
      await poll(() => timeline().count()).toBeGreaterThan(0);
      for (const [fg, bg] of await timeline().locator('.family').evaluateAll((els) => els.map((e) => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor]))) {
        expect(contrast(hex(fg!), hex(bg!)), `${fg} on ${bg}`).toBeGreaterThanOrEqual(4.5);
      }
    }
  }, 120_000);

  it('keeps colour by, the filter, the plants layer and the farm across a restart, with the same colours', async () => {
    await page.getByRole('button', { name: /Finca El Olivar/ }).click();
    await page.getByLabel('Colour by').selectOption('crop');
    await poll(async () => (await legendColours()).size).toBeGreaterThanOrEqual(4);
    const before = await legendColours();
    await page.getByRole('checkbox', { name: 'Plants' }).check();
    await page.getByRole('textbox', { name: 'Filter key' }).fill('certification');
    await page.getByRole('textbox', { name: 'Filter value' }).fill('organic');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await poll(() => page.getByRole('status', { name: 'Filter on' }).textContent()).toMatch(/certification = organic/);
    // The choices are written after a short quiet; then the app is stopped as a user stops it, and started again.
    await page.waitForTimeout(1500);
    await page.context().close();
    await app.stop();
    app = await startApp(env);
    ({ page, problems } = await openApp(browser, app.url));
    await waitOnline(page);
    expect(await page.getByLabel('Colour by').inputValue()).toBe('crop');
    expect(await page.getByRole('checkbox', { name: 'Plants' }).isChecked()).toBe(true);
    await poll(() => page.getByRole('status', { name: 'Filter on' }).textContent()).toMatch(/certification = organic/);
    expect(await page.getByRole('button', { name: /Finca El Olivar/ }).getAttribute('aria-pressed')).toBe('true');
    // The map opens on that farm, filtered: Olivar A, D, G and J are its organic parcels (of the 12).
    await poll(() => shownOn(page)).toBeGreaterThanOrEqual(4);
    expect(await page.locator('.legend .shown').textContent()).toMatch(/filtered by metadata$/);
    const after = await legendColours();
    expect(after.size).toBeGreaterThan(0);
    // The same crops the same colours. (The fit leaves room for the filter's banner now on: a crop just outside the
    // farm may come into view, one the legend did not show before.)
    const both = [...after].filter(([name]) => before.has(name));
    expect(both.length).toBeGreaterThanOrEqual(Math.min(3, after.size));
    for (const [name, colour] of both) expect(colour, name).toBe(before.get(name));
    await page.screenshot({ path: join(SHOTS, 'app-view-restored.png') });
    expect(await problems()).toEqual([]);
  }, 180_000);

  it('opens on the account shown last, not the launcher\'s, after a restart', async () => {
    // A second account of the organization, created and shown from the Accounts screen.
    await page.locator('.top h1').click();
    await page.keyboard.press('a');
    const panel = page.getByRole('dialog', { name: 'Accounts' });
    const form = panel.getByRole('form', { name: `Create an account in Furrow Demo Co-op at ${service}` });
    await form.getByLabel("New account's e-mail").fill('second-grower@example.com');
    await form.getByLabel('Label (optional)').fill('Second grower');
    await form.getByRole('button', { name: 'Create account' }).click();
    await poll(() => panel.getByRole('button', { name: 'Show Second grower' }).count()).toBe(1);
    await panel.getByRole('button', { name: 'Show Second grower' }).click();
    const shown = () => page.locator('.statusbar select').inputValue();
    const second = await shown();
    expect(second).not.toBe(api().account());
    await poll(() => shownOn(page)).toBe(0);
    await page.waitForTimeout(500);
    await page.context().close();
    await app.stop();
    app = await startApp(env);
    ({ page, problems } = await openApp(browser, app.url));
    await waitOnline(page);
    // The launcher's address names the demo account; the one shown last is still connected, so it is the one shown.
    await poll(shown).toBe(second);
    expect(await problems()).toEqual([]);
  }, 180_000);
});
