// The app stopped and started again, as a user does between two days in the field: it comes back on the same port,
// and a browser tab left open on it gets back in by itself — no new address pasted, no token in it — while a tab that
// never had the printed address is still refused (the launch-secret rule: only the printed address lets a tab in),
// and another program holding the port meanwhile gets neither the tab's pass nor the tab.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { freePort } from '../helpers/process.ts';
import { ensureRenderer } from '../../app/renderer-build.ts';
import { openApp, shownOn, startApp, type RunningApp } from './app-harness.ts';
import { CHROMIUM_ARGS, SHOTS } from './embed-harness.ts';

let dir: string;
let browser: Browser;
let app: RunningApp | null = null;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  await ensureRenderer();
  dir = mkdtempSync(join(tmpdir(), 'furrow-restart-'));
  // No FURROW_APP_PORT: the launcher chooses, as for a user.
  env = { DATA_DIR: join(dir, 'data'), FURROW_HOME: join(dir, 'home'), PORT: String(await freePort()), HOST: '127.0.0.1', FURROW_APP_PORT: '' };
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const portOf = (url: string) => new URL(url).port;

describe('the app restarted', () => {
  it('comes back on the same port, and a tab left open reconnects by itself', async () => {
    app = await startApp(env);
    const first = app.url;
    const { page, problems } = await openApp(browser, first);
    await expect.poll(() => shownOn(page), { timeout: 30_000 }).toBeGreaterThan(0);
    const before = await shownOn(page);
    // The start's sync said what it did: a message the stop must not leave squeezed beside its own.
    await expect.poll(() => page.getByRole('status', { name: 'Message' }).textContent(), { timeout: 30_000 }).toMatch(/^Synced: /);
    // The token left the address bar at once: what stays there is the bare address.
    expect(page.url()).toBe(`http://127.0.0.1:${portOf(first)}/`);

    await app.stop();
    app = null;
    await expect.poll(() => page.getByRole('status', { name: 'Connection' }).textContent(), { timeout: 15_000 }).toBe('Disconnected');
    await expect.poll(() => page.getByRole('alert').filter({ hasText: 'The app stopped' }).textContent()).toContain('this page reconnects by itself');
    // Its sentence alone, whole: the last sync's message, which no longer holds, is not squeezed in beside it.
    expect(await page.getByRole('status', { name: 'Message' }).count()).toBe(0);
    expect(await page.getByRole('alert').filter({ hasText: 'The app stopped' }).evaluate((e) => e.scrollWidth <= e.clientWidth + 1)).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'app-restart-waiting.png') });

    // While the app is stopped, another program takes its port (any local user may): the tab asks it to prove it is
    // the app, it cannot, so the tab neither reloads into its page nor offers it the pass.
    const seen: string[] = [];
    const impostor = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': req.url?.startsWith('/furrow-proof') ? 'application/json' : 'text/html' });
      res.end(req.url?.startsWith('/furrow-proof') ? JSON.stringify({ proof: '0'.repeat(64) }) : '<p>impostor</p>');
    });
    impostor.on('upgrade', (req, socket) => { seen.push(`UPGRADE ${String(req.headers['sec-websocket-protocol'])}`); socket.destroy(); });
    await new Promise<void>((r) => impostor.listen(Number(portOf(first)), '127.0.0.1', r));
    await expect.poll(() => seen.filter((s) => s.startsWith('GET /furrow-proof?claim=')).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    expect(seen.filter((s) => !s.startsWith('GET /furrow-proof?claim='))).toEqual([]);
    expect(await page.locator('.statusbar').count()).toBe(1);
    await new Promise<void>((r) => impostor.close(() => r()));
    impostor.closeAllConnections();

    app = await startApp(env);
    expect(portOf(app.url)).toBe(portOf(first));
    expect(app.url).not.toBe(first); // a new launch token all the same
    // The same tab, never navigated by the test: it reloads itself and is let in with its pass.
    await expect.poll(() => page.getByRole('status', { name: 'Connection' }).textContent(), { timeout: 30_000 }).not.toBe('Disconnected');
    await expect.poll(() => shownOn(page), { timeout: 30_000 }).toBe(before);
    expect(page.url()).toBe(`http://127.0.0.1:${portOf(first)}/`);
    expect(await problems()).toEqual([]);

    // A new tab at the bare (bookmarked) address has neither token nor pass: it is told to open the printed address.
    const other = await (await browser.newContext()).newPage();
    await other.goto(`http://127.0.0.1:${portOf(first)}/`);
    await expect.poll(() => other.getByRole('alert').textContent()).toContain('needs the address the app printed');
    // Nor does the old printed address, with the first launch's token, get in.
    const stale = await (await browser.newContext()).newPage();
    await stale.goto(first);
    await expect.poll(() => stale.getByRole('alert').textContent()).toContain('open the address it printed at its latest start');
  }, 240_000);
});
