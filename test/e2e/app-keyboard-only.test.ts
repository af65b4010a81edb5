// The app without a mouse (issue 29, items 15 and 19), as app.test.ts runs it (`npm start`'s launcher with the
// embedded demo service, Debian's Chromium): the mouse is never touched, and after every step the keyboard's focus is
// checked — where it lands, that it never falls to the page's body, that a panel keeps it inside and gives it back.
// Every panel is opened and closed; a parcel drawn by typed vertices, a hectare point, a parcel selected by search,
// edited (name, a metadata key), a crop added, a file imported (its chooser answered through Playwright's file
// chooser API once the keyboard opened it), synced; the single-key shortcuts switched off, remapped and remembered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { join } from 'node:path';
import { ROOT } from '../helpers/process.ts';
import { SHOTS } from './embed-harness.ts';
import { demoApi, openApp, shownOn, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';

let ctx: DemoApp;
let page: Page;
let problems: () => Promise<string[]>;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-keyboard-only-');
  ({ page, problems } = await openApp(ctx.browser, ctx.app.url));
  // Nothing in this file may use the pointer: any mouse event the page sees fails the test (a click a key made,
  // Enter on a button, has no pointer: detail 0).
  const watch = () => {
    const w = window as unknown as { __mouse: string[] };
    w.__mouse = [];
    for (const type of ['mousedown', 'mouseup', 'click', 'mousemove', 'wheel']) {
      document.addEventListener(type, (e) => { if (type !== 'click' || (e as MouseEvent).detail !== 0) w.__mouse.push(type); }, true);
    }
  };
  await page.addInitScript(watch);
  await page.evaluate(watch);
}, 150_000);

afterAll(async () => {
  await ctx?.stop();
});

const poll = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: 30_000 });
const text = async (field: string) => (await page.locator(`[data-field=${field}]`).textContent()) ?? '';
const title = async () => (await page.locator('#panel-title').textContent()) ?? '';

/** The focused element's accessible name as a screen reader reads it ('' for the page's body). */
const focused = () => page.evaluate(() => {
  const el = document.activeElement as HTMLElement | null;
  if (!el || el === document.body) return '';
  const label = (el as HTMLInputElement).labels?.[0]?.textContent ?? el.getAttribute('aria-label') ?? el.textContent ?? '';
  return label.replace(/\s+/g, ' ').trim();
});

/** The focused element, told apart from any other (its tag, id, class and name). */
const where = () => page.evaluate(() => {
  const el = document.activeElement as HTMLElement | null;
  if (!el || el === document.body) return 'body';
  return `${el.tagName}#${el.id}.${el.className}|${el.getAttribute('aria-label') ?? el.textContent?.slice(0, 40) ?? ''}`;
});

/** Whether the focus is inside the element matching `selector`. */
const inside = (selector: string) => page.evaluate((s) => document.activeElement?.closest(s) != null, selector);

/** Tab (Shift+Tab when `back`) until the focus is on the control whose name matches: it is reachable by keyboard. */
async function tabTo(name: string | RegExp, back = false, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    const now = await focused();
    if (typeof name === 'string' ? now.startsWith(name) : name.test(now)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`Tab never reached "${String(name)}" (last: "${await focused()}")`);
}

/** Opens a panel with `key`, checks it holds the focus and the keys, closes it with Esc, and checks where the focus went. */
async function panel(key: string, selector: string, name: string | RegExp, back?: string): Promise<void> {
  const before = back ?? await where();
  const mode = await title();
  await page.keyboard.press(key);
  const dialog = page.locator(selector);
  await poll(() => dialog.count()).toBe(1);
  expect(await dialog.getAttribute('aria-label') ?? await dialog.locator('h2').first().textContent()).toMatch(name);
  expect(await inside(selector)).toBe(true);
  // Single keys wait behind it: D does not start drawing behind it.
  await page.keyboard.press('d');
  expect(await title()).toBe(mode);
  expect(await dialog.count()).toBe(1);
  // Modal: Tab goes round its controls and never out of it (the toolbar, the map and the side panel are inert).
  expect(await page.evaluate(() => document.querySelector('.toolbar')?.closest('[inert]') != null)).toBe(true);
  for (let i = 0; i < 25; i++) {
    await page.keyboard.press(i % 5 === 4 ? 'Shift+Tab' : 'Tab');
    expect(await inside(selector), `Tab ${i + 1} left ${selector} for ${await where()}`).toBe(true);
  }
  await page.keyboard.press('Escape');
  await poll(() => dialog.count()).toBe(0);
  expect(await where()).toBe(before);
  expect(await page.evaluate(() => document.querySelector('[inert]'))).toBeNull();
}

