// In-page instruments for bench/map.ts and bench/map-layers.ts, and the interactions they time: requestAnimationFrame deltas recorded from the start of an interaction until
// the map asks for the new view's parcels (the renderer's `furrow:load` mark at moveend), and the renderer's
// performance marks and measures (renderer/features/map/parcel-layers.ts) read back.
import { parseArgs } from 'node:util';
import type { Browser, BrowserContext, Page } from 'playwright-core';

interface Probe { rec: boolean; frames: number[]; last: number; reloads: number; until: number }
type W = Window & { __probe: Probe };

export interface Settled {
  frames: number[];
  /** The new view's parcels asked for and drawn: ms, and how many. */
  reload: { ms: number; count: number } | null;
}

export interface MapProbe {
  start(): Promise<void>;
  /**
   * A drag is about to be let go: the recording ends at the map's first request for a view after this, its own
   * moveend (after the kinetic glide the release starts), not at one the drag's pointerdown caused by stopping a glide
   * still under way (OpenLayers then ends the earlier move).
   */
  releasing(): Promise<void>;
  /** Waits for the interaction's moveend, then for its parcels to be drawn; the frames recorded meanwhile. */
  settle(): Promise<Settled>;
  /** Waits until the latest view asked for is drawn and nothing moved for a while. */
  quiet(): Promise<void>;
  measures(name: string): Promise<{ duration: number; startTime: number }[]>;
}

export async function pageFrames(page: Page): Promise<MapProbe> {
  // A script text, not a function: tsx's transform would wrap the function's inner names in a helper (__name) that
  // does not exist in the page.
  await page.addInitScript(`(() => {
    const p = { rec: false, frames: [], last: 0, reloads: 0, until: 0 };
    window.__probe = p;
    const tick = (t) => {
      if (p.rec && p.last) p.frames.push(t - p.last);
      p.last = t;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    new PerformanceObserver((list) => {
      if (list.getEntries().some((e) => e.name === 'furrow:load' && e.startTime >= p.until)) p.rec = false;
    }).observe({ type: 'mark' });
  })();`);
  const quiet = async () => {
    await page.waitForFunction(() => {
      const load = performance.getEntriesByName('furrow:load').at(-1);
      const drawn = performance.getEntriesByName('furrow:reload').at(-1);
      if (!load) return true;
      return drawn !== undefined && drawn.startTime >= load.startTime && performance.now() - (drawn.startTime + drawn.duration) > 300;
    }, undefined, { timeout: 60_000, polling: 50 });
  };
  return {
    async start() {
      await page.evaluate(() => { const p = (window as unknown as W).__probe; p.frames = []; p.last = 0; p.rec = true; p.until = 0; p.reloads = performance.getEntriesByName('furrow:reload').length; });
    },
    async releasing() {
      await page.evaluate(() => { (window as unknown as W).__probe.until = performance.now(); });
    },
    async settle() {
      // A wheel at the zoom's limit moves nothing: no moveend comes, the frames so far are the interaction's.
      await page.waitForFunction(() => !(window as unknown as W).__probe.rec, undefined, { timeout: 10_000, polling: 20 }).catch(() => {});
      const frames = await page.evaluate(() => { const p = (window as unknown as W).__probe; p.rec = false; return p.frames.slice(); });
      await quiet();
      const reload = await page.evaluate(() => {
        const all = performance.getEntriesByName('furrow:reload');
        const m = all.at(-1) as PerformanceMeasure | undefined;
        return m && all.length > (window as unknown as W).__probe.reloads ? { ms: m.duration, count: (m.detail as { count: number }).count } : null;
      });
      return { frames, reload };
    },
    quiet,
    async measures(name) {
      return page.evaluate((n) => performance.getEntriesByName(n).map((e) => ({ duration: e.duration, startTime: e.startTime })), name);
    },
  };
}

/** Chromium's flags for the map's benchmarks: WebGL off, so the canvas path is what is measured (no GPU here). */
export const CANVAS_CHROMIUM_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-gpu', '--disable-3d-apis', '--disable-webgl'];

/** Headless Chromium drops the page's first pointer gesture (nothing reaches OpenLayers): a short drag first. */
export async function firstGesture(page: Page, probe: MapProbe): Promise<void> {
  const box = (await page.locator('.map').boundingBox())!;
  await probe.start();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 20, box.y + box.height / 2, { steps: 4 });
  await probe.releasing();
  await page.mouse.up();
  await probe.settle();
}

/** What one view gave: the frames of its drags and of its zooms, and each new view's parcels read and drawn. */
export interface Scale { pan: number[]; zoom: number[]; reload: number[]; shown: number[] }

/** One view of the map put through its paces: `pans` drags one way and back, then `zooms` wheel zooms in and out at the centre. */
export async function exercise(page: Page, probe: MapProbe, pans: number, zooms: number): Promise<Scale> {
  const box = (await page.locator('.map .ol-viewport').boundingBox())!;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  const out: Scale = { pan: [], zoom: [], reload: [], shown: [] };
  for (let i = 0; i < pans; i++) {
    const [dx, dy] = ([[1, 0], [-1, 0], [0, 1], [0, -1]] as const)[i % 4]!;
    await probe.start();
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    await page.mouse.move(cx + dx * 192, cy + dy * 192, { steps: 12 });
    await probe.releasing();
    await page.mouse.up();
    const r = await probe.settle();
    out.pan.push(...r.frames);
    if (r.reload) { out.reload.push(r.reload.ms); out.shown.push(r.reload.count); }
  }
  for (let i = 0; i < zooms; i++) {
    await probe.start();
    await page.mouse.move(cx, cy);
    // 300 px of wheel: one zoom level in OpenLayers' MouseWheelZoom.
    await page.mouse.wheel(0, i % 2 === 0 ? -300 : 300);
    const r = await probe.settle();
    out.zoom.push(...r.frames);
    if (r.reload) { out.reload.push(r.reload.ms); out.shown.push(r.reload.count); }
  }
  return out;
}

/** The map's benchmark options, with the defaults each benchmark gives. */
export function mapArgs(defaults: { parcels: number; runs?: number; pans?: number; zooms?: number; clicks?: number }): { parcels: number; runs: number; pans: number; zooms: number; clicks: number } {
  const { values } = parseArgs({
    options: Object.fromEntries(['parcels', 'runs', 'pans', 'zooms', 'clicks'].map((k) => [k, { type: 'string' as const }])),
    allowPositionals: true,
  });
  const pick = (k: keyof typeof defaults, d: number) => Number(values[k] ?? defaults[k] ?? d);
  return { parcels: pick('parcels', 10_000), runs: pick('runs', 3), pans: pick('pans', 6), zooms: pick('zooms', 4), clicks: pick('clicks', 6) };
}

/** A new window (browser context) on the app at `url`, its page's errors collected, the probe set, the first parcels drawn. */
export async function openMap(browser: Browser, url: string): Promise<{ context: BrowserContext; page: Page; probe: MapProbe; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const probe = await pageFrames(page);
  await page.goto(url);
  await page.waitForFunction(() => performance.getEntriesByName('furrow:parcels-drawn').length > 0, undefined, { timeout: 60_000 });
  return { context, page, probe, errors };
}
