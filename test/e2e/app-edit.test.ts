// Editing parcels in the app end to end, as app.test.ts runs it (`npm start`'s launcher with the embedded demo
// service, Debian's Chromium): a demo parcel's vertex dragged on the canvas with Modify (the hectares change in the
// panel), the parcel moved whole, renamed and given a metadata key with a space (an invalid key and value refused
// inline), the edits undone and redone, another parcel deleted through the confirmation dialog, the delete undone and
// redone, a polygon drawn and modified snapping to a neighbour's vertices, Sync now, and the service holding exactly
// the edited shape's hectares, the name and metadata, the snapped vertices, and no deleted parcel.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type Page } from 'playwright-core';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/process.ts';
import { SHOTS } from './embed-harness.ts';
import { mapCentre, openApp, shownOn, startDemoApp, waitOnline, type DemoApp, type RunningApp } from './app-harness.ts';
import { polygonHectares } from '../../core/geo/area.ts';
import { ringSignedArea2 } from '../../core/geo/winding.ts';

let ctx: DemoApp;
let dir: string;
let app: RunningApp;
let service: string;
let browser: Browser;

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-edit-');
  ({ dir, app, service, browser } = ctx);
}, 150_000);

afterAll(async () => {
  await ctx?.stop();
});

interface ServiceParcel { id: number; geometry: { type: string; coordinates: number[][][] }; properties: { name: string; hectares: number; metadata: Record<string, unknown> } }

/** The service's own view, over its HTTP API with the demo's key, as curl would. */
async function onService(path: string): Promise<unknown> {
  const { api_key: key } = JSON.parse(readFileSync(join(dir, 'data', 'demo-credentials.json'), 'utf8')) as { api_key: string };
  const account = /account\s+(acc-[\w-]+)/.exec(app.err())![1]!;
  const r = await fetch(`${service}${path}`, { headers: { 'x-api-key': key, 'service-account': account } });
  expect(r.status).toBe(200);
  return r.json();
}

async function serviceParcels(): Promise<ServiceParcel[]> {
  const farms = await onService('/api/farms/') as { id: number }[];
  const all: ServiceParcel[] = [];
  for (const f of farms) all.push(...(await onService(`/api/farms/${f.id}/parcels/`) as { features: ServiceParcel[] }).features);
  return all;
}

/**
 * Where a [lon, lat] is on the page, from the map's own cursor read-out (its MousePosition control, 5 decimals) at
 * two points: at field scale Web Mercator is linear to far below a pixel.
 */
async function projection(page: Page): Promise<(lon: number, lat: number) => [number, number]> {
  const { cx, cy } = await mapCentre(page);
  const at = async (x: number, y: number) => {
    await page.mouse.move(x, y);
    const t = (await page.locator('.cursor-position').textContent()) ?? '';
    const [lon, lat] = t.split(',').map(Number);
    return { x, y, lon: lon!, lat: lat! };
  };
  const a = await at(cx - 250, cy - 200);
  const b = await at(cx + 250, cy + 200);
  return (lon, lat) => [a.x + ((lon - a.lon) / (b.lon - a.lon)) * (b.x - a.x), a.y + ((lat - a.lat) / (b.lat - a.lat)) * (b.y - a.y)];
}

const mean = (ps: number[][]): [number, number] => [ps.reduce((s, p) => s + p[0]!, 0) / ps.length, ps.reduce((s, p) => s + p[1]!, 0) / ps.length];
/** expect.poll with room for a machine shared by several test runs (its default gives up after a second). */
const poll = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: 30_000 });
const text = async (page: Page, field: string) => (await page.locator(`[data-field=${field}]`).textContent()) ?? '';

async function drag(page: Page, from: [number, number], to: [number, number]): Promise<void> {
  await page.mouse.move(from[0], from[1]);
  await page.mouse.down();
  await page.mouse.move(from[0] + (to[0] - from[0]) / 2, from[1] + (to[1] - from[1]) / 2, { steps: 5 });
  await page.mouse.move(to[0], to[1], { steps: 5 });
  await page.mouse.up();
}

