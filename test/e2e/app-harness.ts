// Starts the app as `npm start` does (app/start.ts in a child process) and drives it in Debian's Chromium: what
// test/e2e/app*.test.ts share.
import { expect } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { freePorts, ROOT } from '../helpers/process.ts';
import { ensureRenderer } from '../../app/renderer-build.ts';
import { CHROMIUM_ARGS, SHOTS } from './embed-harness.ts';

export interface RunningApp {
  /** The address the app printed, with its token. */
  url: string;
  out(): string;
  err(): string;
  /** Ctrl+C, as a user stops it: the host closes the mirror, an embedded service stops. */
  stop(): Promise<void>;
}

export async function startApp(env: NodeJS.ProcessEnv): Promise<RunningApp> {
  const app = spawn(process.execPath, ['--import', 'tsx', 'app/start.ts'], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FURROW_NO_BROWSER: '1', LOG_LEVEL: 'warn', ...env },
  });
  const exited = new Promise<void>((r) => app.once('exit', () => r()));
  let out = '';
  let err = '';
  app.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  app.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
  const deadline = Date.now() + 90_000;
  for (;;) {
    const m = /Open Furrow at (\S+)/.exec(out);
    if (m) {
      return {
        url: m[1]!, out: () => out, err: () => err,
        async stop() {
          if (app.exitCode === null && app.signalCode === null) app.kill('SIGINT');
          await exited;
        },
      };
    }
    if (app.exitCode !== null || Date.now() > deadline) {
      app.kill('SIGKILL');
      throw new Error(`the app did not start:\n${out}\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The app on its embedded default, as a test file starts it once: its folders, service address and browser. */
export interface DemoApp {
  /** The temporary folder: the service's DATA_DIR is `data/`, the mirror's FURROW_HOME `home/`. */
  dir: string;
  app: RunningApp;
  /** The demo service's address (its HTTP API, as curl would reach it). */
  service: string;
  browser: Browser;
  stop(): Promise<void>;
}

/**
 * `npm start` in a temporary folder on free ports, and a Chromium; `env` adds to the launcher's environment.
 * The renderer is built first (a clean checkout has none), so the launcher's own wait is only the app's.
 */
export async function startDemoApp(prefix: string, env: NodeJS.ProcessEnv = {}): Promise<DemoApp> {
  await ensureRenderer();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const [servicePort, appPort] = (await freePorts(2)) as [number, number];
  const app = await startApp({
    DATA_DIR: join(dir, 'data'), FURROW_HOME: join(dir, 'home'), PORT: String(servicePort), HOST: '127.0.0.1', FURROW_APP_PORT: String(appPort), ...env,
  });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  mkdirSync(SHOTS, { recursive: true });
  const demo: DemoApp = {
    dir, app, service: `http://127.0.0.1:${servicePort}`, browser,
    async stop() {
      await browser.close();
      // The app running now: a test that restarts the app puts the new one in `app` (the first one, stopped by the
      // test, was what this stopped before, and the restarted launcher, host and service outlived the test run).
      await demo.app.stop();
      const left = await leftBehind(dir);
      rmSync(dir, { recursive: true, force: true });
      if (left.length) throw new Error(`processes of the app outlived its stop (killed now): ${left.join(', ')}`);
    },
  };
  return demo;
}

/** Processes whose environment names `dir` (the launcher, and its host and service, which inherit its variables). */
export function processesOf(dir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(`FURROW_HOME=${join(dir, 'home')}\0`)) pids.push(Number(name));
    } catch { /* gone, or not ours */ }
  }
  return pids.filter((pid) => pid !== process.pid);
}

/**
 * The processes of the app in `dir` still there once they had 5 s to end after the launcher (it sends its service
 * SIGTERM and exits without waiting): killed, and their ids answered for the caller to fail on.
 */
async function leftBehind(dir: string): Promise<number[]> {
  const end = Date.now() + 5000;
  let left = processesOf(dir);
  while (left.length && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    left = processesOf(dir);
  }
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch { /* gone meanwhile */ }
  }
  return left;
}

