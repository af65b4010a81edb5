// What the add-a-layer form offers from a service's capabilities, as OpenLayers' parsers read them
// (ol/format/WMSCapabilities, ol/format/WMTSCapabilities: plain objects): the WMS layers that can be drawn (those
// with a Name), the WMTS layers with their tile matrix sets, and the set to choose first — Web Mercator's, the map's
// own projection, so tiles are drawn as they come, not warped.
export interface LayerChoice { id: string; title: string; matrixSets: string[] }

interface WmsLayerNode { Name?: string; Title?: string; Layer?: WmsLayerNode[] }

/** The WMS layers with a Name (a Title alone groups others), depth first, at most `max`. */
export function wmsLayerChoices(parsed: unknown, max = 500): LayerChoice[] {
  const out: LayerChoice[] = [];
  const walk = (n: WmsLayerNode | undefined) => {
    if (!n || out.length >= max) return;
    if (typeof n.Name === 'string' && n.Name) out.push({ id: n.Name, title: typeof n.Title === 'string' && n.Title ? n.Title : n.Name, matrixSets: [] });
    for (const c of Array.isArray(n.Layer) ? n.Layer : []) walk(c);
  };
  walk((parsed as { Capability?: { Layer?: WmsLayerNode } } | null)?.Capability?.Layer);
  return out;
}

interface WmtsContents {
  Layer?: { Identifier?: string; Title?: string; TileMatrixSetLink?: { TileMatrixSet?: string }[] }[];
  TileMatrixSet?: { Identifier?: string; SupportedCRS?: string }[];
}

/** The WMTS layers, each with the matrix sets it is offered in. */
export function wmtsLayerChoices(parsed: unknown, max = 500): LayerChoice[] {
  const layers = (parsed as { Contents?: WmtsContents } | null)?.Contents?.Layer ?? [];
  return layers.slice(0, max).flatMap((l) => (typeof l.Identifier === 'string' && l.Identifier ? [{
    id: l.Identifier, title: typeof l.Title === 'string' && l.Title ? l.Title : l.Identifier,
    matrixSets: (l.TileMatrixSetLink ?? []).map((s) => s.TileMatrixSet).filter((s): s is string => typeof s === 'string' && s.length > 0),
  }] : []));
}

const WEB_MERCATOR = /(EPSG(:|::|\/)(3857|900913|102100|3785)\b)|GoogleMapsCompatible/i;

/** The matrix set to offer first: one in Web Mercator when there is one, else the first. */
export function preferredMatrixSet(parsed: unknown, sets: readonly string[]): string | null {
  const all = (parsed as { Contents?: WmtsContents } | null)?.Contents?.TileMatrixSet ?? [];
  const mercator = sets.find((id) => WEB_MERCATOR.test(id) || WEB_MERCATOR.test(all.find((m) => m.Identifier === id)?.SupportedCRS ?? ''));
  return mercator ?? sets[0] ?? null;
}
