// The address of each tile of an online layer, as the host builds them from the layer as it keeps it (never from an
// address the page sends): an XYZ template filled in, a WMS GetMap per tile, a WMTS tile from the service's
// capabilities (fetched here, through backend/capabilities.ts's rules). Only layers the layers' rules accept, and
// every address checked again before it is fetched (backend/tile-fetcher.ts).
import { RpcCode, RpcError } from '../core/rpc.ts';
import { ApiErrorCode } from '../core/api-codes.ts';
import type { MapLayer } from '../core/api-layers.ts';
import { layerProblem } from '../core/layers/layer-rules.ts';
import { wmsTileUrl, wmtsTileUrl, xyzTemplate } from '../core/tiles/tile-urls.ts';
import type { TileCoord } from '../core/tiles/tile-math.ts';
import { fetchCapabilities } from './capabilities.ts';

export type TileAddress = (t: TileCoord) => string | null;

/** The layer's tile addresses for zooms minZoom..maxZoom, or a refusal saying why it cannot be downloaded. */
export async function tileAddresses(layer: MapLayer, minZoom: number, maxZoom: number): Promise<TileAddress> {
  const why = layerProblem(layer);
  if (why) throw new RpcError(RpcCode.invalidArguments, `${layer.name}: ${why}`);
  const s = layer.source;
  switch (s.kind) {
    case 'xyz': {
      const url = xyzTemplate(s.url);
      return (t) => url(t.z, t.x, t.y);
    }
    case 'wms': return (t) => wmsTileUrl(s, t.z, t.x, t.y);
    case 'wmts': {
      const caps = await fetchCapabilities(s.capabilities);
      // Loaded when a WMTS layer is first read: its XML parser is no part of the host's start-up.
      const { wmtsEndpoint } = await import('./wmts-capabilities.ts');
      const e = wmtsEndpoint(caps.text, s.layer, s.matrixSet);
      if ('problem' in e) throw new RpcError(ApiErrorCode.sourceUnavailable, e.problem);
      // Relative addresses in the document are the document's own.
      if (e.template) e.template = new URL(e.template.replace(/\{/g, '%7B').replace(/\}/g, '%7D'), caps.url).href.replace(/%7B/gi, '{').replace(/%7D/gi, '}');
      if (e.kvp) e.kvp = new URL(e.kvp, caps.url).href;
      const missing = [];
      for (let z = minZoom; z <= maxZoom; z++) if (e.matrices[z] === undefined) missing.push(z);
      if (missing.length) {
        const have = Object.keys(e.matrices).map(Number).sort((a, b) => a - b);
        throw new RpcError(RpcCode.invalidArguments, `${layer.name} has no tiles at zoom${missing.length > 1 ? 's' : ''} ${missing.join(', ')}: its zooms are ${have[0]}–${have[have.length - 1]}.`);
      }
      return (t) => wmtsTileUrl(e, t.z, t.x, t.y);
    }
    default:
      throw new RpcError(RpcCode.invalidArguments, `${layer.name} is not an online layer: only XYZ, WMS and WMTS layers can be kept offline.`);
  }
}
