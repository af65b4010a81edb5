// The map's layers (core/api-layers.ts), kept on this computer: in the mirror's settings table beside the view's
// choices. A list is kept only if core/layers/layer-rules.ts accepts it and its files are the host's; a list kept
// by an older version or edited by hand is checked again when read, and the world backdrop alone stands in for one
// that fails. A computer that chose an XYZ basemap before layers existed (the view's `basemap`) finds it as a layer.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { RpcCode, RpcError, type HandlersOf } from '../core/rpc.ts';
import { MapLayers, type LAYERS_API, type MapLayer } from '../core/api-layers.ts';
import { layersProblem, worldLayer } from '../core/layers/layer-rules.ts';
import { basemapUrlProblem } from '../core/basemap.ts';
import { capabilities } from './capabilities.ts';
import { LayerProbes } from './layer-probe.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import type { HostContext } from './context.ts';

/** The most the layers may take, as JSON. */
export const MAX_LAYERS_BYTES = 64 * 1024;

/** The host's folder of layer files (core/api-layers.ts LayerFileId): FURROW_HOME/layers. */
export const layersDir = (home: string): string => join(home, 'layers');

/** Whether a file of the layers' folder is one being written (`.part`), or one of SQLite's files beside it. */
export const isPartialLayerFile = (fileName: string): boolean => /\.part(-wal|-shm|-journal)?$/.test(fileName);

/** Whether the host keeps a complete file of that id (FURROW_HOME/layers/<id>.<ext>). */
function hasLayerFile(home: string, id: string): boolean {
  const dir = layersDir(home);
  return existsSync(dir) && readdirSync(dir).some((f) => f.startsWith(`${id}.`) && !isPartialLayerFile(f));
}

/** The layers as kept (checked again: the world backdrop alone stands in for a list that fails). */
export function savedLayers(ctx: HostContext): MapLayer[] {
  const json = ctx.mirror.write.mapLayers();
  if (json === null) return firstLayers(ctx);
  try {
    const v: unknown = JSON.parse(json);
    if (Value.Check(MapLayers, v) && layersProblem(v) === null) return v;
  } catch {
    // below
  }
  return [worldLayer()];
}

/** Keeps a list the rules accepted (synchronous: call it inside ctx.jobs.write). */
export function keepLayers(ctx: HostContext, layers: MapLayer[]): void {
  const json = JSON.stringify(layers);
  if (json.length > MAX_LAYERS_BYTES) {
    throw new RpcError(RpcCode.invalidArguments, `The layers take ${json.length.toLocaleString('en-US')} characters: at most ${MAX_LAYERS_BYTES.toLocaleString('en-US')} are kept`);
  }
  ctx.mirror.write.setMapLayers(json);
}

const sameSource = (a: MapLayer['source'], b: MapLayer['source']): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * A layer's area kept offline is the host's to set (backend/offline-areas.ts, once its file is complete) and to
 * remove: a list the page saves keeps each layer's area as the host has it — whatever `offline` the page sent, a copy
 * it read before a download completed or one it made up — as long as the layer keeps its id and its source. A layer
 * removed, or given another source, loses its area; the files of the areas lost are answered, to be removed.
 */
export function withHostAreas(before: readonly MapLayer[], after: readonly MapLayer[]): { layers: MapLayer[]; dropped: string[] } {
  const kept = new Map(before.filter((l) => l.offline).map((l) => [l.id, l]));
  const layers = after.map((l): MapLayer => {
    const { offline: _sent, ...rest } = l;
    const old = kept.get(l.id);
    return old?.offline && sameSource(old.source, l.source) ? { ...rest, offline: old.offline } : rest;
  });
  const still = new Set(layers.map((l) => l.offline?.file).filter((f) => f !== undefined));
  return { layers, dropped: [...kept.values()].map((l) => l.offline!.file).filter((f) => !still.has(f)) };
}

/** The files file layers read (an area kept offline is backend/offline-areas.ts's to remove). */
const ownFiles = (layers: readonly MapLayer[]): string[] => layers.flatMap((l) => (l.source.kind === 'file' ? [l.source.file] : []));

/** The layers of a computer that kept none: the world backdrop, and the XYZ basemap of the view's choices if any. */
function firstLayers(ctx: HostContext): MapLayer[] {
  const layers: MapLayer[] = [worldLayer()];
  try {
    const view = JSON.parse(ctx.mirror.write.viewSettings() ?? 'null') as { basemap?: unknown } | null;
    const url = view?.basemap;
    if (typeof url === 'string' && url.length <= 2048 && basemapUrlProblem(url) === null) {
      layers.push({ id: 'basemap', name: 'Basemap', visible: true, opacity: 1, source: { kind: 'xyz', url } });
    }
  } catch {
    // unreadable view choices: the backdrop alone
  }
  return layers;
}

/** `areasDropped`: told the files of areas kept offline that a saved list no longer has (backend/offline-areas.ts removes them). */
export function layerHandlers(ctx: HostContext, areasDropped: (files: string[]) => void = () => {}): HandlersOf<typeof LAYERS_API> {
  const probes = new LayerProbes();
  return {
    layers: () => {
      if (ctx.mirror.write.mapLayers() === null) {
        const first = firstLayers(ctx);
        // Kept at once: the page no longer writes the view's basemap, so the next start would not find it there.
        if (first.length === 1) return { layers: first };
        return ctx.jobs.write(() => {
          ctx.mirror.write.setMapLayers(JSON.stringify(first));
          return { layers: first };
        });
      }
      return { layers: savedLayers(ctx) };
    },
    saveLayers: async ({ layers }) => {
      const why = layersProblem(layers);
      if (why) throw new RpcError(RpcCode.invalidArguments, why);
      for (const l of layers) {
        if (l.source.kind === 'file' && !hasLayerFile(ctx.home, l.source.file)) {
          throw new RpcError(RpcCode.invalidArguments, `${l.name}: its file is no longer kept here; add it again.`);
        }
      }
      const dropped = await ctx.jobs.write(() => {
        const before = savedLayers(ctx);
        const next = withHostAreas(before, layers);
        keepLayers(ctx, next.layers);
        // A file layer removed takes its file with it (one added and not yet saved is no list's: kept).
        const still = new Set(ownFiles(next.layers));
        for (const f of ownFiles(before)) if (!still.has(f)) ctx.layerFiles.remove(f);
        return next.dropped;
      });
      if (dropped.length) areasDropped(dropped);
      return null;
    },
    onlineCapabilities: ({ url }) => capabilities(url, join(layersDir(ctx.home), 'capabilities')),
    layerProbe: async ({ layer, z, x, y }) => {
      const l = savedLayers(ctx).find((m) => m.id === layer);
      if (!l) throw new RpcError(ApiErrorCode.notFound, 'There is no such layer.');
      return probes.probe(l, z, x, y);
    },
  };
}
