// A download cut short and taken up again, by real mirror host processes against a tile server on 127.0.0.1: the
// host killed mid-way (SIGKILL, as a crash) leaves a paused download that a new host lists and resumes, fetching
// again no tile but those in flight at the kill, to a complete file of every tile; the file being written never
// a layer's file; a pause keeps what was written, a cancel (running or paused) removes it; one download at a time;
// the disk filling up mid-way pauses the download, saying so, and it goes on once space is freed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, statfsSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { rgbPng } from '../test/helpers/png.ts';
import { launchHost, type Host } from './launch.ts';
import { RpcCode } from '../core/rpc.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import type { MapLayer } from '../core/api.ts';
import type { OfflineRequest } from '../core/api-offline.ts';
import { countTiles, tilesOf } from '../core/tiles/tile-math.ts';
import { COMMIT_MS, DEFAULT_CONCURRENCY } from './offline-job.ts';
import { startTileServer, type TileServer } from '../test/helpers/tile-server.ts';
import { layerFiles, newHome, tempRoot, tileCount, tileOf, world, xyzLayer } from './offline-areas.test-helpers.ts';

let root: string;
const hosts: Host[] = [];
const servers: TileServer[] = [];
const host = async (home: string) => {
  const h = await launchHost({ home });
  hosts.push(h);
  return h;
};
/** A server answering each tile after `delayMs`, as one across a network: a download takes long enough to cut. */
const server = async (delayMs: number) => {
  const s = await startTileServer({ tile: tileOf, delayMs });
  servers.push(s);
  return s;
};
beforeAll(() => { root = tempRoot(); });
afterAll(async () => {
  for (const h of hosts) if (h.child.exitCode === null && h.child.signalCode === null) await h.close();
  for (const s of servers) await s.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** About 2 km by 1 km in Berlin: 5 tiles at zoom 15, a few hundred at zoom 18. */
const box: [number, number, number, number] = [13.39, 52.51, 13.42, 52.52];
const req: OfflineRequest = { layer: 'ortho', area: { kind: 'box', bbox: box }, minZoom: 15, maxZoom: 18 };
const TOTAL = countTiles([box], 15, 18);
const tilePaths = [...tilesOf([box], 15, 18)].map((t) => `/xyz/${t.z}/${t.x}/${t.y}.png`);
const until = async (what: () => boolean, ms = 30_000) => {
  for (const end = Date.now() + ms; !what(); await new Promise((r) => setTimeout(r, 10))) if (Date.now() > end) throw new Error('timed out');
};

describe('a download cut short', () => {
  it('by the host killed mid-way resumes where it stopped, fetching again only the tiles in flight', async () => {
    expect(TOTAL).toBeGreaterThan(300);
    const ts = await server(15);
    const { home } = newHome(root);
    let h = await host(home);
    await h.api.saveLayers({ layers: [world, xyzLayer(ts.xyz)] });
    let done = 0;
    const cut = h.api.offlineDownload(req, { onProgress: (p) => { done = p.done; } }).catch((e: unknown) => e);
    await until(() => done >= TOTAL / 3);
    h.child.kill('SIGKILL');
    expect(await cut).toMatchObject({ code: RpcCode.disconnected });
    const fetchedBefore = new Map(ts.requests);

    // What is left: a file being written (and SQLite's beside it), no complete file, the layer without an area.
    const files = layerFiles(home);
    const part = files.find((f) => f.endsWith('.mbtiles.part'))!;
    expect(part).toMatch(/^[0-9a-f]{32}\.mbtiles\.part$/);
    expect(files.filter((f) => !f.startsWith(part))).toEqual([]);
    h = await host(home);
    expect((await h.api.layers({})).layers[1]).toEqual(xyzLayer(ts.xyz));
    // The file being written is never a layer's file.
    const fileLayer: MapLayer = { id: 'f', name: 'Half a file', visible: true, opacity: 1, source: { kind: 'file', file: part.slice(0, 32), format: 'mbtiles-raster' } };
    await expect(h.api.saveLayers({ layers: [world, xyzLayer(ts.xyz), fileLayer] })).rejects.toMatchObject({ message: /its file is no longer kept here/ });
    const [paused] = await h.api.offlineDownloads({});
    expect(paused).toMatchObject({ layer: 'ortho', state: 'paused', total: TOTAL, bbox: box, minZoom: 15, maxZoom: 18 });
    // At least what was reported before the kill is in the file (reported only once written).
    expect(paused!.done).toBeGreaterThanOrEqual(done);
    expect(paused!.done).toBeLessThan(TOTAL);

    const r = await h.api.offlineResume({ layer: 'ortho' });
    expect(r).toMatchObject({ done: TOTAL, total: TOTAL, failed: 0, offline: { file: part.slice(0, 32), tiles: TOTAL } });
    expect(layerFiles(home)).toEqual([`${part.slice(0, 32)}.mbtiles`]);
    expect(tileCount(join(home, 'layers', `${part.slice(0, 32)}.mbtiles`))).toBe(TOTAL);
    expect((await h.api.layers({})).layers[1]!.offline).toEqual(r.offline);
    // Every tile fetched; twice only those the host had not committed when it died — at most one in flight a
    // worker, plus those of the batch not yet committed: what the workers fetch in COMMIT_MS at 15 ms a tile.
    expect(tilePaths.every((p) => (ts.requests.get(p) ?? 0) >= 1)).toBe(true);
    const twice = tilePaths.filter((p) => (ts.requests.get(p) ?? 0) > 1);
    expect(twice.length).toBeGreaterThan(0);
    expect(twice.length).toBeLessThanOrEqual(DEFAULT_CONCURRENCY * (1 + Math.ceil(COMMIT_MS / 15)));
    expect(twice.every((p) => fetchedBefore.has(p))).toBe(true);
    expect(await h.api.offlineDownloads({})).toEqual([]);
  }, 120_000);

  it('by a pause keeps what was written; a cancel removes it, paused or running; one download at a time', async () => {
    const ts = await server(10);
    const { home } = newHome(root);
    const h = await host(home);
    await h.api.saveLayers({ layers: [world, xyzLayer(ts.xyz), xyzLayer(ts.xyz, 'other')] });

    // Paused by aborting the call.
    const pause = new AbortController();
    let done = 0;
    const first = h.api.offlineDownload(req, { signal: pause.signal, onProgress: (p) => { done = p.done; } }).catch((e: unknown) => e);
    await until(() => done >= 50);
    // Meanwhile another download is refused, saying why.
    await expect(h.api.offlineDownload({ ...req, layer: 'other' })).rejects.toMatchObject({ code: ApiErrorCode.busy, message: "Another layer's area is downloading (ortho): pause it, or wait for it to finish." });
    await expect(h.api.offlineResume({ layer: 'ortho' })).rejects.toMatchObject({ code: ApiErrorCode.busy, message: /already downloading/ });
    expect(await h.api.offlineDownloads({})).toEqual([expect.objectContaining({ layer: 'ortho', state: 'running', total: TOTAL })]);
    pause.abort();
    expect(await first).toMatchObject({ code: RpcCode.cancelled, message: expect.stringMatching(/^Paused at [\d,]+ of [\d,]+ tiles: Resume goes on from there\.$/) });
    const [paused] = await h.api.offlineDownloads({});
    expect(paused).toMatchObject({ layer: 'ortho', state: 'paused' });
    expect(paused!.done).toBeGreaterThanOrEqual(50);
    expect(layerFiles(home).some((f) => f.endsWith('.mbtiles.part'))).toBe(true);
    // The same ask again goes on with it (nothing fetched twice but what was in flight at the pause).
    const before = ts.count();
    const second = new AbortController();
    const again = h.api.offlineDownload(req, { signal: second.signal, onProgress: (p) => { done = p.done; } }).catch((e: unknown) => e);
    await until(() => done >= paused!.done + 20);
    second.abort();
    await again;
    const [stillOne] = await h.api.offlineDownloads({});
    expect(stillOne!.done).toBeGreaterThanOrEqual(paused!.done + 20);
    expect(ts.count() - before).toBeLessThan(stillOne!.done - paused!.done + 3 * DEFAULT_CONCURRENCY);

    // Cancelled while paused: gone.
    await h.api.offlineCancel({ layer: 'ortho' });
    expect(layerFiles(home)).toEqual([]);
    expect(await h.api.offlineDownloads({})).toEqual([]);
    await expect(h.api.offlineResume({ layer: 'ortho' })).rejects.toMatchObject({ code: ApiErrorCode.notFound });

    // Cancelled while running: the call says so, nothing is left, and the layer has no area.
    done = 0;
    const running = h.api.offlineDownload(req, { onProgress: (p) => { done = p.done; } }).catch((e: unknown) => e);
    await until(() => done >= 30);
    await h.api.offlineCancel({ layer: 'ortho' });
    expect(await running).toMatchObject({ code: RpcCode.cancelled, message: expect.stringMatching(/^Cancelled at [\d,]+ of [\d,]+ tiles: what was downloaded is removed\.$/) });
    expect(layerFiles(home)).toEqual([]);
    expect((await h.api.layers({})).layers[1]!.offline).toBeUndefined();
  }, 120_000);

  it('whose file was damaged (power lost mid-way) is removed, saying so, never used', async () => {
    const ts = await server(5);
    const { home } = newHome(root);
    const h = await host(home);
    await h.api.saveLayers({ layers: [world, xyzLayer(ts.xyz)] });
    const pause = new AbortController();
    let done = 0;
    const first = h.api.offlineDownload(req, { signal: pause.signal, onProgress: (p) => { done = p.done; } }).catch((e: unknown) => e);
    await until(() => done >= 150);
    pause.abort();
    await first;
    // Past its first pages (the schema and the journal), zeros where the tiles' pages were.
    const part = join(home, 'layers', layerFiles(home).find((f) => f.endsWith('.mbtiles.part'))!);
    const size = statSync(part).size;
    const fd = openSync(part, 'r+');
    writeSync(fd, Buffer.alloc(Math.floor(size / 2)), 0, Math.floor(size / 2), Math.floor(size / 4));
    closeSync(fd);
    await expect(h.api.offlineResume({ layer: 'ortho' })).rejects.toMatchObject({ code: ApiErrorCode.notFound, message: /^The download's file was damaged .*Download the area again\.$/ });
    expect(layerFiles(home)).toEqual([]);
    expect((await h.api.layers({})).layers[1]!.offline).toBeUndefined();
  }, 60_000);

  // Mounting takes root (CI has it).
  it.runIf(process.getuid?.() === 0)('by the disk filling up pauses, saying so, and goes on once space is freed', async () => {
    // Tiles of noise, about 12 KB each, that do not compress: a few hundred fill what is left.
    let seed = 7;
    const noise = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) >>> 16) & 0xff;
    const tiles = Array.from({ length: 8 }, () => rgbPng(64, () => [noise(), noise(), noise()]));
    const ts = await startTileServer({ tile: (z, x, y) => tiles[(x + y + z) % 8]! });
    servers.push(ts);
    const mnt = join(root, 'disk');
    mkdirSync(mnt);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mnt]);
    try {
      const { home } = newHome(mnt);
      const h = await host(home);
      await h.api.saveLayers({ layers: [world, xyzLayer(ts.xyz)] });
      // About 2 MB left: room for the file's start, not for its 419 tiles.
      const s = statfsSync(mnt);
      const filler = join(mnt, 'filler');
      writeFileSync(filler, Buffer.alloc(Math.max(0, Number(s.bavail) * Number(s.bsize) - 2 * 1024 * 1024)));
      await expect(h.api.offlineDownload(req)).rejects.toMatchObject({
        code: ApiErrorCode.diskFull, message: expect.stringMatching(/^The disk holding the app's data is full: the download is paused at [\d,]+ of [\d,]+ tiles\. Free space there, then Resume\.$/),
      });
      // The host goes on answering; the download is paused.
      expect(await h.api.offlineDownloads({})).toEqual([expect.objectContaining({ layer: 'ortho', state: 'paused', total: TOTAL })]);
      rmSync(filler);
      const r = await h.api.offlineResume({ layer: 'ortho' });
      expect(r).toMatchObject({ done: TOTAL, failed: 0, offline: { tiles: TOTAL } });
      expect(tileCount(join(home, 'layers', `${r.offline!.file}.mbtiles`))).toBe(TOTAL);
      await h.close();
    } finally {
      execFileSync('umount', ['-l', mnt]);
    }
  }, 120_000);
});