describe('the app with the keyboard alone', () => {
  it('draws, selects, edits, rotates, imports, syncs and opens every panel, the focus always where it should be', async () => {
    await poll(() => shownOn(page)).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    const api = demoApi(ctx);

    // The first Tab reaches the skip link; Enter goes past the toolbar and the map to the side panel.
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Skip to the side panel');
    expect((await page.locator('.skip-link').boundingBox())!.y).toBeGreaterThanOrEqual(0); // shown while focused
    await page.screenshot({ path: join(SHOTS, 'app-keyboard-skip.png') });
    await page.keyboard.press('Enter');
    expect(await where()).toMatch(/^DIV#side\./);
    const side = await where();

    // Every panel, opened by its key from the side panel: focus inside, Tab cycles, Esc gives it back.
    await panel('?', '.help', 'Keyboard shortcuts');
    await panel('Control+,', '.settings', 'Settings');
    await panel('a', '.accounts-panel', 'Accounts');
    await panel('c', '.cockpit', 'Sync details');
    await panel('r', '.rotation-table', /^Crop rotation of /);
    expect(await where()).toBe(side);
    await page.keyboard.press('Tab');
    expect(await inside('#side')).toBe(true);
    // Opened from its button (Enter), a panel gives the focus back to the button.
    await tabTo('Keyboard shortcuts');
    await panel('Enter', '.help', 'Keyboard shortcuts');
    expect(await focused()).toBe('Keyboard shortcuts');
    await tabTo('Settings', true);
    await panel('Enter', '.settings', 'Settings');
    expect(await focused()).toBe('Settings');

    // The map's zoom buttons are at least 24 px; the legend's count is no live region (it changes at every move).
    for (const b of ['.ol-zoom-in', '.ol-zoom-out']) {
      const box = (await page.locator(b).boundingBox())!;
      expect(Math.min(box.width, box.height)).toBeGreaterThanOrEqual(24);
    }
    expect(await page.locator('.legend .shown').evaluate((e) => e.closest('[role=status], [aria-live]') === null)).toBe(true);
    // Nor the plants' count beside it (T shows them): nothing in the legend speaks up at every move.
    await page.keyboard.press('t');
    await poll(() => page.locator('.legend .plants-shown').count()).toBe(1);
    expect(await page.locator('.legend [role=status]:not([aria-live=off]), .legend [aria-live]:not([aria-live=off])').count()).toBe(0);
    await page.keyboard.press('t');
    await poll(() => page.locator('.legend .plants-shown').count()).toBe(0);

    // Select a parcel by search (/): the live region says which.
    await page.keyboard.press('/');
    expect(await focused()).toBe('Search parcels');
    await page.keyboard.type('Olivar B');
    await poll(() => page.getByRole('listbox', { name: 'Search results' }).getByRole('option').first().textContent()).toMatch(/^Olivar B/);
    await page.keyboard.press('Enter');
    await poll(() => text('name')).toBe('Olivar B');
    await poll(() => page.getByRole('status', { name: 'Selection' }).textContent()).toMatch(/^Selected Olivar B, [\d.,]+ ha, \w/);
    await page.keyboard.press('Escape'); // the search box clears and lets go: the map's keys work again
    expect(await where()).toBe('body');

    // Draw by typing (D): the focus goes straight into the vertex field.
    const farms = await api.get<{ id: number }[]>('/api/farms/');
    const all = (await Promise.all(farms.map((f) => api.get<{ features: { geometry: { coordinates: number[][][] } }[] }>(`/api/farms/${f.id}/parcels/`)))).flatMap((r) => r.features);
    const xs = all.flatMap((p) => p.geometry.coordinates[0]!.map((c) => c[0]!));
    const ys = all.flatMap((p) => p.geometry.coordinates[0]!.map((c) => c[1]!));
    const round = (x: number) => Math.round(x * 1e6) / 1e6;
    const [lon0, lat0] = [round(Math.min(...xs)), round(Math.min(...ys) - 0.004)]; // below the demo farm: free
    const ring = [[0, 0], [0.004, 0], [0.004, -0.003], [0, -0.003]].map(([dx, dy]) => [round(lon0 + dx!), round(lat0 + dy!)]);
    await page.keyboard.press('d');
    await poll(title).toBe('Drawing a parcel');
    await poll(focused).toBe('Vertex (longitude, latitude)');
    // A mistyped vertex: the field says why, and points at the sentence that says it.
    await page.keyboard.type('200, 37');
    await page.keyboard.press('Enter');
    await poll(() => page.locator('.lonlat [role=alert]').textContent()).toMatch(/Longitude 200 is outside/);
    const describedBy = await page.locator('.lonlat input').getAttribute('aria-describedby');
    expect(await page.locator('.lonlat input').getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate((id) => document.getElementById(id!)?.textContent, describedBy)).toMatch(/Longitude 200 is outside/);
    for (const [i, [lon, lat]] of ring.entries()) {
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.type(`${lon}, ${lat}`);
      await page.keyboard.press('Enter');
      await poll(() => page.locator('.lonlat .muted').textContent()).toBe(`${i + 1} ${i ? 'vertices' : 'vertex'}`);
    }
    await tabTo('Finish polygon');
    await page.keyboard.press('Enter');
    await poll(title).toBe('New parcel');
    expect(await focused()).toBe('Name');
    await page.keyboard.type('Keyboard field');
    await page.keyboard.press('Enter');
    // Saved: the focus is on the saved parcel's heading, not the page's body.
    await poll(() => text('name')).toBe('Keyboard field');
    await poll(where).toMatch(/^H2#panel-title\./);

    // The delete confirmation starts on Cancel; Esc keeps the parcel and gives the focus back.
    const heading = await where();
    await page.keyboard.press('Delete');
    const confirm = page.getByRole('alertdialog', { name: 'Delete parcel?' });
    await poll(() => confirm.isVisible()).toBe(true);
    expect(await focused()).toBe('Cancel');
    await page.keyboard.press('Escape');
    await poll(() => confirm.isVisible()).toBe(false);
    expect(await where()).toBe(heading);

    // A hectare point (P): the focus goes to the position field, then the hectares.
    await page.keyboard.press('p');
    await poll(title).toBe('Drop a hectare point');
    await poll(focused).toBe('Point at (longitude, latitude)');
    await page.keyboard.type(`${round(lon0 + 0.01)}, ${round(lat0 - 0.0015)}`);
    await page.keyboard.press('Enter');
    await poll(title).toBe('New hectare point');
    expect(await focused()).toBe('Hectares');
    await page.keyboard.type('3');
    await tabTo('Name');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('Keyboard point');
    await page.keyboard.press('Enter');
    await poll(() => text('name')).toBe('Keyboard point');
    await poll(where).toMatch(/^H2#panel-title\./);

    // Edit it: rename, + Add key puts the focus in the new key, Enter saves, the focus back on the parcel.
    await tabTo('Name');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('Keyboard point renamed');
    await tabTo('+ Add key');
    await page.keyboard.press('Enter');
    await poll(focused).toBe('Key 1');
    await page.keyboard.type('soil');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Value 1');
    await page.keyboard.type('clay');
    await page.keyboard.press('Enter');
    await poll(() => text('name')).toBe('Keyboard point renamed');
    await poll(where).toMatch(/^H2#panel-title\./);

    // Add a crop: the form opens on its first field; saved, the focus is on the new crop's Edit button.
    await tabTo('+ Add crop');
    await page.keyboard.press('Enter');
    await poll(focused).toBe('Campaign');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Crop');
    await page.keyboard.type('Vetch');
    await page.keyboard.press('Enter');
    await poll(focused).toMatch(/^Edit .*Vetch$/);
    // Its ring shows on the white side panel: 3:1 or more against white and the status line's grey.
    const ring3 = await page.evaluate(() => {
      const lum = (rgb: string) => {
        const [r, g, b] = rgb.match(/\d+/g)!.slice(0, 3).map((v) => { const c = Number(v) / 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      };
      const ratio = (a: string, b: string) => { const [x, y] = [lum(a), lum(b)]; return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
      const s = getComputedStyle(document.activeElement!);
      const side = getComputedStyle(document.querySelector('.side')!).backgroundColor;
      const bar = getComputedStyle(document.querySelector('.statusbar')!).backgroundColor;
      return { style: s.outlineStyle, width: parseFloat(s.outlineWidth), side: ratio(s.outlineColor, side), white: ratio(s.outlineColor, 'rgb(255, 255, 255)'), bar: ratio(s.outlineColor, bar) };
    });
    expect(ring3.style).toBe('solid');
    expect(ring3.width).toBeGreaterThanOrEqual(2);
    for (const r of [ring3.side, ring3.white, ring3.bar]) expect(r).toBeGreaterThanOrEqual(3);
    await page.screenshot({ path: join(SHOTS, 'app-keyboard-crop.png') });
    // The farm's rotation table (R) from there, and back to the crop's button.
    await panel('r', '.rotation-table', /^Crop rotation of /);
    expect(await focused()).toMatch(/^Edit .*Vetch$/);

    // Import (I): the keyboard opens the chooser, the file is given through it; the dialog takes the focus, and
    // after the import the focus is on the farm the parcels went into.
    const dialog = page.locator('.import-dialog');
    const choose = async () => {
      // A round trip between listening and the key: Playwright turns Chromium's chooser interception on
      // asynchronously, and a key sent right behind it can reach the page first under load (app-import's finding).
      const chooserShown = page.waitForEvent('filechooser');
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(r)));
      await page.keyboard.press('i');
      await (await chooserShown).setFiles(join(ROOT, 'examples/fields.geojson'));
      await poll(() => dialog.locator('#import-summary').count()).toBe(1);
      await poll(() => inside('.import-dialog')).toBe(true);
    };
    // Esc cancels it, and the focus is back where it was.
    const crop = await where();
    await choose();
    await page.keyboard.press('Escape');
    await poll(() => dialog.count()).toBe(0);
    expect(await where()).toBe(crop);
    await choose();
    await tabTo(/^Import \d+ valid features?$/);
    await page.keyboard.press('Enter');
    await poll(() => dialog.count()).toBe(0);
    await poll(where).toMatch(/^BUTTON#\.farm/);
    expect(await focused()).toMatch(/^fields\s?\d+ parcels?/);

    // Sync (S): the service has what was typed.
    await page.keyboard.press('s');
    await poll(async () => (await api.parcel('Keyboard point renamed'))?.properties.metadata.soil).toBe('clay');
    expect(await api.parcel('Keyboard field')).toBeDefined();
    expect(await where()).toMatch(/^BUTTON#\.farm/);
    // Sync now from its button (Enter): busy while it syncs, yet it keeps the focus (never the page's body).
    await tabTo('Sync now', true);
    await page.keyboard.press('Enter');
    await page.waitForTimeout(300);
    await poll(() => page.evaluate(() => document.querySelector('.toolbar [aria-label="Sync now"]')?.getAttribute('aria-busy') ?? null)).toBeNull();
    await poll(() => page.locator('.statusbar .progress').count()).toBe(0);
    expect(await focused()).toBe('Sync now');
    // And a Sync button in Sync details (C): the same.
    await page.keyboard.press('c');
    await poll(() => inside('.cockpit')).toBe(true);
    await tabTo(/^Sync Demo grower/);
    await page.keyboard.press('Enter');
    await page.waitForTimeout(300);
    await poll(() => page.locator('.cockpit').getByRole('button', { name: /^Sync Demo grower/ }).textContent()).toBe('Sync');
    await poll(() => page.locator('.statusbar .progress').count()).toBe(0);
    expect(await focused()).toMatch(/^Sync Demo grower/);
    await page.keyboard.press('Escape');
    await poll(() => page.locator('.cockpit').count()).toBe(0);

    // Create a farm (N): the form takes the focus; created, the focus is on the new farm in the list.
    await page.keyboard.press('n');
    await poll(focused).toBe('Farm name');
    await page.keyboard.type('Keyboard farm');
    await page.keyboard.press('Enter');
    await poll(focused).toMatch(/^Keyboard farm/);

    // Settings: single keys switched off, then D draws nothing and no button announces it.
    await page.keyboard.press('Control+,');
    await poll(() => inside('.settings')).toBe(true);
    await tabTo('Single-key shortcuts');
    await page.keyboard.press('Space');
    await page.keyboard.press('Escape');
    await poll(() => page.locator('.settings').count()).toBe(0);
    await page.keyboard.press('d');
    expect(await title()).toBe('Parcel');
    expect(await page.locator('.toolbar [aria-label="Draw polygon"]').getAttribute('aria-keyshortcuts')).toBeNull();
    // Back on, and Draw moved to X: P is refused (Drop hectare point's), the field says so and is linked to it.
    await page.keyboard.press('Control+,');
    await poll(() => inside('.settings')).toBe(true);
    await tabTo('Single-key shortcuts');
    await page.keyboard.press('Space');
    await tabTo('Draw polygon');
    await page.keyboard.type('p');
    const draw = page.locator('#shortcut-draw');
    await poll(() => draw.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator(`#${await draw.getAttribute('aria-describedby')}`).textContent()).toBe('P is already the key of Drop hectare point.');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('x');
    await poll(() => draw.getAttribute('aria-invalid')).toBe('false');
    await page.screenshot({ path: join(SHOTS, 'app-settings-shortcuts.png') });
    await page.keyboard.press('Escape');
    await poll(() => page.locator('.settings').count()).toBe(0);
    await page.keyboard.press('d');
    expect(await title()).toBe('Parcel');
    await page.keyboard.press('x');
    await poll(title).toBe('Drawing a parcel');
    await poll(focused).toBe('Vertex (longitude, latitude)');
    expect(await page.locator('.toolbar [aria-label="Draw polygon"]').getAttribute('aria-keyshortcuts')).toBe('X');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await poll(title).toBe('Parcel');
    expect(await page.evaluate(() => (window as unknown as { __mouse?: string[] }).__mouse ?? [])).toEqual([]);
    // Remembered: a new start of the page keeps X.
    await page.reload();
    // The view comes back as it was left (the farm last shown: features/view/), so some parcels, not the whole farm.
    await poll(() => shownOn(page)).toBeGreaterThan(0);
    await page.keyboard.press('x');
    await poll(title).toBe('Drawing a parcel');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await poll(title).toBe('Parcel');

    // Delete a parcel from the keyboard: selected by search, Delete, Shift+Tab from Cancel to Delete, Enter; the focus
    // goes to the side panel's heading, not the page's body.
    await page.keyboard.press('/');
    await page.keyboard.type('Keyboard field');
    await poll(() => page.getByRole('listbox', { name: 'Search results' }).getByRole('option').first().textContent()).toMatch(/^Keyboard field/);
    await page.keyboard.press('Enter');
    await poll(() => text('name')).toBe('Keyboard field');
    await page.keyboard.press('Escape');
    expect(await where()).toBe('body');
    await page.keyboard.press('Delete');
    await poll(() => confirm.isVisible()).toBe(true);
    expect(await focused()).toBe('Cancel');
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('Delete Keyboard field');
    await page.keyboard.press('Enter');
    await poll(() => page.locator('[data-field=name]').count()).toBe(0);
    await poll(where).toMatch(/^H2#panel-title\./);

    expect(await page.evaluate(() => (window as unknown as { __mouse?: string[] }).__mouse ?? [])).toEqual([]);
    expect(await problems()).toEqual([]);
  }, 300_000);
});
