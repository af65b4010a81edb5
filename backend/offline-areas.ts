// Making an online layer's area available offline (core/api-offline.ts): the area's tiles estimated, downloaded into
// FURROW_HOME/layers/<file>.mbtiles.part (backend/mbtiles-writer.ts, backend/offline-job.ts), and once complete
// published as <file>.mbtiles and set as the layer's `offline` — the map then reads them through the page session's
// bytes paths (offlineTiles, backend/bytes.ts). One download at a time: the tile servers are the users', and
// OpenStreetMap's and most providers' policies forbid or throttle bulk downloads (the README says so; the user
// chooses the source).
//
// Completing, in an order a crash at any point recovers from: the .part made complete and fsynced (its journal says
// so), then the layer pointed at its file id, then the rename. At the next look (offlineDownloads, a download, a
// resume) a complete .part is renamed when its layer names it and removed when not; an incomplete one is a paused
// download; one without a journal is removed. An update downloads into a new file and removes the old one only once
// the layer names the new. Tiles that keep failing leave the download paused with them recorded; the user may keep
// the area without them (offlineKeepPartial: the area's `missing`), and an update fetches every tile again.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { RpcCode, RpcError, type HandlersOf } from '../core/rpc.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import type { OFFLINE_API, OfflineAreaChoice, OfflineDownload, OfflineProgress, OfflineRequest, OfflineResult } from '../core/api-offline.ts';
import { DEFAULT_MARGIN_M } from '../core/api-offline.ts';
import type { MapLayer, OfflineArea } from '../core/api-layers.ts';
import { boxProblem, countTiles, enclosing, withMargin, type LonLatBox } from '../core/tiles/tile-math.ts';
import { DEFAULT_TILE_CAP, tileCapProblem } from '../core/tiles/tile-cap.ts';
import { ensurePrivateDir } from '../platform/node/private-files.ts';
import { diskFull } from '../platform/node/sqlite.ts';
import type { HostContext } from './context.ts';
import { keepLayers, layersDir, savedLayers } from './layers.ts';
import { offlineSettings } from './settings.ts';
import { PartFile, publish, removePart, type DownloadJournal } from './mbtiles-writer.ts';
import { OfflineTiles } from './offline-tiles.ts';
import { TILE_POLICY, TileFetcher, type TilePolicy } from './tile-fetcher.ts';
import { DEFAULT_CONCURRENCY, runDownload } from './offline-job.ts';
import { PartWriter } from './offline-writer.ts';
import { tileAddresses, type TileAddress } from './tile-source.ts';
import { estimateBytes } from './offline-estimate.ts';
import type { ByteSession } from './bytes.ts';

type Box = [number, number, number, number];
type Handlers = HandlersOf<typeof OFFLINE_API>;

interface Running {
  layer: string;
  path: string;
  controller: AbortController;
  /** Cancel, not pause: the file goes. */
  cancelled: boolean;
  progress: OfflineProgress;
  journal: DownloadJournal | null;
  /** Resolved once the download's call has settled (release). */
  settled: Promise<void>;
  settle(): void;
}

const n = (v: number) => v.toLocaleString('en-US');
const PART = /^([0-9a-f]{32})\.mbtiles\.part$/;
const sameSource = (a: MapLayer['source'], b: MapLayer['source']) => JSON.stringify(a) === JSON.stringify(b);

export class OfflineAreas {
  private running: Running | null = null;
  private readonly tiles: OfflineTiles;

  /** `env`: the FURROW_OFFLINE_* settings; `policy`: the tile fetcher's retries (tests shorten them). */
  constructor(private readonly ctx: HostContext, private readonly env: NodeJS.ProcessEnv = {}, private readonly policy: TilePolicy = TILE_POLICY) {
    this.tiles = new OfflineTiles(layersDir(ctx.home));
  }

  private get dir(): string {
    return layersDir(this.ctx.home);
  }

