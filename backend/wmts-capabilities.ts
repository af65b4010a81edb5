// What the host needs of a WMTS layer to download its tiles, read from the service's capabilities document with
// @xmldom/xmldom: the layer's style (the default one), an image format, its REST tile template (ResourceURL) or the
// service's GetTile KVP address, its dimensions' defaults, and the tile matrix set it names — which must be Web
// Mercator's pyramid (core/tiles/wmts-grid.ts). Every way a document can fall short is a sentence.
import { DOMParser, type Element, type Node } from '@xmldom/xmldom';
import type { WmtsTileEndpoint } from '../core/tiles/tile-urls.ts';
import { webMercatorMatrices, type TileMatrixInfo } from '../core/tiles/wmts-grid.ts';

const ELEMENT = 1;

const children = (el: Element | null | undefined, name: string): Element[] => {
  const out: Element[] = [];
  if (!el) return out;
  for (let n: Node | null = el.firstChild; n; n = n.nextSibling) if (n.nodeType === ELEMENT && (n as Element).localName === name) out.push(n as Element);
  return out;
};
const child = (el: Element | null | undefined, name: string): Element | undefined => children(el, name)[0];
const text = (el: Element | null | undefined): string => (el?.textContent ?? '').trim();
const numbers = (s: string): number[] => s.split(/\s+/).filter(Boolean).map(Number);

const IMAGE_FORMATS = ['image/png', 'image/jpeg', 'image/webp'];

/** The tile endpoint of `layer` in `matrixSet`, or why it cannot be downloaded. */
export function wmtsEndpoint(xml: string, layer: string, matrixSet: string): WmtsTileEndpoint | { problem: string } {
  let root: Element | null;
  try {
    root = new DOMParser({ onError: () => undefined }).parseFromString(xml, 'text/xml').documentElement;
  } catch {
    root = null;
  }
  if (!root || root.localName !== 'Capabilities') return { problem: 'The WMTS capabilities document could not be read.' };
  const contents = child(root, 'Contents');
  const l = children(contents, 'Layer').find((e) => text(child(e, 'Identifier')) === layer);
  if (!l) return { problem: `The WMTS service has no layer ${layer} any more.` };
  if (!children(l, 'TileMatrixSetLink').some((k) => text(child(k, 'TileMatrixSet')) === matrixSet)) {
    return { problem: `The WMTS layer ${layer} is not offered in the tile matrix set ${matrixSet}.` };
  }
  const setEl = children(contents, 'TileMatrixSet').find((e) => text(child(e, 'Identifier')) === matrixSet);
  if (!setEl) return { problem: `The WMTS service does not describe its tile matrix set ${matrixSet}.` };
  const matrices: TileMatrixInfo[] = children(setEl, 'TileMatrix').map((m) => {
    const [x, y] = numbers(text(child(m, 'TopLeftCorner')));
    return {
      id: text(child(m, 'Identifier')), scaleDenominator: Number(text(child(m, 'ScaleDenominator'))), topLeft: [x ?? NaN, y ?? NaN],
      tileWidth: Number(text(child(m, 'TileWidth'))), tileHeight: Number(text(child(m, 'TileHeight'))),
    };
  });
  const grid = webMercatorMatrices({ id: matrixSet, crs: text(child(setEl, 'SupportedCRS')), matrices });
  if ('problem' in grid) return grid;

  const formats = children(l, 'Format').map(text);
  const resources = children(l, 'ResourceURL').filter((r) => r.getAttribute('resourceType') === 'tile');
  const format = IMAGE_FORMATS.find((f) => formats.includes(f) || resources.some((r) => r.getAttribute('format') === f));
  if (!format) return { problem: `The WMTS layer ${layer} offers no image format the map shows (PNG, JPEG or WebP).` };
  const styles = children(l, 'Style');
  const style = text(child(styles.find((s) => s.getAttribute('isDefault') === 'true') ?? styles[0], 'Identifier')) || 'default';
  const dimensions: Record<string, string> = {};
  for (const d of children(l, 'Dimension')) {
    const id = text(child(d, 'Identifier'));
    const def = text(child(d, 'Default')) || text(child(d, 'Value'));
    if (id) dimensions[id] = def;
  }
  const template = resources.find((r) => r.getAttribute('format') === format)?.getAttribute('template') ?? undefined;
  const kvp = template ? undefined : getTileKvp(root);
  if (!template && !kvp) return { problem: `The WMTS service gives no address for the tiles of ${layer}.` };
  return { layer, style, format, matrixSet, matrices: grid.matrices, dimensions, ...(template ? { template } : { kvp }) };
}

/** The GetTile operation's KVP address (ows:OperationsMetadata), when the service offers KVP. */
function getTileKvp(root: Element): string | undefined {
  const op = children(child(root, 'OperationsMetadata'), 'Operation').find((o) => o.getAttribute('name') === 'GetTile');
  for (const dcp of children(op, 'DCP')) {
    for (const get of children(child(dcp, 'HTTP'), 'Get')) {
      const encodings = children(get, 'Constraint').filter((c) => c.getAttribute('name') === 'GetEncoding')
        .flatMap((c) => children(child(c, 'AllowedValues'), 'Value').map(text));
      const href = get.getAttribute('xlink:href') ?? get.getAttributeNS('http://www.w3.org/1999/xlink', 'href');
      if (href && (encodings.length === 0 || encodings.includes('KVP'))) return href;
    }
  }
  return undefined;
}
