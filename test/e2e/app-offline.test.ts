// The app offline, end to end: the service stopped, the app says Offline (once) and goes on editing; the app
// restarted (its backend with it) still holds the edit; the service back, the app's own retries (backing off, not
// repeating the alert) send it without a click, and the service holds it.
// The app is started against a service this test owns (FURROW_SERVICE, FURROW_ACCOUNT, FURROW_API_KEY), so the test
// can stop and restart the service as an outage would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnService, type ServiceProcess } from '../helpers/process.ts';
import { ensureRenderer } from '../../app/renderer-build.ts';
import { CHROMIUM_ARGS } from './embed-harness.ts';
import { HOST_ENV } from '../helpers/host.ts';
import { drawSquare, mapCentre, openApp, shownOn, startApp, waitOnline, type RunningApp } from './app-harness.ts';

let dir: string;
let svc: ServiceProcess;
let app: RunningApp | null = null;
let browser: Browser;
let env: NodeJS.ProcessEnv;
let account: string;
let key: string;

beforeAll(async () => {
  await ensureRenderer();
  dir = mkdtempSync(join(tmpdir(), 'furrow-offline-'));
  svc = await spawnService(join(dir, 'data'), {}, ['demo', '--serve']);
  account = /account\s+(acc-[\w-]+)/.exec(svc.stderr())![1]!;
  key = (JSON.parse(readFileSync(join(dir, 'data', 'demo-credentials.json'), 'utf8')) as { api_key: string }).api_key;
  // Short settle and retry waits (test/helpers/host.ts HOST_ENV): an outage is seen in seconds, not a production backoff.
  env = { ...HOST_ENV, FURROW_SERVICE: svc.url, FURROW_ACCOUNT: account, FURROW_API_KEY: key, FURROW_HOME: join(dir, 'home'), FURROW_APP_PORT: String(await freePort()) };
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}, 150_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await svc?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the app without its service', () => {
  it('edits offline, keeps the edit across a restart of the app, and syncs it once the service is back', async () => {
    app = await startApp(env);
    // The organization's key came from the environment and stays there: the launcher never prints it.
    expect(app.out()).not.toContain(key);
    let { page, problems } = await openApp(browser, app.url);
    await expect.poll(() => shownOn(page), { timeout: 20_000 }).toBeGreaterThanOrEqual(12);
    await waitOnline(page);

    await svc.stop();
    const headerHeight = async () => (await page.locator('header.top').boundingBox())!.height;
    const before = await headerHeight();
    await page.getByRole('button', { name: 'Sync now' }).click();
    // Offline, a sync retries for seconds: its progress bar is in the status line, and the header (so the map under
    // the pointer) does not move meanwhile.
    await page.getByRole('progressbar', { name: 'Sync progress' }).waitFor();
    expect(await page.locator('footer.statusbar').getByRole('progressbar', { name: 'Sync progress' }).count()).toBe(1);
    expect(await headerHeight()).toBe(before);
    await waitOnline(page, 'Offline');
    expect(await page.getByRole('status', { name: 'Message' }).textContent()).toMatch(/^Offline: (your (change is|[\d,]+ changes are) kept here|nothing is waiting).* It could not be reached \(/);

    await page.getByRole('button', { name: /Hof Sonnenfeld/ }).click();
    await page.waitForTimeout(1000); // the fit's animation (300 ms) has ended and its view was read
    const inView = await shownOn(page);
    const { cx, cy } = await mapCentre(page);
    const drawn = await drawSquare(page, cx, cy, 50, 'Drawn offline');
    expect(await page.locator('[data-field=state]').textContent()).toBe('Pending');
    await expect.poll(() => shownOn(page)).toBe(inView + 1);
    expect(await problems()).toEqual([]);
    await page.context().close();

    // Ctrl+C and `npm start` again, the service still down: the edit is in the mirror, still pending.
    await app.stop();
    app = await startApp(env);
    expect(app.out()).toMatch(/The pull did not finish/);
    ({ page, problems } = await openApp(browser, app.url));
    await expect.poll(() => page.locator('.farms').textContent(), { timeout: 20_000 }).toContain('Hof Sonnenfeld');
    await page.getByRole('button', { name: /Hof Sonnenfeld/ }).click();
    await expect.poll(() => shownOn(page)).toBe(inView + 1);
    await waitOnline(page, 'Offline');
    await page.waitForTimeout(1000);
    await page.mouse.click(cx, cy);
    await expect.poll(() => page.locator('[data-field=name]').textContent()).toBe('Drawn offline');
    expect(await page.locator('[data-field=state]').textContent()).toBe('Pending');
    // A push that could not connect is a wait, not an error: no red "Reason: POST /api/parcels/: could not connect".
    expect(await page.locator('[data-field=reason].error').count()).toBe(0);
    expect(await page.locator('[data-field=reason]').textContent()).toBe('Waiting for the service');
    expect(await page.locator('[data-field=reason]').getAttribute('title')).toMatch(/could not/);

    // While the service stays away the app keeps trying by itself (5 s, then 10 s, … with jitter: each try shows its
    // progress bar), without saying Offline again at a try: the message line is left as it was.
    await page.evaluate(() => {
      const w = window as unknown as { tries: number; messages: string[] };
      w.tries = 0;
      w.messages = [];
      const bar = () => document.querySelector('footer.statusbar progress');
      const said = () => document.querySelector('[role=status][aria-label=Message]')?.textContent ?? '';
      let showing = bar() !== null;
      let last = said();
      new MutationObserver(() => {
        const now = bar() !== null;
        if (now && !showing) w.tries++;
        showing = now;
        const text = said();
        if (text !== last) w.messages.push(last = text);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    const message = await page.getByRole('status', { name: 'Message' }).textContent();
    await expect.poll(() => page.evaluate(() => (window as unknown as { tries: number }).tries), { timeout: 40_000 }).toBeGreaterThanOrEqual(1);
    expect(await page.evaluate(() => (window as unknown as { messages: string[] }).messages)).toEqual([]);
    expect(await page.getByRole('status', { name: 'Message' }).textContent()).toBe(message);
    await waitOnline(page, 'Offline');

    // The service back on its address: without a click the app syncs at its next try, says it is back, and the
    // service holds the edit.
    svc = await spawnService(join(dir, 'data'), { PORT: String(svc.port) }, ['demo', '--serve']);
    await expect.poll(() => page.getByRole('status', { name: 'Connection' }).textContent(), { timeout: 60_000 }).toBe('Online');
    expect(await page.getByRole('status', { name: 'Message' }).textContent()).toMatch(/^Back online\. Synced: 1 sent/);
    await expect.poll(() => page.locator('[data-field=state]').textContent()).toBe('Synced');

    const farms = await (await fetch(`${svc.url}/api/farms/`, { headers: { 'x-api-key': key, 'service-account': account } })).json() as { id: number; name: string }[];
    const farm = farms.find((f) => f.name === 'Hof Sonnenfeld')!;
    const r = await fetch(`${svc.url}/api/farms/${farm.id}/parcels/`, { headers: { 'x-api-key': key, 'service-account': account } });
    const held = (await r.json() as { features: { properties: { name: string; hectares: number } }[] }).features.filter((f) => f.properties.name === 'Drawn offline');
    expect(held).toHaveLength(1);
    expect(`${held[0]!.properties.hectares.toFixed(2)} ha`).toBe(drawn);
    expect(await problems()).toEqual([]);
  }, 240_000);
});