  private settings() {
    return offlineSettings(this.env, { cap: DEFAULT_TILE_CAP, concurrency: DEFAULT_CONCURRENCY });
  }

  private layer(id: string): MapLayer {
    const l = savedLayers(this.ctx).find((x) => x.id === id);
    if (!l) throw new RpcError(ApiErrorCode.notFound, `No layer ${id}: it was removed.`);
    if (l.source.kind !== 'xyz' && l.source.kind !== 'wms' && l.source.kind !== 'wmts') {
      throw new RpcError(RpcCode.invalidArguments, `${l.name} is not an online layer: only XYZ, WMS and WMTS layers can be kept offline.`);
    }
    return l;
  }

  /** The area's boxes: each farm's box with the margin, or the box drawn. */
  private boxes(area: OfflineAreaChoice): Box[] {
    const grown = (farmId: string, margin?: number): Box | null => {
      const e = this.ctx.mirror.read.farmExtent(farmId);
      return e ? withMargin(e, margin ?? DEFAULT_MARGIN_M) : null;
    };
    switch (area.kind) {
      case 'box': {
        const why = boxProblem(area.bbox);
        if (why) throw new RpcError(RpcCode.invalidArguments, why);
        return [[...area.bbox]];
      }
      case 'farm': {
        const f = this.ctx.farm(area.farm);
        const b = grown(f.local_id, area.margin);
        if (!b) throw new RpcError(RpcCode.invalidArguments, `${f.name} has no parcels yet: draw the area on the map instead.`);
        return [b];
      }
      case 'farms': {
        this.ctx.account(area.account);
        const boxes = this.ctx.mirror.read.farms(area.account).map((f) => grown(f.local_id, area.margin)).filter((b): b is Box => b !== null);
        if (!boxes.length) throw new RpcError(RpcCode.invalidArguments, "The account's farms have no parcels yet: draw the area on the map instead.");
        return boxes;
      }
    }
  }

  private plan(req: OfflineRequest): { layer: MapLayer; boxes: Box[]; tiles: number; cap: number; concurrency: number } {
    if (req.minZoom > req.maxZoom) throw new RpcError(RpcCode.invalidArguments, `The zooms run from ${req.minZoom} up to ${req.maxZoom}: choose the lower first.`);
    const layer = this.layer(req.layer);
    const boxes = this.boxes(req.area);
    const { cap, concurrency } = this.settings();
    return { layer, boxes, tiles: countTiles(boxes, req.minZoom, req.maxZoom), cap, concurrency };
  }

  private partPath(file: string): string {
    return join(this.dir, `${file}.mbtiles.part`);
  }

  /**
   * The paused downloads in the folder, each open (the caller closes those it does not keep); on the way, complete
   * ones are published or removed and files that are no download's removed (backend/offline-areas.ts's header).
   */
  private paused(): PartFile[] {
    if (!existsSync(this.dir)) return [];
    const layers = savedLayers(this.ctx);
    const out: PartFile[] = [];
    for (const f of readdirSync(this.dir)) {
      const m = f.match(PART);
      const path = join(this.dir, f);
      if (!m || path === this.running?.path) continue;
      const part = PartFile.open(path);
      if (!part) {
        removePart(path);
        continue;
      }
      const j = part.journal;
      const layer = layers.find((l) => l.id === j.layer);
      if (j.complete) {
        part.close();
        if (layer?.offline?.file === m[1]) publish(path, join(this.dir, `${m[1]}.mbtiles`));
        else removePart(path);
      } else if (!layer || !sameSource(layer.source, j.source)) {
        part.close();
        removePart(path);
      } else out.push(part);
    }
    return out;
  }

  private pausedOf(layer: string): PartFile | null {
    const all = this.paused();
    const mine = all.filter((p) => p.journal.layer === layer);
    for (const p of all) if (p !== mine[0]) p.close();
    // Two for one layer (cannot be made, but a folder can be copied): the first is kept, the others removed.
    for (const p of mine.slice(1)) removePart(p.path);
    return mine[0] ?? null;
  }

