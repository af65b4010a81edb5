// Exporting from the app as a download, end to end (`npm start`'s launcher with the embedded demo service, the real
// mirror host, Debian's Chromium): the chosen farm's Export buttons make the host write the file (exportDownload) and
// the page download it from the host's bytes path (/bytes/<session key>/…, served by browser mode's loopback server
// with ranges and the page policy); the file Chromium saves is the one `npm run -s cli -- export --farm` writes, in
// both formats, and once the page is gone its address leads nowhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/process.ts';
import { SHOTS } from './embed-harness.ts';
import { openApp, shownOn, startDemoApp, waitOnline, type DemoApp } from './app-harness.ts';

let ctx: DemoApp;
let page: Page;
let problems: () => Promise<string[]>;
const FARM = 'Finca El Olivar';

beforeAll(async () => {
  ctx = await startDemoApp('furrow-app-export-');
  ({ page, problems } = await openApp(ctx.browser, ctx.app.url));
}, 180_000);

afterAll(async () => {
  await ctx?.stop();
});

/** `npm run -s cli -- export FILE --farm FARM` on the app's own mirror (the built CLI, as users run it). */
function cliExport(file: string): void {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/cli.mjs'), 'export', file, '--farm', FARM], {
    cwd: ROOT, encoding: 'utf8', env: { ...process.env, FURROW_HOME: join(ctx.dir, 'home') }, timeout: 120_000,
  });
  expect(r.status, r.stdout + r.stderr).toBe(0);
}

describe('exporting a farm in the app', () => {
  it("downloads the farm's GeoJSON and CSV from the host's bytes path, equal to the CLI's export", async () => {
    await expect.poll(() => shownOn(page), { timeout: 30_000 }).toBeGreaterThanOrEqual(12);
    await waitOnline(page);
    await page.locator('.farms button.farm', { hasText: FARM }).click();
    const group = page.getByRole('group', { name: `Export the farm ${FARM}` });

    const files: Record<string, { path: string; url: string }> = {};
    for (const [button, ext] of [['GeoJSON', 'geojson'], ['CSV', 'csv']] as const) {
      const downloaded = page.waitForEvent('download');
      await group.getByRole('button', { name: button }).click();
      const d = await downloaded;
      expect(d.suggestedFilename()).toBe(`${FARM}.${ext}`);
      expect(d.url()).toMatch(new RegExp(`^${new URL(ctx.app.url).origin}/bytes/[\\w-]{43}/[0-9a-f]{32}/Finca%20El%20Olivar\\.${ext}$`));
      files[ext] = { path: (await d.path())!, url: d.url() };
      await expect.poll(() => page.locator('.statusbar .message').textContent()).toMatch(new RegExp(`^Exported \\d+ parcels to ${FARM}\\.${ext}\\.$`));
    }
    await page.screenshot({ path: join(SHOTS, 'app-export.png') });

    for (const ext of ['geojson', 'csv']) {
      const reference = join(ctx.dir, `cli.${ext}`);
      cliExport(reference);
      const [got, want] = [readFileSync(files[ext]!.path), readFileSync(reference)];
      expect(got.length, ext).toBeGreaterThan(0);
      expect(got.equals(want), `${ext}: the download differs from the CLI's export`).toBe(true);
    }
    const geo = JSON.parse(readFileSync(files.geojson!.path, 'utf8')) as { features: { properties: { farm: string } }[] };
    expect(geo.features.length).toBeGreaterThan(0);
    expect(new Set(geo.features.map((f) => f.properties.farm))).toEqual(new Set([FARM]));

    // The address works for this page's session, by range too; nothing broke the page's policy.
    const part = await fetch(files.csv!.url, { headers: { range: 'bytes=0-4' } });
    expect([part.status, await part.text()]).toEqual([206, 'local']);
    expect(await problems()).toEqual([]);
    // The page gone, its session ends: the address leads nowhere.
    await page.close();
    await expect.poll(async () => (await fetch(files.geojson!.url)).status, { timeout: 10_000 }).toBe(404);
  }, 180_000);
});
