// Where the user stands, in Chromium against the real app (issue 31), the parts app-position.test.ts leaves: gpsd and
// a serial port chosen from the page (the gpsd-protocol simulator on 127.0.0.1; a socat pseudo-terminal pair the page
// picks from the host's port list, never by a path); the marker's "stale" and "no fix" states, in the readout's words
// and in the marker's colours on a screenshot; and a vertex at my position averaged over N seconds, placed at the
// mean of the fixes the simulator sent. One app start and one page for all of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { freePorts } from '../helpers/process.ts';
import { ensureRenderer } from '../../app/renderer-build.ts';
import { NmeaPlayer, type SimCycle } from '../helpers/nmea-sim.ts';
import { serveGpsd, serveNmeaTcp, writeNmeaTo, type SimServer } from '../helpers/nmea-sim-servers.ts';
import { Position } from '../../backend/position/position.ts';
import { decodeSurvey } from '../../core/gnss/survey.ts';
import { decodePng, demoApi, mapCentre, openApp, shownOn, startApp, type RunningApp } from './app-harness.ts';
import { CHROMIUM_ARGS } from './embed-harness.ts';

let dir: string;
let browser: Browser;
let app: RunningApp;
let env: NodeJS.ProcessEnv;
let page: Page;
let problems: () => Promise<string[]>;
let socat: ChildProcess | null = null;
const cleanups: (() => unknown)[] = [];
/** The pseudo-terminal pair: the simulator writes `receiver`, the host reads `port` as a serial port. */
let pty: { receiver: string; port: string };