  /** Claims the one download slot, synchronously (two calls can never both start). */
  private claim(layer: string): Running {
    if (this.running) {
      const which = this.running.layer === layer ? 'This layer\'s area is already downloading' : `Another layer's area is downloading (${this.running.layer})`;
      throw new RpcError(ApiErrorCode.busy, `${which}: pause it, or wait for it to finish.`);
    }
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => { settle = resolve; });
    const r: Running = {
      layer, path: '', controller: new AbortController(), cancelled: false, progress: { done: 0, total: 0, bytes: 0, failed: 0 }, journal: null, settled, settle,
    };
    this.running = r;
    return r;
  }

  private release(r: Running): void {
    if (this.running === r) this.running = null;
    r.settle();
  }

  /** Runs a download to its end, pause, cancel or early stop; publishes a complete file. */
  private async run(r: Running, part: PartFile, urlOf: TileAddress, call: { signal: AbortSignal; progress(p: OfflineProgress): void }, concurrency: number): Promise<OfflineResult> {
    r.path = part.path;
    r.journal = part.journal;
    const onAbort = () => r.controller.abort();
    call.signal.addEventListener('abort', onAbort, { once: true });
    if (call.signal.aborted) r.controller.abort();
    let outcome;
    const fetcher = new TileFetcher(r.controller.signal, this.policy);
    // The tiles are committed on a thread of their own: this thread goes on answering the page and drawing the map.
    const writer = new PartWriter(part.path);
    try {
      try {
        await writer.ready;
        outcome = await runDownload(part, urlOf, fetcher, r.controller.signal, { concurrency, sink: writer, onProgress: (p) => { r.progress = p; call.progress(p); } });
      } finally {
        await writer.close();
      }
    } catch (err) {
      const at = r.progress;
      part.close();
      if (diskFull(err, this.dir)) {
        throw new RpcError(ApiErrorCode.diskFull, `The disk holding the app's data is full: the download is paused at ${n(at.done)} of ${n(at.total)} tiles. Free space there, then Resume.`);
      }
      if (/^SQLITE_(CORRUPT|NOTADB)/.test(String((err as { code?: unknown }).code))) {
        removePart(part.path);
        throw new RpcError(ApiErrorCode.notFound, "The download's file was damaged (the computer lost power mid-way?): it was removed. Download the area again.");
      }
      throw err;
    } finally {
      call.signal.removeEventListener('abort', onAbort);
      await fetcher.close();
    }
    const at = `${n(outcome.done)} of ${n(outcome.total)} tiles`;
    if (r.controller.signal.aborted && !outcome.stopped) {
      part.close();
      if (r.cancelled) {
        removePart(part.path);
        throw new RpcError(RpcCode.cancelled, `Cancelled at ${at}: what was downloaded is removed.`);
      }
      throw new RpcError(RpcCode.cancelled, `Paused at ${at}: Resume goes on from there.`);
    }
    if (outcome.stopped) {
      part.close();
      throw new RpcError(ApiErrorCode.sourceUnavailable, `The download stopped at ${at}: tiles failed one after another (the last: ${outcome.stopped}). Resume once the server answers again.`);
    }
    if (outcome.done < outcome.total) {
      part.close();
      return { ...outcome, offline: null };
    }
    return { ...outcome, offline: await this.complete(part) };
  }

  /** A complete file (or, `allowMissing`, one lacking only tiles that failed) made the layer's area (see the header). */
  private async complete(part: PartFile, allowMissing = false): Promise<OfflineArea> {
    const j = part.journal;
    const file = part.path.slice(this.dir.length + 1).match(PART)![1]!;
    const { tiles, missing, empty } = part.finish({ allowMissing });
    const area: OfflineArea = {
      file, bbox: j.bbox, minZoom: j.minZoom, maxZoom: j.maxZoom, tiles, updated: new Date().toISOString(), ...(missing ? { missing } : {}), ...(empty ? { empty } : {}),
    };
    const outcome = await this.ctx.jobs.write(() => {
      const layers = savedLayers(this.ctx);
      const l = layers.find((x) => x.id === j.layer);
      if (!l || !sameSource(l.source, j.source)) return { gone: true as const };
      keepLayers(this.ctx, layers.map((x) => (x.id === j.layer ? { ...x, offline: area } : x)));
      return { gone: false as const, previous: l.offline?.file };
    });
    if (outcome.gone) {
      removePart(part.path);
      throw new RpcError(ApiErrorCode.notFound, 'The layer was removed or changed while its area downloaded: nothing was kept.');
    }
    publish(part.path, join(this.dir, `${file}.mbtiles`));
    if (outcome.previous && outcome.previous !== file) this.dropFiles([outcome.previous]);
    return area;
  }

  /** Removes the files of areas no layer has any more (a layer removed or changed, an area deleted or replaced). */
  dropFiles(files: readonly string[]): void {
    this.tiles.drop(files);
  }

  /** Downloads `boxes` of `layer` at zooms z0..z1 (a paused download of the same ask goes on; another is replaced). */
  private async download(
    layer: MapLayer, boxes: Box[], z0: number, z1: number, p: { tiles: number; cap: number; concurrency: number },
    call: { signal: AbortSignal; progress(p: OfflineProgress): void },
  ): Promise<OfflineResult> {
    const problem = tileCapProblem(boxes, z0, z1, p.tiles, p.cap);
    if (problem) throw new RpcError(ApiErrorCode.tooLarge, problem, { tiles: p.tiles, cap: p.cap });
    const r = this.claim(layer.id);
    try {
      const urlOf = await tileAddresses(layer, z0, z1);
      const journal: DownloadJournal = {
        layer: layer.id, source: layer.source, name: layer.name, ...(layer.attribution ? { attribution: layer.attribution } : {}),
        boxes, bbox: enclosing(boxes as LonLatBox[])!, minZoom: z0, maxZoom: z1, total: p.tiles, started: new Date().toISOString(),
      };
      let part = this.pausedOf(layer.id);
      const same = (a: DownloadJournal, b: DownloadJournal) => JSON.stringify([a.source, a.boxes, a.minZoom, a.maxZoom]) === JSON.stringify([b.source, b.boxes, b.minZoom, b.maxZoom]);
      if (part && !same(part.journal, journal)) {
        part.close();
        removePart(part.path);
        part = null;
      }
      if (!part) {
        ensurePrivateDir(this.dir);
        part = PartFile.create(this.partPath(randomBytes(16).toString('hex')), journal);
      }
      return await this.run(r, part, urlOf, call, p.concurrency);
    } finally {
      this.release(r);
    }
  }

  handlers(): Omit<Handlers, 'offlineTiles'> {
    return {
      offlineEstimate: async (req) => {
        const p = this.plan(req);
        const problem = tileCapProblem(p.boxes, req.minZoom, req.maxZoom, p.tiles, p.cap);
        if (problem) return { tiles: p.tiles, bytesEstimate: null, sampled: 0, cap: p.cap, problem, sampleProblem: null };
        const urlOf = await tileAddresses(p.layer, req.minZoom, req.maxZoom);
        const e = await estimateBytes(p.boxes, req.minZoom, req.maxZoom, urlOf, this.policy);
        return { tiles: p.tiles, cap: p.cap, problem: null, ...e };
      },
      offlineDownload: async (req, call) => {
        const p = this.plan(req);
        return this.download(p.layer, p.boxes, req.minZoom, req.maxZoom, p, call);
      },
      offlineUpdate: async ({ layer }, call) => {
        const l = this.layer(layer);
        const j = l.offline ? PartFile.journalOf(join(this.dir, `${l.offline.file}.mbtiles`)) : null;
        if (!l.offline || !j) throw new RpcError(ApiErrorCode.notFound, `${l.name} has no area kept offline to update: choose one.`);
        const { cap, concurrency } = this.settings();
        return this.download(l, j.boxes, j.minZoom, j.maxZoom, { tiles: countTiles(j.boxes, j.minZoom, j.maxZoom), cap, concurrency }, call);
      },
      offlineResume: async ({ layer }, call) => {
        const r = this.claim(layer);
        try {
          const part = this.pausedOf(layer);
          if (!part) throw new RpcError(ApiErrorCode.notFound, 'No paused download of this layer: download its area again.');
          const j = part.journal;
          let urlOf: TileAddress;
          try {
            urlOf = await tileAddresses(this.layer(layer), j.minZoom, j.maxZoom);
          } catch (err) {
            part.close();
            throw err;
          }
          return await this.run(r, part, urlOf, call, this.settings().concurrency);
        } finally {
          this.release(r);
        }
      },
      offlineKeepPartial: async ({ layer }) => {
        const r = this.claim(layer);
        try {
          const part = this.pausedOf(layer);
          if (!part) throw new RpcError(ApiErrorCode.notFound, 'No paused download of this layer: download its area again.');
          const c = part.counts();
          const left = part.journal.total - c.tiles - c.empty - c.failed;
          if (left > 0) {
            part.close();
            throw new RpcError(RpcCode.invalidArguments, `${n(left)} tiles of this area were not tried yet: Resume, then keep the area without the tiles that fail.`);
          }
          const offline = await this.complete(part, true);
          return { done: c.tiles + c.empty, total: part.journal.total, bytes: c.bytes, failed: c.failed, offline };
        } finally {
          this.release(r);
        }
      },
      offlineCancel: async ({ layer }) => {
        const r = this.running;
        if (r?.layer === layer) {
          r.cancelled = true;
          r.controller.abort();
          await r.settled;
        }
        const part = this.pausedOf(layer);
        if (part) {
          part.close();
          removePart(part.path);
        }
        return null;
      },
      offlineDelete: async ({ layer }) => {
        const previous = await this.ctx.jobs.write(() => {
          const layers = savedLayers(this.ctx);
          const l = layers.find((x) => x.id === layer);
          if (!l?.offline) return null;
          keepLayers(this.ctx, layers.map((x) => (x.id === layer ? (({ offline: _gone, ...rest }) => rest)(x) : x)));
          return l.offline.file;
        });
        if (previous) this.dropFiles([previous]);
        return null;
      },
      offlineDownloads: () => {
        const out: OfflineDownload[] = [];
        const r = this.running;
        if (r?.journal) out.push({ layer: r.layer, state: 'running', ...r.progress, bbox: r.journal.bbox, minZoom: r.journal.minZoom, maxZoom: r.journal.maxZoom });
        for (const part of this.paused()) {
          const j = part.journal;
          const c = part.counts();
          part.close();
          out.push({ layer: j.layer, state: 'paused', done: c.tiles + c.empty, total: j.total, bytes: c.bytes, failed: c.failed, bbox: j.bbox, minZoom: j.minZoom, maxZoom: j.maxZoom });
        }
        return out;
      },
    };
  }

  /** offlineTiles for a page session whose byte resources are `scope`; none (the CLI, the parent's channel): refused. */
  tileHandlers(scope: ByteSession | null): Pick<Handlers, 'offlineTiles'> {
    return {
      offlineTiles: ({ layer }) => {
        if (!scope) throw new RpcError(RpcCode.forbidden, "'offlineTiles' is for the app's page");
        const file = savedLayers(this.ctx).find((l) => l.id === layer)?.offline?.file;
        return file ? { template: this.tiles.template(scope, file) } : null;
      },
    };
  }

  /** The host stops: a download running is paused (what it wrote stays), the files read are closed. */
  close(): void {
    this.running?.controller.abort();
    this.tiles.close();
  }
}
