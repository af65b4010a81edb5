import { describe, expect, it } from 'vitest';
import { LayerHealth, QUIET_MS, xyzTileAt, type ProbeAnswer, type XyzTile } from './tile-health.ts';

const E = 20037508.342789244;
/** EPSG:3857 extent of XYZ tile z/x/y. */
const extentOf = (z: number, x: number, y: number) => {
  const size = (2 * E) / 2 ** z;
  return [-E + x * size, E - (y + 1) * size, -E + (x + 1) * size, E - y * size];
};

/** A health whose probes the test answers, on a clock it moves. */
function health() {
  let t = 0;
  const asked: XyzTile[] = [];
  const answers: ((a: ProbeAnswer) => void)[] = [];
  const said: (string | null)[] = [];
  const timers: { at: number; fn: () => void }[] = [];
  const h = new LayerHealth((tile) => { asked.push(tile); return new Promise((r) => answers.push(r)); }, (why) => said.push(why), () => t,
    (fn, ms) => timers.push({ at: t + ms, fn }));
  const after = (ms: number) => {
    t += ms;
    for (const timer of timers.filter((x) => x.at <= t)) { timers.splice(timers.indexOf(timer), 1); timer.fn(); }
  };
  const answer = async (a: ProbeAnswer) => { answers.shift()!(a); await new Promise((r) => setTimeout(r, 0)); };
  return { h, asked, said, answer, after };
}

describe("an online layer's health", () => {
  it('numbers a tile of any EPSG:3857 grid as XYZ, from its extent and resolution', () => {
    for (const [z, x, y] of [[0, 0, 0], [3, 1, 2], [17, 62_500, 50_000], [22, 4_000_000, 10]] as const) {
      expect(xyzTileAt(extentOf(z, x, y), (2 * E) / 256 / 2 ** z)).toEqual({ z, x, y });
    }
    // A resolution between zooms takes the nearer; the tile is the one under the extent's centre.
    expect(xyzTileAt(extentOf(5, 7, 9), (2 * E) / 256 / 32 * 1.2)).toEqual({ z: 5, x: 7, y: 9 });
    expect(xyzTileAt([E, 0, E + 10, 10], 1)).toBeNull();
  });

  it("is not failing for a tile the server has not (404 beyond its coverage), and asks again only after a while", async () => {
    const { h, asked, said, answer, after } = health();
    h.failed({ z: 3, x: 1, y: 2 });
    h.failed({ z: 3, x: 1, y: 3 }); // while the first is asked about: not asked
    await answer({ answer: 'none', why: null });
    h.failed({ z: 3, x: 1, y: 4 });
    h.loaded(); // a tile loaded since: the 404 above is not asked about
    after(QUIET_MS);
    expect(asked).toHaveLength(1);
    h.failed({ z: 3, x: 1, y: 5 });
    await answer({ answer: 'tile', why: null });
    expect(asked).toEqual([{ z: 3, x: 1, y: 2 }, { z: 3, x: 1, y: 5 }]);
    expect(said).toEqual([]);
  });

  it('asks about a tile that failed in the quiet after the server answered well, once the quiet ends', async () => {
    const { h, asked, said, answer, after } = health();
    h.failed({ z: 3, x: 1, y: 2 });
    await answer({ answer: 'none', why: null });
    after(100);
    h.failed({ z: 4, x: 1, y: 2 }); // the server gone just now: no more errors come
    h.failed({ z: 4, x: 1, y: 3 });
    expect(asked).toHaveLength(1);
    after(QUIET_MS);
    expect(asked.at(-1)).toEqual({ z: 4, x: 1, y: 3 });
    await answer({ answer: 'failed', why: 'gone' });
    expect(said).toEqual(['gone']);
  });

  it("fails with the host's reason when the host cannot have the tile either, once, and works again when a tile loads", async () => {
    const { h, asked, said, answer } = health();
    h.loaded();
    h.failed({ z: 3, x: 1, y: 2 });
    await answer({ answer: 'failed', why: '127.0.0.1:9 could not be reached' });
    h.failed({ z: 3, x: 1, y: 3 });
    expect(asked).toHaveLength(1);
    h.loaded();
    h.loaded();
    expect(said).toEqual(['127.0.0.1:9 could not be reached', null]);
  });

  it('fails at once for a tile the host cannot be asked about (a grid not in EPSG:3857)', () => {
    const { h, asked, said } = health();
    h.failed(null);
    expect(asked).toEqual([]);
    expect(said).toEqual(['offline, or the server is down']);
  });
});