beforeAll(async () => {
  await ensureRenderer();
  dir = mkdtempSync(join(tmpdir(), 'furrow-position-sources-'));
  const [servicePort, appPort] = (await freePorts(2)) as [number, number];
  env = { DATA_DIR: join(dir, 'data'), FURROW_HOME: join(dir, 'home'), PORT: String(servicePort), HOST: '127.0.0.1', FURROW_APP_PORT: String(appPort) };
  pty = { receiver: join(dir, 'receiver'), port: join(dir, 'ttyACM9') };
  socat = spawn('socat', [`pty,raw,echo=0,link=${pty.receiver}`, `pty,raw,echo=0,link=${pty.port}`], { stdio: 'ignore' });
  for (let i = 0; !(existsSync(pty.receiver) && existsSync(pty.port)); i++) {
    if (i > 100) throw new Error('socat made no pseudo-terminal pair within 5 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  // A pseudo-terminal is no port the system lists (serialport lists USB and built-in ones): the command line's
  // positionConnectPath names it, as for a Bluetooth /dev/rfcomm0 — on this computer, kept in FURROW_HOME — and the
  // host lists it to the page from its start on. The page then chooses it from that list.
  mkdirSync(env.FURROW_HOME!, { recursive: true });
  const cli = new Position(env.FURROW_HOME!, { position: () => {}, trackPoint: () => {} });
  cli.connectPath(pty.port, 9600);
  cli.close();
  app = await startApp(env);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  ({ page, problems } = await openApp(browser, app.url));
  for (let i = 0; await shownOn(page) <= 0; i++) {
    if (i > 300) throw new Error('the map showed no parcels within 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}, 120_000);

afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await browser?.close();
  await app?.stop();
  if (socat && socat.exitCode === null && socat.signalCode === null) {
    const exited = new Promise((r) => socat!.once('exit', r));
    socat.kill('SIGTERM');
    const kill = setTimeout(() => socat!.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(kill);
  }
  rmSync(dir, { recursive: true, force: true });
});

/** A simulated receiver playing to listeners the test adds; stopped after the file. */
function player(opts: ConstructorParameters<typeof NmeaPlayer>[0]): NmeaPlayer {
  const p = new NmeaPlayer(opts);
  cleanups.push(() => p.stop());
  return p;
}

async function served(p: NmeaPlayer, serve: (p: NmeaPlayer) => Promise<SimServer>): Promise<SimServer> {
  const s = await serve(p);
  cleanups.push(() => s.close());
  return s;
}

const panel = () => page.getByRole('dialog', { name: 'Position' });
const connection = () => panel().getByRole('status', { name: 'Connection' }).textContent();
const readout = () => page.getByLabel('Position fix').textContent();

async function openPanel(): Promise<void> {
  if (!await panel().isVisible()) await page.getByRole('button', { name: /^Position/ }).click();
}

/** Chooses a receiver on the network in the panel, as a user types it. */
async function chooseNetwork(kind: 'tcp' | 'gpsd', port: number): Promise<void> {
  await openPanel();
  await panel().getByLabel('Source').selectOption(kind);
  await panel().getByRole('textbox', { name: 'Host', exact: true }).fill('127.0.0.1');
  await panel().getByRole('textbox', { name: 'Port', exact: true }).fill(String(port));
  await panel().getByRole('button', { name: 'Connect', exact: true }).click();
}

/**
 * The marker's colours, from a screenshot of the map's middle (follow keeps the position there): pixels of the live
 * blue, the stale grey and the "no fix" red (renderer/features/position/usePositionLayer.ts).
 */
async function markerColours(): Promise<{ blue: number; grey: number; red: number }> {
  const { cx, cy } = await mapCentre(page);
  const R = 24;
  const png = decodePng(await page.screenshot({ clip: { x: cx - R, y: cy - R, width: 2 * R, height: 2 * R } }));
  const near = (i: number, [r, g, b]: [number, number, number]) => Math.abs(png.data[i]! - r) < 24 && Math.abs(png.data[i + 1]! - g) < 24 && Math.abs(png.data[i + 2]! - b) < 24;
  const out = { blue: 0, grey: 0, red: 0 };
  const px = png.data.length / (png.width * png.height);
  for (let i = 0; i < png.data.length; i += px) {
    if (near(i, [0x15, 0x65, 0xc0])) out.blue++;
    else if (near(i, [0x78, 0x80, 0x8a])) out.grey++;
    else if (near(i, [0xb7, 0x1c, 0x1c])) out.red++;
  }
  return out;
}

describe('position sources and states', () => {
  it('connects gpsd, then a serial port chosen from the list the host gives', async () => {
    const overGpsd = player({ hz: 5, loop: true }).start();
    const gpsd = await served(overGpsd, serveGpsd);
    await chooseNetwork('gpsd', gpsd.port);
    await expect.poll(connection, { timeout: 15_000 }).toBe(`Connected to gpsd at 127.0.0.1:${gpsd.port}.`);
    await expect.poll(readout, { timeout: 10_000 }).toMatch(/^RTK fixed · 12 sats · HDOP 0\.6 · ±0\.0[12] m · \d s ago$/);

    // The serial port: the page lists the host's ports (names, never paths) and chooses one; this receiver says DGPS.
    await panel().getByLabel('Source').selectOption('serial');
    const ports = panel().getByRole('combobox', { name: 'Port' });
    await expect.poll(() => ports.locator('option').allTextContents(), { timeout: 10_000 }).toContain('ttyACM9');
    expect((await ports.locator('option').allTextContents()).join(' ')).not.toContain('/');
    await ports.selectOption({ label: 'ttyACM9' });
    await panel().getByLabel('Baud').selectOption('9600');
    await panel().getByRole('button', { name: 'Connect', exact: true }).click();
    const overSerial = player({ hz: 5, loop: true, fixes: [[0, 2]] }).start();
    const writer = writeNmeaTo(overSerial, pty.receiver);
    cleanups.push(() => writer.close());
    await expect.poll(connection, { timeout: 15_000 }).toBe('Connected to serial port at 9600 baud.');
    await expect.poll(readout, { timeout: 15_000 }).toMatch(/^DGPS · 14 sats · /);
    expect(gpsd.clients()).toBe(0);
    // Nothing left writing into a pseudo-terminal no one reads (its writes would block this process).
    writer.close();
    overSerial.stop();
  }, 60_000);

  it('shows a fix gone stale when the receiver stops, live again when it sends, and "no fix" when it has none', async () => {
    // RTK fixed for the walk's first 2 % (about 5.7 s of walking at 1.4 m/s), then the receiver's "no fix" (quality 0).
    const sim = player({ hz: 5, fixes: [[0, 4], [0.02, 0]] });
    const tcp = await served(sim, serveNmeaTcp);
    await chooseNetwork('tcp', tcp.port);
    await expect.poll(() => tcp.clients(), { timeout: 10_000 }).toBe(1);
    sim.start();
    await expect.poll(connection, { timeout: 15_000 }).toBe(`Connected to TCP 127.0.0.1:${tcp.port}.`);
    await panel().getByRole('button', { name: 'Close the position panel' }).click();
    await expect.poll(readout, { timeout: 10_000 }).toMatch(/^RTK fixed · 14 sats · HDOP 0\.6 · ±0\.0[12] m · \d s ago$/);
    const kind = () => page.locator('.map').getAttribute('data-position-kind');
    expect(await kind()).toBe('live');
    await expect.poll(async () => (await markerColours()).blue, { timeout: 5000 }).toBeGreaterThan(20);

    // The receiver stops (out of reach): past 5 s, stale — said, and drawn grey.
    sim.pause();
    await expect.poll(readout, { timeout: 10_000 }).toMatch(/^Stale: RTK fixed · 14 sats · HDOP 0\.6 · ±0\.0[12] m · [5-9] s ago$/);
    // The map looks again each second, on a clock of its own.
    await expect.poll(kind, { timeout: 2000 }).toBe('stale');
    expect(await page.locator('.position-readout').getAttribute('class')).toContain('fix-stale');
    await expect.poll(markerColours, { timeout: 5000 }).toMatchObject({ blue: 0, grey: expect.any(Number) });
    expect((await markerColours()).grey).toBeGreaterThan(20);
    // It sends again: live at once.
    sim.resume();
    await expect.poll(readout, { timeout: 5000 }).toMatch(/^RTK fixed · /);
    await expect.poll(kind, { timeout: 2000 }).toBe('live');

    // It says it has no fix: "No fix" where it last was, hollow and dashed red.
    await expect.poll(readout, { timeout: 15_000 }).toMatch(/^No fix · \d s ago$/);
    await expect.poll(kind, { timeout: 2000 }).toBe('no-fix');
    expect(await page.locator('.position-readout').getAttribute('class')).toContain('fix-no-fix');
    await expect.poll(async () => (await markerColours()).red, { timeout: 5000 }).toBeGreaterThan(10);
    expect((await markerColours()).blue).toBe(0);
    // "Vertex at my position" waits for a fix.
    await page.getByRole('button', { name: 'Draw polygon' }).click();
    expect(await page.getByRole('button', { name: 'Vertex at my position' }).isDisabled()).toBe(true);
    await page.keyboard.press('Escape');
  }, 60_000);

  it('adds a vertex at my position averaged over 2 seconds, at the mean of the fixes the receiver sent', async () => {
    const sim = player({ hz: 5, loop: true });
    const sent: SimCycle[] = [];
    sim.onCycle((c) => sent.push(c));
    const tcp = await served(sim, serveNmeaTcp);
    sim.start();
    await chooseNetwork('tcp', tcp.port);
    await expect.poll(connection, { timeout: 15_000 }).toBe(`Connected to TCP 127.0.0.1:${tcp.port}.`);
    await panel().getByLabel('Averaging count').fill('2');
    await panel().getByLabel('Averaging unit').selectOption('seconds');
    await panel().getByRole('button', { name: 'Close the position panel' }).click();
    await expect.poll(readout, { timeout: 10_000 }).toMatch(/^RTK fixed/);

    await page.getByRole('button', { name: 'Draw polygon' }).click();
    await page.getByRole('button', { name: 'Vertex at my position' }).click();
    // While averaging: the mean so far and its spread.
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Averaging (2 s)' }).textContent(), { timeout: 5000 })
      .toMatch(/^Averaging \(2 s\): \d+ fix(es)? at 11\.03\d{5}, 52\.21\d{5}, spread \d+\.\d\d m/);
    await expect.poll(() => page.getByRole('status', { name: 'Message' }).textContent(), { timeout: 10_000 }).toMatch(/^Added a vertex at your position, averaged over \d+ fixes/);
    const [, n, spread] = /averaged over (\d+) fixes \(spread (\d+\.\d\d) m\)/.exec((await page.getByRole('status', { name: 'Message' }).textContent())!)!;
    const count = Number(n);
    // Two seconds at 5 Hz: about ten fixes.
    expect(count).toBeGreaterThanOrEqual(9);
    expect(count).toBeLessThanOrEqual(12);

    // Two typed corners east of the field make it a triangle to save.
    for (const v of ['11.040, 52.2145', '11.040, 52.216']) {
      await page.getByLabel('Vertex (longitude, latitude)').fill(v);
      await page.getByRole('button', { name: 'Add vertex' }).click();
    }
    await expect.poll(() => page.locator('.lonlat .muted').textContent()).toBe('3 vertices');
    await page.getByRole('button', { name: 'Finish polygon' }).click();
    await page.getByLabel('Name').fill('Averaged corner');
    await page.getByRole('button', { name: 'Save parcel' }).click();
    await expect.poll(() => page.locator('[data-field=name]').textContent(), { timeout: 15_000 }).toBe('Averaged corner');
    await page.locator('.top h1').click();
    await page.keyboard.press('s');
    const service = demoApi({ dir, app, service: `http://127.0.0.1:${env.PORT}` });
    await expect.poll(async () => (await service.parcel('Averaged corner'))?.properties.hectares ?? null, { timeout: 30_000 }).not.toBeNull();
    const parcel = (await service.parcel('Averaged corner'))!;
    const vertex = parcel.geometry.coordinates[0]!.find((p) => p[0]! < 11.039)!;

    // The vertex is the plain mean of `count` successive fixes the simulator sent (to NMEA's 1e-7 minutes and the
    // mean's frame, well under a millimetre), and the spread said is theirs (RMS metres from the mean).
    const runs = sent.map((_, i) => sent.slice(i, i + count)).filter((r) => r.length === count);
    const mean = (r: SimCycle[]) => [r.reduce((a, c) => a + c.point.lon, 0) / count, r.reduce((a, c) => a + c.point.lat, 0) / count] as const;
    const match = runs.find((r) => { const [lon, lat] = mean(r); return Math.abs(lon - vertex[0]!) < 1e-8 && Math.abs(lat - vertex[1]!) < 1e-8; });
    expect(match, `no ${count} successive fixes sent average to ${vertex.join(', ')}`).toBeDefined();
    const [mLon, mLat] = mean(match!);
    const kx = 111_320 * Math.cos((mLat * Math.PI) / 180);
    const rms = Math.sqrt(match!.reduce((a, c) => a + ((c.point.lon - mLon) * kx) ** 2 + ((c.point.lat - mLat) * 110_574) ** 2, 0) / count);
    expect(Math.abs(Number(spread) - rms)).toBeLessThan(0.011);
    // Its survey record: RTK fixed, its accuracy the larger of the fixes' (0.015 m) and their spread.
    const survey = decodeSurvey(parcel.properties.metadata);
    expect(survey).toHaveLength(1);
    expect(survey[0]).toMatchObject({ quality: 'rtk-fixed', satellites: 14 });
    // The message shows the spread rounded to the centimetre: within half of one (0.805 is said "0.80" or "0.81").
    expect(Math.abs(survey[0]!.accuracy! - Math.max(0.015, Number(spread)))).toBeLessThanOrEqual(0.005 + 1e-9);
    expect(await problems()).toEqual([]);
  }, 90_000);
});
