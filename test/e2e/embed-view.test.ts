// The embedded map in a real browser: the view it opens on, a small iframe, the detail panel keeping the selected
// parcel clear, and one colour per crop family. Assertions read the map's own state through window.__furrowEmbed.
import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../service/config.ts';
import { runDemo } from '../../service/demo.ts';
import { dir, svc, browser, seeded, url, useEmbedService, open, ready, names, pixelOf, settled, rectOf, boxOf, overlaps, within, legend, shot } from './embed-harness.ts';
import type {} from '../../service/web/embed/client/types.ts';

useEmbedService();

describe('embedded map: view, panel and colours', { timeout: 60_000 }, () => {
  it('fits a small iframe: the card starts folded and the map still works', async () => {
    const context = await browser.newContext({ viewport: { width: 420, height: 360 } });
    const { page } = await open(url, context);
    await ready(page);
    expect((await names(page)).length).toBe(seeded.parcels.size);
    // Folded at first so the map comes first; it opens on demand.
    expect(await page.locator('#card').getAttribute('open')).toBeNull();
    for (const name of seeded.parcels.keys()) expect(await page.evaluate((n) => window.__furrowEmbed!.hoverPixelOf(n), name)).not.toBeNull();
    await shot(page, 'embed-small');
    // The panel takes the lower part of a small frame: the selected parcel moves into the strip above it.
    await page.mouse.click((await pixelOf(page, 'Sunflower Flats')).x, (await pixelOf(page, 'Sunflower Flats')).y);
    await expect.poll(() => page.locator('#panel').isVisible()).toBe(true);
    await settled(page);
    expect(overlaps(await rectOf(page, 'Sunflower Flats'), await boxOf(page, '#panel'))).toBe(false);
    expect(within(await rectOf(page, 'Sunflower Flats'), { left: 0, top: 0, right: 420, bottom: 360 })).toBe(true);
    await shot(page, 'embed-small-panel');
    await page.keyboard.press('Escape');
    await page.locator('.card__head').click();
    expect(await page.locator('#card').getAttribute('open')).not.toBeNull();
    await context.close();
  });

  it('moves the selected parcel out from under the detail panel, and keeps it clear when zooming to it', async () => {
    const { page, context } = await open(url);
    await ready(page);
    await settled(page);
    // The parcel furthest right: where the panel opens.
    const rects = await Promise.all([...seeded.parcels.keys()].map(async (n) => [n, await rectOf(page, n)] as const));
    const [name, before] = rects.reduce((a, b) => (b[1].right > a[1].right ? b : a));
    await page.mouse.click((await pixelOf(page, name)).x, (await pixelOf(page, name)).y);
    await expect.poll(() => page.locator('#panel').isVisible()).toBe(true);
    const panel = await boxOf(page, '#panel');
    expect(overlaps(before, panel), `${name} starts under the panel`).toBe(true);
    await settled(page);
    const after = await rectOf(page, name);
    expect(overlaps(after, panel)).toBe(false);
    expect(overlaps(after, await boxOf(page, '#card'))).toBe(false);
    expect(within(after, { left: 0, top: 0, right: 1200, bottom: 760 })).toBe(true);
    // Moved, not zoomed: the same size on screen.
    expect(after.right - after.left).toBeCloseTo(before.right - before.left, 0);
    await shot(page, 'embed-panel-clear');
    await page.getByText('Zoom to parcel').click();
    await settled(page);
    const zoomed = await rectOf(page, name);
    expect(zoomed.right - zoomed.left).toBeGreaterThan(2 * (after.right - after.left));
    expect(overlaps(zoomed, panel)).toBe(false);
    await context.close();
  });

  it('gives each crop family one colour, the same under every filter and in every account', async () => {
    const { page, context } = await open(url);
    await ready(page);
    const all = await legend(page);
    expect(Object.keys(all).sort()).toEqual(['Asteraceae', 'Crop without family', 'No current crop', 'Oleaceae', 'Poaceae', 'Rosaceae', 'Vitaceae']);
    expect(new Set(Object.values(all)).size).toBe(7);
    expect(await page.evaluate(() => window.__furrowEmbed!.colorOf('North Field'))).toBe(all.Poaceae);
    for (const filter of ['&metadata[Supplier+ID]=S-12', '&metadata[certification]=organic', '&metadata[crop_type]=barley']) {
      await page.goto(`${url}${filter}`);
      await ready(page);
      const shown = await legend(page);
      expect(Object.keys(shown).length, filter).toBeLessThan(Object.keys(all).length);
      for (const [family, color] of Object.entries(shown)) expect(color, `${family} under ${filter}`).toBe(all[family]);
    }
    // River Meadow (barley, Poaceae) is the one parcel of the last view: drawn in the colour the unfiltered legend gives Poaceae.
    expect(await names(page)).toEqual(['River Meadow']);
    expect(await page.evaluate(() => window.__furrowEmbed!.colorOf('River Meadow'))).toBe(all.Poaceae);
    await context.close();
  });

  it("opens a spread-out account (the demo: Andalucía and Lower Saxony) on its main area, and offers the others by name", async () => {
    const demo = await runDemo({ ...configFromEnv({}), dataDir: dir, publicUrl: svc.url, embedUrl: `${svc.url}/embed`, synchronous: 'NORMAL' });
    const { page, context } = await open(demo.credentials.embedded_url);
    await ready(page);
    await settled(page);
    const andalucia = (await names(page)).filter((n) => !n.startsWith('Sonnenfeld'));
    const saxony = (await names(page)).filter((n) => n.startsWith('Sonnenfeld'));
    expect([andalucia.length, saxony.length]).toEqual([13, 12]);
    const frame = { left: 0, top: 0, right: 1200, bottom: 760 };
    const inView = async (list: string[]) => Promise.all(list.map(async (n) => within(await rectOf(page, n), frame)));
    // Every parcel of the main area in view, clear of the card, as shapes (not markers: a few metres a pixel).
    const view = await page.evaluate(() => window.__furrowEmbed!.viewExtent());
    expect(view.metresPerPixel).toBeLessThan(10);
    expect(await inView(andalucia)).toEqual(andalucia.map(() => true));
    for (const n of andalucia) expect(overlaps(await rectOf(page, n), await boxOf(page, '#card')), n).toBe(false);
    expect(await inView(saxony)).toEqual(saxony.map(() => false));
    expect(await page.locator('#areas .area').allInnerTexts()).toEqual([
      expect.stringMatching(/^Finca El Olivar and Almendral La Vega\s+13 parcels/),
      expect.stringMatching(/^Hof Sonnenfeld\s+12 parcels/),
      expect.stringMatching(/^All parcels\s+25 parcels/),
    ]);
    await shot(page, 'embed-demo');

    // Polled, not read once: on a loaded CI machine one run read the view a frame before the fit's last step
    // (two parcels a few pixels out); a fit that really misses still fails here after the poll's timeout.
    await page.locator('#areas .area', { hasText: 'Hof Sonnenfeld' }).click();
    await settled(page);
    await expect.poll(() => inView(saxony)).toEqual(saxony.map(() => true));
    expect((await page.evaluate(() => window.__furrowEmbed!.viewExtent())).metresPerPixel).toBeLessThan(10);
    await page.locator('#areas .area', { hasText: 'All parcels' }).click();
    await settled(page);
    await expect.poll(() => inView([...andalucia, ...saxony])).toEqual([...andalucia, ...saxony].map(() => true));

    // The same family colours as in another account with other families.
    const families = await legend(page);
    await page.goto(url);
    await ready(page);
    const fixture = await legend(page);
    for (const f of ['Poaceae', 'Asteraceae', 'Oleaceae', 'Rosaceae']) expect(families[f], f).toBe(fixture[f]);
    await context.close();
  });
});
