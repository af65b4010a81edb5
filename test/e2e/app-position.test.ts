// Where the user stands, in Chromium against the real app (issue 31): the simulated receiver (test/helpers/
// nmea-sim.ts) on 127.0.0.1 over TCP, connected from the position panel; the marker moving and its readout; follow
// mode released by a pan; a square field walked with the simulator, the app stopped and started again in the middle
// of the walk, finished and saved as a parcel whose hectares match GeographicLib's for the walked positions and whose
// metadata carries each vertex's fix quality (the furrow:survey record).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { freePorts, ROOT } from '../helpers/process.ts';
import { ensureRenderer } from '../../app/renderer-build.ts';
import { NmeaPlayer } from '../helpers/nmea-sim.ts';
import { serveNmeaTcp, type SimServer } from '../helpers/nmea-sim-servers.ts';
import { FIELD, fieldWalk, walkRing } from '../helpers/gnss-walk.ts';
import { ringAreaM2 } from '../../core/geo/area.ts';
import { decodeSurvey } from '../../core/gnss/survey.ts';
import { demoApi, mapCentre, openApp, shownOn, startApp, type RunningApp } from './app-harness.ts';
import { CHROMIUM_ARGS } from './embed-harness.ts';

const IMG = resolve(ROOT, 'docs/img');
let dir: string;
let browser: Browser;
let app: RunningApp | null = null;
let env: NodeJS.ProcessEnv;
const sims: { player: NmeaPlayer; server: SimServer }[] = [];

beforeAll(async () => {
  await ensureRenderer();
  dir = mkdtempSync(join(tmpdir(), 'furrow-position-'));
  const [servicePort, appPort] = (await freePorts(2)) as [number, number];
  env = { DATA_DIR: join(dir, 'data'), FURROW_HOME: join(dir, 'home'), PORT: String(servicePort), HOST: '127.0.0.1', FURROW_APP_PORT: String(appPort) };
  app = await startApp(env);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  for (const s of sims) { s.player.stop(); await s.server.close(); }
  rmSync(dir, { recursive: true, force: true });
});

/** The simulated receiver on a TCP port; `start`: playing at once, else once player.start() is called. */
async function simulator(opts: ConstructorParameters<typeof NmeaPlayer>[0], start = true): Promise<{ player: NmeaPlayer; server: SimServer }> {
  const player = new NmeaPlayer(opts);
  if (start) player.start();
  const server = await serveNmeaTcp(player);
  sims.push({ player, server });
  return { player, server };
}

/** The positions of the walk the host kept (FURROW_HOME/track.jsonl), as a closed ring. */
function keptWalk(): [number, number][] {
  const ring = readFileSync(join(env.FURROW_HOME!, 'track.jsonl'), 'utf8').split('\n').filter(Boolean)
    .map((l) => JSON.parse(l) as { t: string; p?: { lon: number; lat: number } }).filter((r) => r.t === 'point').map((r): [number, number] => [r.p!.lon, r.p!.lat]);
  return [...ring, ring[0]!];
}

/**
 * Connects the app to the simulator at `port` from the position panel, as a user does; `connected`: waits until it
 * is (the first position: backend/position/connection.ts), else only asks.
 */
async function connectTcp(page: Page, port: number, connected = true): Promise<void> {
  const panel = page.getByRole('dialog', { name: 'Position' });
  if (!await panel.isVisible()) await page.getByRole('button', { name: /^Position/ }).click();
  await panel.getByLabel('Source').selectOption('tcp');
  await panel.getByRole('textbox', { name: 'Host', exact: true }).fill('127.0.0.1');
  await panel.getByRole('textbox', { name: 'Port', exact: true }).fill(String(port));
  await panel.getByRole('button', { name: 'Connect', exact: true }).click();
  if (connected) await expect.poll(() => panel.getByRole('status', { name: 'Connection' }).textContent(), { timeout: 15_000 }).toBe(`Connected to TCP 127.0.0.1:${port}.`);
}

const drawnTime = (page: Page) => page.locator('.map').getAttribute('data-position-time');

