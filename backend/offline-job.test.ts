// One run of a download against a real tile server on 127.0.0.1 answering at once, into a real file: the tiles are
// committed in batches (one transaction per COMMIT_MS at most, not one per turn of the event loop: each commit costs
// the host a b-tree's upper pages and a journal header), and the progress it reports counts only tiles already in
// the file (what a crash right then would keep).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PartFile, type FetchedTile } from './mbtiles-writer.ts';
import { COMMIT_MS, MAX_FAILED_IN_A_ROW, MAX_UNREACHABLE_IN_A_ROW, runDownload } from './offline-job.ts';
import { TILE_POLICY } from './tile-fetcher.ts';
import { createServer } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TileFetcher } from './tile-fetcher.ts';
import { countTiles } from '../core/tiles/tile-math.ts';
import { xyzTemplate } from '../core/tiles/tile-urls.ts';
import { startTileServer, type TileServer } from '../test/helpers/tile-server.ts';
import { tileOf } from './offline-areas.test-helpers.ts';

let ts: TileServer;
let dir: string;
beforeAll(async () => {
  ts = await startTileServer({ tile: tileOf });
  dir = mkdtempSync(join(tmpdir(), 'furrow-offline-job-'));
});
afterAll(async () => {
  await ts?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a download run', () => {
  it('commits the tiles in batches, and reports as done only tiles already in the file', async () => {
    const box: [number, number, number, number] = [13.39, 52.51, 13.42, 52.52];
    const total = countTiles([box], 15, 18);
    expect(total).toBeGreaterThan(300);
    const part = PartFile.create(join(dir, `${'c'.repeat(32)}.mbtiles.part`), {
      layer: 'ortho', source: { kind: 'xyz', url: ts.xyz }, name: 'Ortho', boxes: [box], bbox: box, minZoom: 15, maxZoom: 18, total, started: new Date().toISOString(),
    });
    // The real file's writes, counted.
    let commits = 0;
    const write = part.write.bind(part);
    part.write = (tiles: readonly FetchedTile[]) => {
      commits++;
      write(tiles);
    };
    const behind: string[] = [];
    const url = xyzTemplate(ts.xyz);
    const signal = new AbortController().signal;
    const fetcher = new TileFetcher(signal);
    const t0 = performance.now();
    const outcome = await runDownload(part, (t) => url(t.z, t.x, t.y), fetcher, signal, {
      onProgress: (p) => {
        const c = part.counts();
        if (c.tiles + c.empty < p.done || c.bytes < p.bytes) behind.push(`${p.done} reported, ${c.tiles + c.empty} in the file`);
      },
    });
    const ms = performance.now() - t0;
    await fetcher.close();
    expect(outcome).toMatchObject({ done: total, total, failed: 0, stopped: null });
    expect(behind).toEqual([]);
    // One commit per COMMIT_MS at most (and one more at the end), however fast the tiles come.
    expect(commits).toBeLessThanOrEqual(Math.ceil(ms / COMMIT_MS) + 2);
    expect(part.finish().tiles).toBe(total);
  }, 60_000);

  it('stops after a few tiles when no server answers at all (offline, the server gone), saying so; a refusing server after many more', async () => {
    // A port nothing listens on: every connection refused.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const box: [number, number, number, number] = [13.39, 52.51, 13.42, 52.52];
    const total = countTiles([box], 15, 18);
    const run = async (template: string, file: string) => {
      const part = PartFile.create(join(dir, `${file.repeat(32)}.mbtiles.part`), {
        layer: 'ortho', source: { kind: 'xyz', url: template }, name: 'Ortho', boxes: [box], bbox: box, minZoom: 15, maxZoom: 18, total, started: new Date().toISOString(),
      });
      const url = xyzTemplate(template);
      const signal = new AbortController().signal;
      const fetcher = new TileFetcher(signal, { ...TILE_POLICY, attempts: 2, baseMs: 1, capMs: 2 });
      const outcome = await runDownload(part, (t) => url(t.z, t.x, t.y), fetcher, signal);
      await fetcher.close();
      return outcome;
    };
    const gone = await run(`http://127.0.0.1:${port}/{z}/{x}/{y}.png`, 'd');
    expect(gone.stopped).toMatch(/could not be reached \(2 tries\)$/);
    expect(gone.failed).toBeGreaterThanOrEqual(MAX_UNREACHABLE_IN_A_ROW);
    expect(gone.failed).toBeLessThan(MAX_UNREACHABLE_IN_A_ROW + 4);
    // A server that is there and refuses (403 to everything) is given longer: its refusal may be one region's.
    const forbidding = createHttpServer((_, res) => res.writeHead(403).end());
    await new Promise<void>((r) => forbidding.listen(0, '127.0.0.1', r));
    const refusing = await run(`http://127.0.0.1:${(forbidding.address() as AddressInfo).port}/{z}/{x}/{y}.png`, 'e');
    forbidding.closeAllConnections();
    await new Promise((r) => forbidding.close(r));
    expect(refusing.stopped).toMatch(/answered 403/);
    expect(refusing.failed).toBeGreaterThanOrEqual(MAX_FAILED_IN_A_ROW);
  }, 60_000);
});
