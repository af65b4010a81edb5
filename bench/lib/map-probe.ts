// In-page instruments for bench/map.ts: requestAnimationFrame deltas recorded from the start of an interaction until
// the map asks for the new view's parcels (the renderer's `furrow:load` mark at moveend), and the renderer's
// performance marks and measures (renderer/features/map/parcel-layers.ts) read back.
import type { Page } from 'playwright-core';

interface Probe { rec: boolean; frames: number[]; last: number; reloads: number }
type W = Window & { __probe: Probe };

export interface Settled {
  frames: number[];
  /** The new view's parcels asked for and drawn: ms, and how many. */
  reload: { ms: number; count: number } | null;
}

export interface MapProbe {
  start(): Promise<void>;
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
    const p = { rec: false, frames: [], last: 0, reloads: 0 };
    window.__probe = p;
    const tick = (t) => {
      if (p.rec && p.last) p.frames.push(t - p.last);
      p.last = t;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    new PerformanceObserver((list) => {
      if (list.getEntries().some((e) => e.name === 'furrow:load')) p.rec = false;
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
      await page.evaluate(() => { const p = (window as unknown as W).__probe; p.frames = []; p.last = 0; p.rec = true; p.reloads = performance.getEntriesByName('furrow:reload').length; });
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
