// The embedded map's end-to-end harness: the real service in a child process with a seeded account, Debian's
// /usr/bin/chromium through playwright-core, and helpers that read the map's own state through window.__furrowEmbed.
// useEmbedService() starts them for a test file; the lets below are live bindings its tests read.
import { afterAll, beforeAll, expect } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROOT, freePort, spawnService, type ServiceProcess } from '../helpers/process.ts';
import type { Store } from '../../service/store/store.ts';
import { openDataDirStore } from '../helpers/store.ts';
import { seedEmbedAccount, type Seeded } from './embed-fixture.ts';
import type {} from '../../service/web/embed/client/types.ts';

export const SHOTS = resolve(ROOT, 'test/e2e/screenshots');
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-gpu'];
export const ha = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export let dir: string;
export let svc: ServiceProcess;
/** The service's own store, opened beside it by the test: the operator's steps. */
export let store: Store;
export let browser: Browser;
export let seeded: Seeded;
export let url: string;
/** An integrator's page framing the map. Served on loopback: Chromium refuses to frame a local address from a public origin. */
export let partner: Server;
export let PARTNER: string;
/** The same page from an origin not in EMBED_FRAME_ANCESTORS (another host name, so another origin). */
export let ELSEWHERE: string;

export function useEmbedService(): void {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'furrow-embed-'));
    const port = await freePort();
    PARTNER = `http://localhost:${port}`;
    ELSEWHERE = `http://127.0.0.1:${port}`;
    partner = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>Grower portal</title><body style="font-family:sans-serif;margin:24px;background:#f6f7f9"><h2>Grower portal: your fields</h2><iframe id="map" src="${url}" width="1040" height="560" style="border:1px solid #ccd;border-radius:8px"></iframe></body>`);
    });
    await new Promise<void>((r) => partner.listen(port, '127.0.0.1', r));
    // EMBED_FRAME_ANCESTORS through the environment, as an operator sets it.
    svc = await spawnService(dir, { EMBED_FRAME_ANCESTORS: `'self' ${PARTNER}`, GATEWAY_TIMEOUT_MS: '0' });
    store = await openDataDirStore(dir);
    seeded = await seedEmbedAccount(svc.url, store);
    url = seeded.account.embedded_url;
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
    mkdirSync(SHOTS, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => partner?.close(r));
    await svc?.stop();
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
}

export interface Opened { page: Page; context: BrowserContext; status: number | undefined; problems: string[] }

/** A fresh browser profile, offline for the basemap (OSM requests fail like on a machine without internet). */
export async function open(target: string, context?: BrowserContext): Promise<Opened> {
  const ctx = context ?? await browser.newContext({ viewport: { width: 1200, height: 760 } });
  const page = await ctx.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('dialog', (d) => { problems.push(`dialog: ${d.message()}`); void d.dismiss(); });
  await page.route(/tile\.openstreetmap\.org/, (r) => r.abort('internetdisconnected'));
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const res = await page.goto(target);
  return { page, context: ctx, status: res?.status(), problems };
}

export const ready = (page: Page) => page.evaluate(() => window.__furrowEmbed!.ready.then(() => true));
export const names = (page: Page) => page.evaluate(() => window.__furrowEmbed!.parcelNames());
export const pixelOf = async (page: Page, name: string) => {
  const p = await page.evaluate((n) => window.__furrowEmbed!.hoverPixelOf(n), name);
  if (!p) throw new Error(`${name} is not on screen`);
  return p;
};
/** Waits until the view has stopped moving and is drawn (animations after a click or a fit). */
export const settled = (page: Page) => expect.poll(() => page.evaluate(() => window.__furrowEmbed!.settled())).toBe(true);
export type Rect = { left: number; top: number; right: number; bottom: number };
export const rectOf = async (page: Page, name: string): Promise<Rect> => (await page.evaluate((n) => window.__furrowEmbed!.rectOf(n), name))!;
export const boxOf = async (page: Page, selector: string): Promise<Rect> => {
  const b = (await page.locator(selector).boundingBox())!;
  return { left: b.x, top: b.y, right: b.x + b.width, bottom: b.y + b.height };
};
export const overlaps = (a: Rect, b: Rect) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
export const within = (a: Rect, b: Rect) => a.left >= b.left && a.right <= b.right && a.top >= b.top && a.bottom <= b.bottom;
/** Legend category → swatch colour, as the card shows it. */
export const legend = (page: Page) => page.evaluate(() => Object.fromEntries([...document.querySelectorAll('.legend li')].map((li) => [
  li.querySelector('.legend__name')!.textContent!, (li.querySelector('.swatch') as HTMLElement).style.getPropertyValue('--swatch'),
])));
export const cspViolations = (page: Page) => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);
export const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });
export const authId = (u: string) => new URL(u).searchParams.get('auth_id')!;

export async function dataNames(query: string): Promise<string[]> {
  const res = await fetch(`${svc.url}/embed/data/parcels?auth_id=${authId(url)}${query}`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { features: { properties: { name: string } }[] };
  return body.features.map((f) => f.properties.name).sort();
}