/**
 * Modify's interactions are on the map (useModify marks the map once they are): the panel names the parcel a render
 * earlier, and a drag made in between pans the map instead of moving the shape.
 */
const modifying = (page: Page, name: string) => poll(async () => [await page.locator('#panel-title').textContent(), await page.locator('.map[data-modifying]').count()])
  .toEqual([`Modifying ${name}`, 1]);

/** A beforeunload as a reload sends it: whether the page asks before leaving. */
const asksBeforeLeaving = (page: Page) => page.evaluate(() => {
  const e = new Event('beforeunload', { cancelable: true });
  window.dispatchEvent(e);
  return e.defaultPrevented;
});

describe('editing parcels in the app', () => {
  it('modifies, moves, renames, edits metadata, deletes with undo and redo, and the service holds the result', async () => {
    const { page, problems } = await openApp(browser, app.url);
    await poll(() => shownOn(page)).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    await page.waitForTimeout(500);
    const toPixel = await projection(page);
    const { cx, cy } = await mapCentre(page);
    const box = (await page.locator('.map .ol-viewport').boundingBox())!;
    // The cursor read-out sits over the map and lets clicks through (OpenLayers made it catch them: a vertex clicked
    // there was lost); the zoom buttons are named for screen readers, not "+" and "–".
    const readout = (await page.locator('.cursor-position').boundingBox())!;
    expect(await page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.className, [readout.x + readout.width / 2, readout.y + readout.height / 2])).not.toContain('cursor-position');
    expect(await page.getByRole('button', { name: 'Zoom in', exact: true }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Zoom out', exact: true }).count()).toBe(1);

    // The demo parcels wholly in view, nearest the middle first; the legend's corner left out.
    const inside = ([x, y]: [number, number]) => x > box.x + 60 && x < box.x + box.width - 60 && y > box.y + 60 && y < box.y + box.height - 160;
    const all = await serviceParcels();
    const before = all
      .filter((p) => p.geometry.type === 'Polygon' && p.geometry.coordinates[0]!.every(([lon, lat]) => inside(toPixel(lon!, lat!))))
      .map((p) => ({ p, c: toPixel(...mean(p.geometry.coordinates[0]!.slice(0, -1))) }))
      .sort((a, b) => Math.hypot(a.c[0] - cx, a.c[1] - cy) - Math.hypot(b.c[0] - cx, b.c[1] - cy));
    expect(before.length).toBeGreaterThanOrEqual(2);
    const [target, victim] = before as [typeof before[0], typeof before[0]];

    // Select the parcel by clicking its middle.
    await page.mouse.click(...target.c);
    await poll(() => text(page, 'name')).toBe(target.p.properties.name);
    const haBefore = await text(page, 'hectares');

    // Modify (M): drag one vertex outwards, away from the parcel's middle; the live area grows.
    await page.keyboard.press('m');
    await modifying(page, target.p.properties.name);
    expect(await text(page, 'modify-hectares')).toBe(haBefore);
    expect(await asksBeforeLeaving(page)).toBe(false);
    const [vlon, vlat] = target.p.geometry.coordinates[0]![0]!;
    const v = toPixel(vlon!, vlat!);
    const out = Math.hypot(v[0] - target.c[0], v[1] - target.c[1]);
    const dragged: [number, number] = [v[0] + ((v[0] - target.c[0]) / out) * 30, v[1] + ((v[1] - target.c[1]) / out) * 30];
    await drag(page, v, dragged);
    await poll(() => text(page, 'modify-hectares')).not.toBe(haBefore);
    const modified = await text(page, 'modify-hectares');
    expect(Number.parseFloat(modified)).toBeGreaterThan(Number.parseFloat(haBefore));
    // Unsaved: a reload would ask first.
    expect(await asksBeforeLeaving(page)).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'app-modify.png') });
    await page.keyboard.press('Enter');
    await poll(() => page.locator('#panel-title').textContent()).toBe('Parcel');
    await poll(() => text(page, 'hectares')).toBe(modified);
    expect(await text(page, 'state')).toBe('Pending');
    expect(await asksBeforeLeaving(page)).toBe(false);

    // Esc leaves Modify and the parcel keeps its shape.
    await page.getByRole('button', { name: 'Modify' }).click();
    await modifying(page, target.p.properties.name);
    await drag(page, toPixel(vlon!, vlat!), [cx, cy]);
    await page.keyboard.press('Escape');
    await poll(() => page.locator('#panel-title').textContent()).toBe('Parcel');
    expect(await text(page, 'hectares')).toBe(modified);

    // Move it whole: drag its inside 24 px right and 16 px down, then Save shape.
    await page.getByRole('button', { name: 'Modify' }).click();
    await modifying(page, target.p.properties.name);
    const grab: [number, number] = [target.c[0] - 4, target.c[1] - 4];
    await drag(page, grab, [grab[0] + 24, grab[1] + 16]);
    await poll(() => page.getByRole('button', { name: 'Save shape' }).isEnabled()).toBe(true);
    const moved = await text(page, 'modify-hectares');
    await page.getByRole('button', { name: 'Save shape' }).click();
    await poll(() => page.locator('#panel-title').textContent()).toBe('Parcel');
    await poll(() => text(page, 'hectares')).toBe(moved);

    // Rename, and a metadata key with a space; an invalid key and an invalid value are refused inline.
    const editor = page.getByRole('form', { name: 'Edit parcel' });
    await editor.getByLabel('Name').fill('E2E edited field');
    const rows = await editor.getByRole('group', { name: /^Metadata \d+$/ }).count();
    await editor.getByRole('button', { name: '+ Add key' }).click();
    await editor.getByLabel(`Key ${rows + 1}`, { exact: true }).fill('soil type');
    await editor.getByLabel(`Value ${rows + 1}`, { exact: true }).fill('loam');
    await editor.getByRole('button', { name: '+ Add key' }).click();
    await editor.getByLabel(`Key ${rows + 2}`, { exact: true }).fill('k'.repeat(201));
    await editor.getByLabel(`Value ${rows + 2}`, { exact: true }).fill('x');
    const badRow = editor.getByRole('group', { name: `Metadata ${rows + 2}` });
    await poll(() => badRow.getByRole('alert').textContent()).toMatch(/^Metadata key "k+"… has 201 characters; at most 200 are allowed\.$/);
    expect(await editor.getByLabel(`Key ${rows + 2}`, { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await editor.getByRole('button', { name: 'Save changes' }).isDisabled()).toBe(true);
    // The message quoting the long key wraps inside the side panel, never past its edge.
    const side = (await page.locator('.side').boundingBox())!;
    const said = (await badRow.getByRole('alert').boundingBox())!;
    expect(said.x + said.width).toBeLessThanOrEqual(side.x + side.width);
    expect(await page.locator('.side').evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'app-edit.png') });
    await editor.getByLabel(`Key ${rows + 2}`, { exact: true }).fill('note');
    await editor.getByLabel(`Value ${rows + 2}`, { exact: true }).fill('v'.repeat(2001));
    await poll(() => badRow.getByRole('alert').textContent()).toMatch(/^Metadata value of "note" has 2001 characters; at most 2000 are allowed\.$/);
    expect(await editor.getByLabel(`Value ${rows + 2}`, { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await editor.getByRole('button', { name: 'Save changes' }).isDisabled()).toBe(true);
    await badRow.getByRole('button', { name: 'Remove key note' }).click();
    await poll(() => editor.getByRole('alert').count()).toBe(0);
    await editor.getByRole('button', { name: 'Save changes' }).click();
    await poll(() => text(page, 'name')).toBe('E2E edited field');
    await poll(() => editor.getByLabel(`Key ${rows + 1}`, { exact: true }).inputValue()).toBe('soil type');
    // An empty name is refused inline too, and Reset puts the saved one back.
    await editor.getByLabel('Name').fill('  ');
    await poll(() => editor.getByRole('alert').first().textContent()).toMatch(/^Name is required and must not be empty/);
    await editor.getByRole('button', { name: 'Reset' }).click();

    // Every edit is the backend's, in its history: Undo takes back the rename, then the move; Redo does them again.
    await page.locator('.top h1').click();
    await page.keyboard.press('Control+Z');
    await poll(() => text(page, 'name')).toBe(target.p.properties.name);
    expect(await editor.getByLabel(`Key ${rows + 1}`, { exact: true }).count()).toBe(0);
    await page.keyboard.press('Control+Z');
    await poll(() => text(page, 'hectares')).toBe(modified);
    await page.keyboard.press('Control+Shift+Z');
    await poll(() => text(page, 'hectares')).toBe(moved);
    await page.keyboard.press('Control+Shift+Z');
    await poll(() => text(page, 'name')).toBe('E2E edited field');

    // Snapping: a triangle drawn with its first vertex clicked 3 px off a neighbour's vertex starts exactly on it;
    // Modify then drags its second vertex to 3 px off the neighbour's next vertex, and it lands exactly there.
    const neighbour = before.slice(2).flatMap(({ p, c }) => p.geometry.coordinates[0]!.slice(0, -1).map((q, k, ring) => {
      const at = toPixel(q[0]!, q[1]!);
      const len = Math.hypot(at[0] - c[0], at[1] - c[1]);
      const u = [(at[0] - c[0]) / len, (at[1] - c[1]) / len] as const;
      const b: [number, number] = [at[0] + u[0] * 50 - u[1] * 30, at[1] + u[1] * 50 + u[0] * 30];
      const cc: [number, number] = [at[0] + u[0] * 50 + u[1] * 30, at[1] + u[1] * 50 - u[0] * 30];
      return { q, next: ring[(k + 1) % ring.length]!, at, b, c: cc };
    })).find((n) => inside(n.b) && inside(n.c));
    expect(neighbour).toBeDefined();
    const snapTo = neighbour!;
    const shownBeforeDraw = await shownOn(page);
    await page.getByRole('button', { name: 'Draw polygon' }).click();
    for (const [x, y] of [[snapTo.at[0] + 3, snapTo.at[1] + 2], snapTo.b, snapTo.c]) await page.mouse.click(x!, y!);
    await page.keyboard.press('Enter');
    await page.getByLabel('Name').fill('E2E snapped');
    await page.getByRole('button', { name: 'Save parcel' }).click();
    await poll(() => shownOn(page)).toBe(shownBeforeDraw + 1);
    // Saved, it is selected. (No click on it here: within OpenLayers' 250 ms of the last vertex's click, told late on a
    // loaded machine, a click is a double-click and zooms; and that late single click must not deselect it.)
    await poll(() => text(page, 'name')).toBe('E2E snapped').catch(async (e: unknown) => {
      // What the app said (a refusal, a failed save) is the first thing to know when this fails on a loaded machine.
      await page.screenshot({ path: join(SHOTS, 'app-edit-failed.png') });
      throw new Error(`${String(e)}; the status line said: ${await page.locator('.statusbar').textContent()}`);
    });
    await page.locator('.top h1').click();
    await page.keyboard.press('m');
    await modifying(page, 'E2E snapped');
    const nextAt = toPixel(snapTo.next[0]!, snapTo.next[1]!);
    await drag(page, snapTo.b, [nextAt[0] - 3, nextAt[1] + 3]);
    await poll(() => page.getByRole('button', { name: 'Save shape' }).isEnabled()).toBe(true).catch(async (e: unknown) => {
      await page.screenshot({ path: join(SHOTS, 'app-edit-failed.png') });
      throw new Error(`${String(e)}; the panel said: ${await page.locator('.panel').textContent()}`);
    });
    await page.keyboard.press('Enter');
    await poll(() => page.locator('#panel-title').textContent()).toBe('Parcel');

    // Delete another parcel: the confirmation names it with its hectares; Esc keeps it, Enter deletes it.
    const shown = await shownOn(page);
    await page.mouse.click(...victim.c);
    await poll(() => text(page, 'name')).toBe(victim.p.properties.name);
    const victimHa = await text(page, 'hectares');
    await page.locator('.top h1').click();
    await page.keyboard.press('Delete');
    const dialog = page.getByRole('alertdialog', { name: 'Delete parcel?' });
    await poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.textContent()).toContain(`${victim.p.properties.name} (${victimHa})`);
    await page.keyboard.press('Escape');
    await poll(() => dialog.isVisible()).toBe(false);
    expect(await shownOn(page)).toBe(shown);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await poll(() => dialog.isVisible()).toBe(true);
    // It starts on Cancel (an Enter too many keeps the parcel); the focus stays in the dialog: Tab goes round its two buttons.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('dialog') !== null)).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(`Delete ${victim.p.properties.name}`);
    await page.screenshot({ path: join(SHOTS, 'app-delete.png') });
    await page.keyboard.press('Enter');
    await poll(() => shownOn(page)).toBe(shown - 1);

    // Undo brings it back; redo deletes it again.
    await page.locator('.top h1').click();
    await page.keyboard.press('Control+Z');
    await poll(() => shownOn(page)).toBe(shown);
    await page.keyboard.press('Control+Shift+Z');
    await poll(() => shownOn(page)).toBe(shown - 1);

    await page.getByRole('button', { name: 'Sync now' }).click();
    await poll(() => page.getByRole('status', { name: 'Message' }).textContent()).toMatch(/^Synced: \d+ sent(, \d+ received)?\.$/);

    // The service holds the edited parcel exactly: the shape's hectares, its new name, the metadata key with a space.
    const after = await serviceParcels();
    const edited = after.filter((p) => p.id === target.p.id);
    expect(edited).toHaveLength(1);
    const e = edited[0]!;
    expect(e.properties.name).toBe('E2E edited field');
    expect(e.properties.metadata['soil type']).toBe('loam');
    for (const [k, value] of Object.entries(target.p.properties.metadata)) if (k !== 'furrow_ref') expect(e.properties.metadata[k]).toEqual(value);
    expect(`${e.properties.hectares.toFixed(2)} ha`).toBe(moved);
    expect(polygonHectares(e.geometry.coordinates)).toBeCloseTo(e.properties.hectares, 6);
    // Saved counter-clockwise (RFC 7946), and moved about 24 px right and 16 px down (a snap may take a few px).
    expect(ringSignedArea2(e.geometry.coordinates[0]!)).toBeGreaterThan(0);
    const [mx, my] = toPixel(...mean(e.geometry.coordinates[0]!.slice(0, -1)));
    const [ox, oy] = toPixel(...mean(target.p.geometry.coordinates[0]!.slice(0, -1)));
    const n = target.p.geometry.coordinates[0]!.length - 1;
    expect(Math.abs(mx - ox - 24 - (dragged[0] - v[0]) / n)).toBeLessThan(12);
    expect(Math.abs(my - oy - 16 - (dragged[1] - v[1]) / n)).toBeLessThan(12);
    expect(after.some((p) => p.id === victim.p.id)).toBe(false);
    // One deleted, one drawn.
    expect(after).toHaveLength(all.length);
    const snapped = after.find((p) => p.properties.name === 'E2E snapped')!.geometry.coordinates[0]!;
    const on = (q: number[]) => snapped.some((s) => Math.abs(s[0]! - q[0]!) < 1e-8 && Math.abs(s[1]! - q[1]!) < 1e-8);
    expect(on(snapTo.q)).toBe(true);
    expect(on(snapTo.next)).toBe(true);

    copyFileSync(join(SHOTS, 'app-edit.png'), join(ROOT, 'docs/img/app-edit.png'));
    expect(await problems()).toEqual([]);
  }, 240_000);
});