describe('position on the map', () => {
  it('connects to a receiver over TCP, moves the marker, and follows it until the user pans', async () => {
    const { server: sim } = await simulator({ hz: 5, loop: true });
    const { page, problems } = await openApp(browser, app!.url);
    await expect.poll(() => shownOn(page), { timeout: 30_000 }).toBeGreaterThan(0);
    // L opens the panel, from the keyboard.
    await page.locator('.top h1').click();
    await page.keyboard.press('l');
    await expect.poll(() => page.getByRole('dialog', { name: 'Position' }).isVisible()).toBe(true);
    await connectTcp(page, sim.port);
    await expect.poll(() => page.getByLabel('Position fix').textContent(), { timeout: 10_000 }).toMatch(/^RTK fixed · 14 sats · HDOP 0\.6\d? · ±0\.0[12] m · \d s ago$/);
    // The marker drawn moves: the fix drawn changes, fix after fix.
    const first = await expect.poll(() => drawnTime(page), { timeout: 10_000 }).not.toBeNull().then(() => drawnTime(page));
    await expect.poll(() => drawnTime(page), { timeout: 5_000 }).not.toBe(first);
    expect(await page.locator('.map').getAttribute('data-position-kind')).toBe('live');
    // Following: the map's middle is on the field.
    await page.keyboard.press('Escape');
    const follow = page.locator('.position-readout').getByRole('button', { name: 'Follow' });
    expect(await follow.getAttribute('aria-pressed')).toBe('true');
    const { cx, cy } = await mapCentre(page);
    await page.mouse.move(cx, cy);
    await expect.poll(async () => {
      const [lon, lat] = ((await page.locator('.cursor-position').textContent()) ?? '').split(',').map(Number);
      return Math.hypot(lon! - FIELD.lon, lat! - FIELD.lat);
    }, { timeout: 10_000 }).toBeLessThan(0.003);
    for (let i = 0; i < 5; i++) { await page.getByRole('button', { name: 'Zoom in' }).click(); await page.waitForTimeout(300); }
    await page.waitForTimeout(1500);
    await page.screenshot({ path: join(IMG, 'position-marker.png') });
    // A pan releases it; F takes it up again.
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    await page.mouse.move(cx - 200, cy - 120, { steps: 8 });
    await page.mouse.up();
    await expect.poll(() => follow.getAttribute('aria-pressed')).toBe('false');
    await page.locator('.top h1').click();
    await page.keyboard.press('f');
    await expect.poll(() => follow.getAttribute('aria-pressed')).toBe('true');
    await page.getByRole('button', { name: /^Position/ }).click();
    await page.getByRole('dialog', { name: 'Position' }).getByRole('button', { name: 'Disconnect' }).click();
    await expect.poll(() => page.getByRole('dialog', { name: 'Position' }).getByRole('status', { name: 'Connection' }).textContent()).toBe('Not connected.');
    expect(await problems()).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('walks a square field, survives the app\'s restart mid-walk, and saves it as a parcel with its survey record', async () => {
    // A brisk 24 m/s at 10 Hz (a receiver's top rate): a position every 2.4 m, as 12 m/s at 5 Hz gave, in ~17 s round
    // 400 m instead of ~35 s; the app keeps a position once 1 m from the last (its default). The receiver starts walking
    // from the field's corner once the walk is started, as a surveyor does, and waits at the place where the app is
    // restarted, so the walk is whole.
    const opts = { hz: 10, speed: 24 };
    const { server: sim, player } = await simulator(opts, false);
    const length = fieldWalk(opts).length;
    const { page } = await openApp(browser, app!.url);
    await expect.poll(() => shownOn(page), { timeout: 30_000 }).toBeGreaterThan(0);
    // Connected at the receiver's first position: the receiver standing still says nothing yet, so it is asked only.
    await connectTcp(page, sim.port, false);
    const panel = page.getByRole('dialog', { name: 'Position' });
    await expect.poll(() => sim.clients(), { timeout: 10_000 }).toBe(1);
    await panel.getByRole('button', { name: 'Start walking' }).click();
    await expect.poll(() => page.getByRole('status', { name: 'Message' }).textContent(), { timeout: 10_000 }).toMatch(/^Walking the boundary/);
    player.start();
    await expect.poll(() => panel.getByRole('status', { name: 'Connection' }).textContent(), { timeout: 10_000 }).toBe(`Connected to TCP 127.0.0.1:${sim.port}.`);
    const points = async () => Number(await panel.locator('[data-field=walk-points]').textContent());
    // Past the first corner (a quarter of the walk), the app stopped and started again.
    await expect.poll(() => player.played, { timeout: 40_000 }).toBeGreaterThan(length * 0.27);
    expect(await points()).toBeGreaterThan(10);
    player.pause();
    await app!.stop();
    app = await startApp(env);
    // The tab gets back in by itself (the page reloads), the host connects the remembered receiver and keeps the walk.
    await expect.poll(() => page.getByRole('status', { name: 'Connection' }).textContent(), { timeout: 30_000 }).not.toBe('Disconnected');
    await expect.poll(() => shownOn(page), { timeout: 30_000 }).toBeGreaterThan(0);
    await page.getByRole('button', { name: /^Position/ }).click();
    await expect.poll(() => panel.getByRole('status', { name: 'Walk' }).textContent(), { timeout: 15_000 }).toMatch(/^Recording/);
    player.resume();
    const afterRestart = await points();
    await expect.poll(points, { timeout: 60_000 }).toBeGreaterThan(afterRestart);
    await player.done;
    for (let i = 0; i < 3; i++) { await page.getByRole('button', { name: 'Zoom in' }).click(); await page.waitForTimeout(300); }
    await page.waitForTimeout(1500);
    await panel.getByRole('button', { name: 'Close the position panel' }).click();
    await page.screenshot({ path: join(IMG, 'position-walk.png') });
    await page.getByRole('button', { name: /^Position/ }).click();
    const walked = keptWalk();
    await panel.getByRole('button', { name: 'Close into a parcel' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'New parcel' }).isVisible()).toBe(true);
    await page.getByLabel('Name').fill('Walked field');
    await page.getByRole('button', { name: 'Save parcel' }).click();
    await expect.poll(() => page.locator('[data-field=name]').textContent(), { timeout: 15_000 }).toBe('Walked field');
    // The walk is gone once saved.
    if (!await panel.isVisible()) await page.getByRole('button', { name: /^Position/ }).click();
    await expect.poll(() => panel.getByRole('button', { name: 'Start walking' }).isVisible()).toBe(true);

    // Synced, the service holds the parcel: its hectares GeographicLib's of the positions walked, within the
    // simplification's 0.5 %; each vertex's fix quality in furrow:survey.
    await page.locator('.top h1').click();
    await page.keyboard.press('s');
    const service = demoApi({ dir, app: app!, service: `http://127.0.0.1:${env.PORT}` });
    await expect.poll(async () => (await service.parcel('Walked field'))?.properties.hectares ?? null, { timeout: 30_000 }).not.toBeNull();
    const parcel = (await service.parcel('Walked field'))!;
    const expected = ringAreaM2(walked) / 10_000;
    expect(Math.abs(parcel.properties.hectares - expected) / expected).toBeLessThanOrEqual(0.005);
    // and it is the hectare the simulator walked round, within the simplification's tolerance and the walk's spacing
    const field = ringAreaM2(walkRing(fieldWalk(opts))) / 10_000;
    expect(Math.abs(parcel.properties.hectares - field) / field).toBeLessThan(0.01);
    const survey = decodeSurvey(parcel.properties.metadata);
    const ring = parcel.geometry.coordinates[0]!.slice(0, -1);
    expect(survey.length).toBe(ring.length);
    expect(survey.every((v) => v.quality === 'rtk-fixed' && v.satellites === 14 && v.accuracy !== null && v.accuracy < 0.05)).toBe(true);
    await page.context().close();
  }, 240_000);
  it("takes the system's location as a source and adds vertices at the position while drawing, asking beyond the threshold", async () => {
    const A = { longitude: 11.04, latitude: 52.215 };
    const B = { longitude: 11.042, latitude: 52.215 };
    const C = { longitude: 11.042, latitude: 52.216 };
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, permissions: ['geolocation'], geolocation: { ...A, accuracy: 3 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(app!.url);
    await expect.poll(() => shownOn(page), { timeout: 30_000 }).toBeGreaterThan(0);
    await page.getByRole('button', { name: /^Position/ }).click();
    const panel = page.getByRole('dialog', { name: 'Position' });
    await panel.getByLabel('Source').selectOption('system');
    await panel.getByRole('button', { name: 'Connect', exact: true }).click();
    await expect.poll(() => page.getByLabel('Position fix').textContent(), { timeout: 15_000 }).toMatch(/^System's location · ±3 m · \d s ago$/);
    await panel.getByRole('button', { name: 'Close the position panel' }).click();

    await page.getByRole('button', { name: 'Draw polygon' }).click();
    const vertices = page.locator('.lonlat .muted');
    const here = page.getByRole('button', { name: 'Vertex at my position' });
    await here.click();
    await expect.poll(() => vertices.textContent()).toBe('1 vertex');
    // The next position, then V from the keyboard, in the vertex field drawing puts the focus in (which takes no V).
    const moved = async (to: { longitude: number; latitude: number }, accuracy: number) => {
      const before = await drawnTime(page);
      await context.setGeolocation({ ...to, accuracy });
      await expect.poll(() => drawnTime(page), { timeout: 10_000 }).not.toBe(before);
    };
    await moved(B, 3);
    const field = page.locator('form.lonlat input');
    await field.focus();
    await page.keyboard.press('v');
    await expect.poll(() => vertices.textContent()).toBe('2 vertices');
    expect(await field.inputValue()).toBe('');
    // Worse than the 5 m threshold: asked, not added until the user says so.
    await moved(C, 8);
    await here.click();
    await expect.poll(() => page.getByRole('alert').filter({ hasText: 'Add it anyway?' }).textContent()).toContain('accurate to ±8 m, worse than your threshold of 5 m');
    expect(await vertices.textContent()).toBe('2 vertices');
    await page.getByRole('button', { name: 'Add anyway' }).click();
    await expect.poll(() => vertices.textContent()).toBe('3 vertices');
    // A typed vertex carries no survey record.
    await page.getByLabel('Vertex (longitude, latitude)').fill('11.04, 52.216');
    await page.getByRole('button', { name: 'Add vertex' }).click();
    await expect.poll(() => vertices.textContent()).toBe('4 vertices');
    await page.getByRole('button', { name: 'Finish polygon' }).click();
    await page.getByLabel('Name').fill('Surveyed corners');
    await page.getByRole('button', { name: 'Save parcel' }).click();
    await expect.poll(() => page.locator('[data-field=name]').textContent(), { timeout: 15_000 }).toBe('Surveyed corners');
    await page.locator('.top h1').click();
    await page.keyboard.press('s');
    const service = demoApi({ dir, app: app!, service: `http://127.0.0.1:${env.PORT}` });
    await expect.poll(async () => (await service.parcel('Surveyed corners'))?.properties.hectares ?? null, { timeout: 30_000 }).not.toBeNull();
    const survey = decodeSurvey((await service.parcel('Surveyed corners'))!.properties.metadata);
    expect(survey.map((v) => [v.lon, v.lat, v.quality, v.accuracy])).toEqual([[A.longitude, A.latitude, 'system', 3], [B.longitude, B.latitude, 'system', 3], [C.longitude, C.latitude, 'system', 8]]);

    // Modifying it: a vertex averaged over two fixes, put on the edge it lengthens least (the west one); the record
    // keeps the three and gains the averaged one, its accuracy the fixes' mean (their spread being smaller).
    await page.getByRole('button', { name: /^Position/ }).click();
    await panel.getByLabel('Averaging count').fill('2');
    await panel.getByRole('button', { name: 'Close the position panel' }).click();
    await moved({ longitude: 11.039, latitude: 52.2155 }, 1);
    await page.getByRole('button', { name: 'Modify' }).click();
    await expect.poll(() => page.locator('.map').getAttribute('data-modifying')).not.toBeNull();
    await here.click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Averaging (2 fixes)' }).textContent()).toMatch(/^Averaging \(2 fixes\): 1 fix at 11\.0390000, 52\.2155000, spread 0\.00 m/);
    await moved({ longitude: 11.039, latitude: 52.21551 }, 1);
    await expect.poll(() => page.getByRole('status', { name: 'Message' }).textContent()).toMatch(/^Added a vertex at your position, averaged over 2 fixes \(spread 0\.56 m\)/);
    await page.getByRole('button', { name: 'Save shape' }).click();
    await expect.poll(() => page.getByRole('status', { name: 'Message' }).textContent(), { timeout: 15_000 }).toMatch(/^Saved the new shape of Surveyed corners/);
    await page.locator('.top h1').click();
    await page.keyboard.press('s');
    await expect.poll(async () => decodeSurvey((await service.parcel('Surveyed corners'))!.properties.metadata).length, { timeout: 30_000 }).toBe(4);
    const after = decodeSurvey((await service.parcel('Surveyed corners'))!.properties.metadata);
    const added = after.find((v) => v.lon === 11.039)!;
    expect(added.lat).toBeCloseTo(52.215505, 7);
    expect(added.accuracy).toBe(1);
    expect((await service.parcel('Surveyed corners'))!.geometry.coordinates[0]!.length).toBe(6);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
