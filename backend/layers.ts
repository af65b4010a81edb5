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
import { savedLayerFiles } from './layer-file-handlers.ts';
import type { HostContext } from './context.ts';

/** The most the layers may take, as JSON. */
export const MAX_LAYERS_BYTES = 64 * 1024;

/** The host's folder of layer files (core/api-layers.ts LayerFileId): FURROW_HOME/layers. */
export const layersDir = (home: string): string => join(home, 'layers');

/** Whether the host keeps a file of that id (FURROW_HOME/layers/<id>.<ext>). */
function hasLayerFile(home: string, id: string): boolean {
  const dir = layersDir(home);
  return existsSync(dir) && readdirSync(dir).some((f) => f.startsWith(`${id}.`) && !f.endsWith('.part'));
}

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

export function layerHandlers(ctx: HostContext): HandlersOf<typeof LAYERS_API> {
  return {
    layers: () => {
      const json = ctx.mirror.write.mapLayers();
      if (json === null) {
        const first = firstLayers(ctx);
        // Kept at once: the page no longer writes the view's basemap, so the next start would not find it there.
        if (first.length === 1) return { layers: first };
        return ctx.jobs.write(() => {
          ctx.mirror.write.setMapLayers(JSON.stringify(first));
          return { layers: first };
        });
      }
      try {
        const v: unknown = JSON.parse(json);
        if (Value.Check(MapLayers, v) && layersProblem(v) === null) return { layers: v };
      } catch {
        // below
      }
      return { layers: [worldLayer()] };
    },
    saveLayers: ({ layers }) => {
      const why = layersProblem(layers);
      if (why) return Promise.reject(new RpcError(RpcCode.invalidArguments, why));
      for (const l of layers) {
        if (l.source.kind === 'file' && !hasLayerFile(ctx.home, l.source.file)) {
          return Promise.reject(new RpcError(RpcCode.invalidArguments, `${l.name}: its file is no longer kept here; add it again.`));
        }
      }
      const json = JSON.stringify(layers);
      if (json.length > MAX_LAYERS_BYTES) {
        return Promise.reject(new RpcError(RpcCode.invalidArguments, `The layers take ${json.length.toLocaleString('en-US')} characters: at most ${MAX_LAYERS_BYTES.toLocaleString('en-US')} are kept`));
      }
      return ctx.jobs.write(() => {
        const before = savedLayerFiles(ctx.mirror);
        ctx.mirror.write.setMapLayers(json);
        // A layer removed takes its file with it (a file added and not yet saved is not the list's: kept).
        const after = savedLayerFiles(ctx.mirror);
        for (const f of before) if (!after.has(f)) ctx.layerFiles.remove(f);
        return null;
      });
    },
    onlineCapabilities: ({ url }) => capabilities(url, join(layersDir(ctx.home), 'capabilities')),
  };
}
