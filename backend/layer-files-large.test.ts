// "A 4 GB file works" (issue 30), where it could break: offsets past 2^31 (a signed 32-bit int) and 2^32 (an
// unsigned one). A sparse PMTiles v3 archive of 4.75 GiB (header and directories at the start, its tiles at
// 2 GiB + 7, across 4 GiB, past 4.5 GiB and at the very end; nothing else written, so it costs the disk a few blocks)
// is added by path with the command line (`layers add`) and through Electron's chosen-file path, and read by a page
// as the map reads it: the pmtiles package over the host's /bytes/ ranges, each tile byte-exact, and a raw range
// across 4 GiB. The host copies it sparse (backend/sparse-write.ts) and its memory stays flat through the copy and
// the reads (its RSS, from /proc).
// MBTiles needs no such test: it is SQLite, read a page at a time by SQLite's own 64-bit offsets.
// Browser mode's chunks at such offsets: backend/layer-uploads.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { PMTiles, FetchSource } from 'pmtiles';
import { LAYER_FILE_CHOSEN } from '../core/host-protocol.ts';
import { runCli } from '../cli/main.ts';
import { writeSparsePmtiles } from '../test/helpers/pmtiles-writer.ts';
import { startBrowserHost, type BrowserHost } from '../test/helpers/browser-host.ts';

const GiB = 1024 ** 3;
const SIZE = 4.75 * GiB;
/** The tiles (PNG tile type; the bytes are random: nothing decodes them on the way) and where each lies. */
const TILES = [
  { z: 14, x: 8023, y: 6178, at: 2 ** 31 + 7, length: 50_000 },
  { z: 14, x: 8024, y: 6178, at: 2 ** 32 - 20_000, length: 65_536 },
  { z: 14, x: 8023, y: 6179, at: 2 ** 32 + 2 ** 29 + 3, length: 30_000 },
  { z: 14, x: 8024, y: 6179, at: SIZE - 100_000, length: 100_000 },
].map((t) => ({ ...t, data: randomBytes(t.length) }));

let b: BrowserHost;
let file: string;
let cliSaid = '';

beforeAll(async () => {
  b = await startBrowserHost('furrow-layer-large-', {
    ttlMs: 60_000,
    // The command line adds it before the host starts (each opens the mirror's home).
    prepare: async (home, dir) => {
      file = join(dir, 'Ortofoto 2024.pmtiles');
      writeSparsePmtiles(file, { tileType: 2, minZoom: 14, maxZoom: 14, bounds: [-3.71, 40.4, -3.67, 40.43], metadata: { name: 'Ortofoto 2024 (4.75 GB)' } }, TILES, SIZE);
      const status = await runCli(['layers', 'add', file], { env: { FURROW_HOME: home }, stdout: { write: (s: string) => { cliSaid += s; } }, stderr: { write: () => {} } });
      expect(status).toBe(0);
    },
  });
}, 180_000);
afterAll(async () => {
  await b?.close();
});

/** The host process's resident memory, bytes. */
const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${b.host.child.pid}/status`, 'utf8'))![1]) * 1024;
const keptOn = (id: string) => join(b.home, 'layers', readdirSync(join(b.home, 'layers')).find((f) => f.startsWith(`${id}.`) && f.endsWith('.pmtiles'))!);

/** Every tile read through the page's bytes path of a kept file as the map reads it, and a raw range across 4 GiB. */
async function readsBack(page: Awaited<ReturnType<BrowserHost['tab']>>, id: string, rounds = 1): Promise<void> {
  const s = await page.api.layerFileSource({ file: id });
  expect(s.info).toMatchObject({ format: 'pmtiles-raster', bytes: SIZE, minZoom: 14, maxZoom: 14 });
  const archive = new PMTiles(new FetchSource(b.url(s.path!)));
  for (let r = 0; r < rounds; r++) {
    for (const t of TILES) {
      const got = await archive.getZxy(t.z, t.x, t.y);
      expect(Buffer.from(got!.data).equals(t.data), `tile at ${t.at}`).toBe(true);
    }
  }
  const [from, to] = [2 ** 32 - 20_000, 2 ** 32 + 45_535];
  const range = await b.get(s.path!, { headers: { range: `bytes=${from}-${to}` } });
  expect([range.status, range.headers['content-range']]).toEqual([206, `bytes ${from}-${to}/${SIZE}`]);
  expect(range.body.equals(TILES[1]!.data)).toBe(true);
}

describe('a layer file over 4 GiB', () => {
  it('added by the command line, is kept whole and sparse, its tiles read past 2 GiB and 4 GiB byte-exact', async () => {
    expect(statSync(file).size).toBe(SIZE);
    expect(cliSaid).toMatch(/^Added layer "Ortofoto 2024 \(4\.75 GB\)" \(pmtiles-raster, 4\.8 GB\) on top of the map's layers, as file-([0-9a-f]{32})\.\n$/);
    const id = /file-([0-9a-f]{32})/.exec(cliSaid)![1]!;
    const page = await b.tab();
    expect((await page.api.layers({})).layers.map((l) => l.id)).toContain(`file-${id}`);
    const kept = statSync(keptOn(id));
    expect(kept.size).toBe(SIZE);
    // The copy as sparse as the original: a few blocks, not 4.75 GB.
    expect(kept.blocks * 512).toBeLessThan(64 * 1024 ** 2);
    await readsBack(page, id);
    await page.close();
  }, 120_000);

  it("added through Electron's chosen path, copied and read with the host's memory flat", async () => {
    const page = await b.tab();
    const chosen = async () => {
      const ticket = randomBytes(16).toString('hex');
      b.host.child.send({ type: LAYER_FILE_CHOSEN, ticket, path: file });
      let told = 0;
      const info = await page.api.addLayerFileChosen({ ticket }, { onProgress: (p) => { told = p.done; } });
      expect(info).toMatchObject({ format: 'pmtiles-raster', name: 'Ortofoto 2024 (4.75 GB)', bytes: SIZE });
      expect(told).toBe(SIZE);
      expect(statSync(keptOn(info.file)).blocks * 512).toBeLessThan(64 * 1024 ** 2);
      await readsBack(page, info.file, 20);
      return info;
    };
    // The first copy and reads warm the host up (its streams' buffers, the readers it loads on first use: a plateau
    // of a few tens of MiB that a 40 MB file reaches too); from then on, another 4.75 GB through it moves nothing.
    const first = rss();
    await chosen();
    const before = rss();
    await chosen();
    const after = rss();
    const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
    // Growth past the highest seen before (a collection may lower RSS between samples, so the lower of them is no
    // plateau: measured 146 MiB at first, 156 after one copy, 140 after another; under load 146, 135, 159), within
    // what the host's young generation alone can grow by between two samples (V8's two semi-spaces of up to 16 MiB:
    // a CI run measured 133, 133, 163). A copy that kept even 1 % of what it moved would grow it by 48 MiB a copy.
    expect(after - Math.max(first, before), `RSS ${mib(first)} at first, ${mib(before)} after one copy, ${mib(after)} after another`).toBeLessThan(32 * 2 ** 20);
    // And the plateau is no part of the file's size (4,864 MiB).
    expect(after - first).toBeLessThan(64 * 2 ** 20);
    await page.close();
  }, 180_000);
});
