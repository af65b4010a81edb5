// The embedded map in a real browser against the real service: its page and CSP, what it draws, filters, hover and
// detail, plants, refused links and framing. Assertions read the map's own features through window.__furrowEmbed.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { configFromEnv } from '../../service/config.ts';
import { embeddedUrl } from '../../service/store/accounts.ts';
import { frameAncestors, securityHeaders } from '../../service/web/embed/page.ts';
import { createAccount, expectedNames, type Account } from './embed-fixture.ts';
import { SHOTS, ha, svc, store, browser, seeded, url, PARTNER, ELSEWHERE, useEmbedService, open, ready, names, pixelOf, settled, rectOf, boxOf, overlaps, within, cspViolations, shot, authId, dataNames } from './embed-harness.ts';
import type {} from '../../service/web/embed/client/types.ts';

useEmbedService();

describe('embedded map', { timeout: 60_000 }, () => {
  it('serves the page with a strict CSP, no inline code and frame-ancestors from EMBED_FRAME_ANCESTORS', async () => {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    for (const d of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", 'img-src \'self\' data: ', 'https://*.tile.openstreetmap.org']) {
      expect(csp).toContain(d);
    }
    expect(csp).toContain(`frame-ancestors 'self' ${PARTNER}`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle=|<style/);
    expect(html).not.toContain(seeded.account.account_email);
    // Without the trailing slash the page's relative URLs (app.js, data/…) would resolve at '/': redirected.
    const bare = await fetch(`${svc.url}/embed?auth_id=${authId(url)}`, { redirect: 'manual' });
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe(`/embed/?auth_id=${authId(url)}`);
    // The bundle and the data routes carry the same headers; the bundle is revalidated by ETag.
    const js = await fetch(`${svc.url}/embed/app.js`);
    expect(js.headers.get('content-security-policy')).toBe(csp);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await fetch(`${svc.url}/embed/app.js`, { headers: { 'if-none-match': js.headers.get('etag')! } })).status).toBe(304);
    expect((await fetch(`${svc.url}/embed/data/parcels?auth_id=${authId(url)}`)).headers.get('content-security-policy')).toBe(csp);
    // Without the variable: 'self' only; a value that could smuggle in another directive stops the service.
    expect(configFromEnv({}).embedFrameAncestors).toBe("'self'");
    expect(securityHeaders("'self'")['content-security-policy']).toMatch(/frame-ancestors 'self'$/);
    expect(() => frameAncestors("https://a.example; script-src *")).toThrow(/EMBED_FRAME_ANCESTORS/);
  });

  it("draws every parcel of the account, fitted to their extent, and nothing of another account's", async () => {
    const { page, problems } = await open(url);
    expect(await ready(page)).toBe(true);
    expect(await names(page)).toEqual(expectedNames(seeded));
    expect(await names(page)).not.toContain("Neighbour's field");
    // Fitted: every parcel is on screen, clear of the card, and drawn there (the layer's own hit detection at its
    // interior point), close enough to be shapes (3 km of parcels: a few metres a pixel, not the 17 of zoom 13).
    await settled(page);
    expect((await page.evaluate(() => window.__furrowEmbed!.viewExtent())).metresPerPixel).toBeLessThan(8);
    const card = await boxOf(page, '#card');
    for (const name of seeded.parcels.keys()) {
      const r = await rectOf(page, name);
      expect(within(r, { left: 0, top: 0, right: 1200, bottom: 760 }), name).toBe(true);
      expect(overlaps(r, card), name).toBe(false);
    }
    expect(await page.locator('#areas').count()).toBe(0);
    for (const name of seeded.parcels.keys()) {
      const p = await pixelOf(page, name);
      expect(await page.evaluate(({ x, y }) => window.__furrowEmbed!.drawnAt(x, y), p)).toContain(name);
    }
    await expect.poll(() => page.evaluate(() => window.__furrowEmbed!.layerVisible('basemap'))).toBe(false);
    await expect.poll(() => page.locator('#basemap-note').textContent()).toContain('unavailable');
    expect(await page.locator('#parcel-summary').textContent()).toContain('10 parcels');
    expect(problems).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    await shot(page, 'embed-map');
    await page.context().close();
  });

  it('filters by metadata exactly as the spec writes it; several filters AND; an unknown key shows none', async () => {
    const s12 = expectedNames(seeded, { 'Supplier ID': 'S-12' });
    expect(s12).toEqual(['Mill Lane', 'North Field', 'Olive Grove East', 'River Meadow']);
    const { page, context } = await open(`${url}&metadata[Supplier+ID]=S-12`);
    await ready(page);
    expect(await names(page)).toEqual(s12);
    expect(await page.locator('.chips').textContent()).toContain('Supplier ID');
    await shot(page, 'embed-filtered');

    const both = expectedNames(seeded, { 'Supplier ID': 'S-12', certification: 'organic' });
    expect(both).toEqual(['North Field', 'Olive Grove East']);
    await page.goto(`${url}&metadata[Supplier+ID]=S-12&metadata[certification]=organic`);
    await ready(page);
    expect(await names(page)).toEqual(both);

    for (const q of ['&metadata[no+such+key]=S-12', '&metadata[furrow_ref]=local-7f3a', '&metadata[Supplier+ID]=S-12&metadata[crop_type]=olive&metadata[region]=Nowhere']) {
      await page.goto(`${url}${q}`);
      await ready(page);
      expect(await names(page)).toEqual([]);
      await expect.poll(() => page.locator('#status').textContent()).toContain('No parcels match these filters');
    }
    await shot(page, 'embed-no-match');
    // A misspelt filter, or one without a key, is refused rather than dropped: dropped, it would show every parcel.
    for (const q of ['&metdata[Supplier+ID]=S-12', '&metadata[]=S-12']) {
      const res = await page.goto(`${url}${q}`);
      expect(res!.status(), q).toBe(400);
      expect(await page.locator('h1').textContent()).toBe('Map link not understood');
      expect(await page.evaluate(() => typeof window.__furrowEmbed)).toBe('undefined');
    }
    // The data route directly: the literal form and the encoded one (as the page sends it) mean the same.
    expect(await dataNames('&metadata[Supplier+ID]=S-12')).toEqual(s12);
    expect(await dataNames('&metadata%5BSupplier%20ID%5D=S-12&metadata%5Bcertification%5D=organic')).toEqual(both);
    expect(await dataNames('&metadata[Supplier+ID]=S-99')).toEqual([]);
    await context.close();
  });

  it('shows the name and the toggled fields on hover; the toggles persist across a reload', async () => {
    const { page, context } = await open(url);
    await ready(page);
    const tooltip = page.locator('#tooltip');
    const hover = async (name: string) => {
      await page.mouse.move(5, 700);
      const p = await pixelOf(page, name);
      await page.mouse.move(p.x, p.y);
      await expect.poll(() => tooltip.isVisible()).toBe(true);
      return tooltip.innerText();
    };
    const plain = await hover('North Field');
    expect(plain).toContain('North Field');
    expect(plain).not.toContain('S-12');
    // The field list offers every key of the account's parcels, the sync engine's key excepted.
    const fields = await page.locator('#tooltip-fields label').allInnerTexts();
    expect(fields.map((f) => f.trim())).toEqual(['certification', 'contract_year', 'crop_type', 'region', 'Supplier ID']);
    await page.getByLabel('Supplier ID').check();
    await page.getByLabel('certification').check();
    const rich = await hover('North Field');
    expect(rich).toMatch(/Supplier ID\s+S-12/);
    expect(rich).toMatch(/certification\s+organic/);
    expect(rich).not.toContain('contract_year');
    await shot(page, 'embed-tooltip');

    await page.getByLabel('certification').uncheck();
    await page.reload();
    await ready(page);
    expect(await page.getByLabel('Supplier ID').isChecked()).toBe(true);
    expect(await page.getByLabel('certification').isChecked()).toBe(false);
    const after = await hover('Cork Oak Edge');
    expect(after).toContain('Cork Oak Edge');
    expect(after).toMatch(/Supplier ID\s+—/);
    await context.close();
  });

  it('opens a detail panel with every metadata pair, the hectares and the current crop; Escape closes; keys pan and zoom', async () => {
    const { page, context } = await open(url);
    await ready(page);
    const north = seeded.parcels.get('North Field')!;
    await page.getByLabel('Supplier ID').check();
    const p = await pixelOf(page, 'North Field');
    await page.mouse.click(p.x, p.y);
    const panel = page.locator('#panel');
    await expect.poll(() => panel.isVisible()).toBe(true);
    await settled(page);
    expect(await page.evaluate(() => window.__furrowEmbed!.selected())).toBe('North Field');
    expect(await page.locator('#panel-title').textContent()).toBe('North Field');
    expect(await page.locator('#panel-area').textContent()).toBe(`${ha.format(north.hectares)} ha`);
    const crop = await page.locator('#panel-crop').innerText();
    expect(crop).toContain('Wheat');
    expect(crop).toMatch(/Family\s+Poaceae/);
    expect(crop).toMatch(/Variety\s+Soissons/);
    expect(crop).toMatch(/Sown\s+2025-10-20/);
    expect(crop).not.toMatch(/Barley|Sunflower/);
    const meta = await page.locator('#panel-metadata').innerText();
    for (const [k, v] of Object.entries(north.metadata)) expect(meta).toMatch(new RegExp(`${k}\\s+${v}`));
    await shot(page, 'embed-panel');

    await page.keyboard.press('Escape');
    await expect.poll(() => panel.isVisible()).toBe(false);
    expect(await page.evaluate(() => window.__furrowEmbed!.selected())).toBeNull();

    // Mill Lane: its furrow_ref is not shown; a parcel without a crop says so.
    await page.mouse.click((await pixelOf(page, 'Mill Lane')).x, (await pixelOf(page, 'Mill Lane')).y);
    await expect.poll(() => page.locator('#panel-title').textContent()).toBe('Mill Lane');
    expect(await page.locator('#panel-metadata').innerText()).not.toContain('furrow_ref');
    await settled(page);
    await page.locator('.panel__close').click();
    // Mill Lane was moved clear of the panel, which may have put South Fallow under the card: start from the fitted view.
    await page.reload();
    await ready(page);
    await page.mouse.click((await pixelOf(page, 'South Fallow')).x, (await pixelOf(page, 'South Fallow')).y);
    await expect.poll(() => page.locator('#panel-crop').textContent()).toBe('No current crop');
    await settled(page);
    await page.keyboard.press('Escape');

    await page.focus('#map');
    const before = await page.evaluate(() => window.__furrowEmbed!.view());
    await page.keyboard.press('ArrowRight');
    await expect.poll(async () => (await page.evaluate(() => window.__furrowEmbed!.view())).center[0]).toBeGreaterThan(before.center[0]);
    await page.keyboard.type('+');
    await expect.poll(async () => (await page.evaluate(() => window.__furrowEmbed!.view())).zoom).toBeGreaterThan(before.zoom + 0.9);
    await context.close();
  });

  it('draws the plants on their own layer with a toggle, and only those of the shown parcels under a filter', async () => {
    const { page, context } = await open(url);
    await ready(page);
    expect(await page.evaluate(() => window.__furrowEmbed!.plantCount())).toBe(seeded.plants);
    expect(await page.evaluate(() => window.__furrowEmbed!.layerVisible('plants'))).toBe(true);
    await page.getByLabel('Plants').uncheck();
    expect(await page.evaluate(() => window.__furrowEmbed!.layerVisible('plants'))).toBe(false);
    await page.getByLabel('Plants').check();
    expect(await page.evaluate(() => window.__furrowEmbed!.layerVisible('plants'))).toBe(true);
    // Zoomed to the orchard, the trees' crowns show.
    await page.mouse.click((await pixelOf(page, 'Almond Terrace')).x, (await pixelOf(page, 'Almond Terrace')).y);
    await page.getByText('Zoom to parcel').click();
    // Close enough for the trees to be drawn one by one (under 2 Web Mercator metres a pixel), and clear of the panel.
    // Polled: on a loaded machine the view could still read settled before the zoom's animation had begun.
    await expect.poll(async () => (await page.evaluate(() => window.__furrowEmbed!.viewExtent())).metresPerPixel).toBeLessThan(2 * Math.cos((37.9 * Math.PI) / 180));
    await settled(page);
    expect(overlaps(await rectOf(page, 'Almond Terrace'), await boxOf(page, '#panel'))).toBe(false);
    await page.keyboard.press('Escape');
    await shot(page, 'embed-plants');

    await page.goto(`${url}&metadata[Supplier+ID]=S-12`);
    await ready(page);
    expect(await page.evaluate(() => window.__furrowEmbed!.plantCount())).toBe(0);
    await page.goto(`${url}&metadata[Supplier+ID]=S-7`);
    await ready(page);
    expect(await page.evaluate(() => window.__furrowEmbed!.plantCount())).toBe(seeded.plants);
    await context.close();
  });

  it('refuses unknown, account-id, JWT, rotated, deactivated and purged links with a 4xx that shows nothing of any account', async () => {
    const secretEmail = 'secret-grower@embed.example';
    const acc: Account = await createAccount(svc.url, seeded.apiKey, secretEmail);
    const headers = { 'x-api-key': seeded.apiKey, 'service-account': acc.id, 'content-type': 'application/json' };
    const farm = await fetch(`${svc.url}/api/farms/`, { method: 'POST', headers, body: JSON.stringify({ farm: { name: 'Secret farm' }, parcels: [{ name: 'Secret Field', metadata: { 'Supplier ID': 'S-SECRET' }, geom: { type: 'Feature', properties: { metadata: { hectares: 3 } }, geometry: { type: 'Point', coordinates: [-4.7, 37.9] } } }] }) });
    expect(farm.status).toBe(201);
    const base = `${svc.url}/embed/`;
    const refused = async (query: string, status: number, init: RequestInit = {}) => {
      for (const path of ['', 'data/parcels', 'data/plants']) {
        const res = await fetch(`${base}${path}${query}`, init);
        const text = await res.text();
        expect(res.status, `${path}${query}`).toBe(status);
        for (const secret of [secretEmail, acc.id, 'Secret Field', 'S-SECRET', seeded.account.account_email, 'North Field']) expect(text).not.toContain(secret);
        expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      }
    };
    expect((await fetch(acc.embedded_url)).status).toBe(200);
    await refused('', 400);
    await refused('?auth_id=', 400);
    await refused('', 400, { headers: { authorization: `Bearer ${acc.account_access}`, 'x-api-key': seeded.apiKey, 'service-account': acc.id } });
    await refused('?auth_id=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 404);
    await refused(`?auth_id=${acc.id}`, 404);
    await refused(`?auth_id=${encodeURIComponent(acc.account_access)}`, 404);

    // Rotated: the old link stops working at once, the new one works.
    const rotated = await store.accounts.rotateAuthId(seeded.organizationId, acc.id);
    const fresh = embeddedUrl(new URL(acc.embedded_url).origin + '/embed', rotated.auth_id);
    await refused(`?auth_id=${authId(acc.embedded_url)}`, 404);
    expect((await fetch(fresh)).status).toBe(200);
    const { page, status, context } = await open(acc.embedded_url);
    expect(status).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Map link not valid');
    expect(await page.evaluate(() => typeof window.__furrowEmbed)).toBe('undefined');
    await shot(page, 'embed-revoked');
    await context.close();

    // Deactivated (DELETE /api/accounts/{id}/): refused; reactivated: back, data intact.
    expect((await fetch(`${svc.url}/api/accounts/${acc.id}/`, { method: 'DELETE', headers: { 'x-api-key': seeded.apiKey } })).status).toBe(204);
    await refused(`?auth_id=${rotated.auth_id}`, 404);
    await store.accounts.reactivate(seeded.organizationId, acc.id);
    expect((await fetch(`${svc.url}/embed/data/parcels?auth_id=${rotated.auth_id}`)).status).toBe(200);

    // Purged: gone for good.
    expect((await fetch(`${svc.url}/api/accounts/${acc.id}/`, { method: 'DELETE', headers: { 'x-api-key': seeded.apiKey } })).status).toBe(204);
    await store.accounts.purge(seeded.organizationId, acc.id);
    await refused(`?auth_id=${rotated.auth_id}`, 404);
  });

  it('shows in an iframe of an origin EMBED_FRAME_ANCESTORS allows, and nowhere else', async () => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 720 } });
    const host = async (origin: string) => {
      const page = await context.newPage();
      const messages: string[] = [];
      page.on('console', (m) => messages.push(m.text()));
      await page.route(/tile\.openstreetmap\.org/, (r) => r.abort('internetdisconnected'));
      await page.goto(`${origin}/fields`);
      const frame = (await (await page.$('#map'))!.contentFrame())!;
      return { page, frame, messages };
    };
    const allowed = await host(PARTNER);
    await allowed.frame.waitForFunction(() => window.__furrowEmbed !== undefined);
    await allowed.frame.evaluate(() => window.__furrowEmbed!.ready);
    expect(await allowed.frame.evaluate(() => window.__furrowEmbed!.parcelNames())).toEqual(expectedNames(seeded));
    await allowed.page.screenshot({ path: join(SHOTS, 'embed-iframe.png') });

    const blocked = await host(ELSEWHERE);
    await expect.poll(() => blocked.frame.url()).toMatch(/^chrome-error:/);
    await expect.poll(() => blocked.messages.join('\n')).toMatch(/frame-ancestors/);
    expect(await blocked.frame.evaluate(() => typeof window.__furrowEmbed).catch(() => 'blocked')).not.toBe('object');
    await context.close();
  });
});