/** A page of the app with its problems collected: page errors and CSP violations. */
export async function openApp(browser: Browser, url: string, before?: (page: Page) => Promise<void>): Promise<{ page: Page; problems(): Promise<string[]> }> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  // Whatever must be in place before the page first runs (a route over its connection to the host).
  await before?.(page);
  const errors: string[] = [];
  // STACKS=1 adds each error's stack (where in the bundle it was thrown), for a failure to be found.
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}${process.env.STACKS ? e.stack : ''}`));
  await page.addInitScript(() => {
    const w = window as unknown as { __csp: string[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto(url);
  return { page, problems: async () => [...errors, ...await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? [])] };
}

/** How many parcels the map says it shows. */
export const shownOn = async (page: Page): Promise<number> =>
  Number(/^(\d+) parcels? shown/.exec((await page.locator('.legend .shown').textContent()) ?? '')?.[1] ?? -1);

export const waitOnline = (page: Page, state = 'Online') =>
  expect.poll(() => page.getByRole('status', { name: 'Connection' }).textContent(), { timeout: 30_000 }).toBe(state);

/** The map's middle, in page pixels. */
export async function mapCentre(page: Page): Promise<{ cx: number; cy: number }> {
  const box = (await page.locator('.map .ol-viewport').boundingBox())!;
  return { cx: box.x + box.width / 2, cy: box.y + box.height / 2 };
}

/** Draws a square of 2·half pixels around (cx, cy) with Draw polygon and saves it under `name`; its hectares as shown. */
export async function drawSquare(page: Page, cx: number, cy: number, half: number, name: string): Promise<string> {
  await page.getByRole('button', { name: 'Draw polygon' }).click();
  for (const [dx, dy] of [[-half, -half], [half, -half], [half, half], [-half, half]] as const) await page.mouse.click(cx + dx, cy + dy);
  await page.keyboard.press('Enter');
  const drawn = (await page.locator('[data-field=draft-hectares]').textContent()) ?? '';
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Save parcel' }).click();
  await expect.poll(() => page.locator('[data-field=name]').textContent()).toBe(name);
  return drawn;
}

/** A parcel as the service's HTTP API lists it, with what the app tests read of it. */
export interface ServiceParcel { id: number; geometry: { type: string; coordinates: number[][][] }; properties: { name: string; hectares: number; metadata: Record<string, unknown> } }

/**
 * The demo service's HTTP API as curl reaches it: the demo's API key (data/demo-credentials.json) and the account
 * `npm start` printed, so a test sees exactly what the service holds.
 */
export function demoApi(demo: Pick<DemoApp, 'dir' | 'app' | 'service'>) {
  const key = () => (JSON.parse(readFileSync(join(demo.dir, 'data', 'demo-credentials.json'), 'utf8')) as { api_key: string }).api_key;
  const account = () => /account\s+(acc-[\w-]+)/.exec(demo.app.err())![1]!;
  const send = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> => {
    const r = await fetch(`${demo.service}${path}`, {
      method, headers: { 'x-api-key': key(), 'service-account': account(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: r.status, body: await r.json().catch(() => null) as unknown };
  };
  const get = async <T>(path: string): Promise<T> => {
    const r = await send('GET', path);
    expect(r.status, path).toBe(200);
    return r.body as T;
  };
  return {
    account, send, get,
    /** Every parcel of every farm of the account. */
    parcels: async (): Promise<ServiceParcel[]> => {
      const all: ServiceParcel[] = [];
      for (const f of await get<{ id: number }[]>('/api/farms/')) all.push(...(await get<{ features: ServiceParcel[] }>(`/api/farms/${f.id}/parcels/`)).features);
      return all;
    },
    /** The parcel of that name, if the service has one. */
    parcel: async (name: string): Promise<ServiceParcel | undefined> =>
      (await get<{ features: ServiceParcel[] }>(`/api/parcels/?search=${encodeURIComponent(name)}`)).features.find((f) => f.properties.name === name),
  };
}

/** [lon, lat] under a page point, as the map's cursor read-out (its MousePosition control) says it. */
export async function lonLatAt(page: Page, x: number, y: number): Promise<[number, number]> {
  await page.mouse.move(x, y);
  const [lon, lat] = ((await page.locator('.cursor-position').textContent()) ?? '').split(',').map(Number);
  return [lon!, lat!];
}

/** Selects a parcel by name with the search box (Ctrl+F), as a user finds one, and waits for its panel. */
export async function selectBySearch(page: Page, name: string): Promise<void> {
  await page.locator('.top h1').click();
  await page.keyboard.press('Control+f');
  await page.keyboard.type(name);
  await expect.poll(() => page.getByRole('listbox', { name: 'Search results' }).getByRole('option').first().textContent(), { timeout: 30_000 }).toMatch(new RegExp(`^${name}`));
  await page.keyboard.press('Enter');
  await expect.poll(() => page.locator('[data-field=name]').textContent(), { timeout: 30_000 }).toBe(name);
}

export { decodePng } from '../helpers/png.ts';
