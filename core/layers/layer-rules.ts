// The map's layers' rules, one place for the page (the layers panel says what is wrong as it is typed) and the host
// (which keeps only lists these accept): addresses a page may load images from (core/basemap.ts's: https anywhere,
// plain http from this computer, no user or password), one world backdrop, ids unique, a bounded list. Pure.
import { basemapUrlProblem, isBasemapImageUrl } from '../basemap.ts';

/** The most layers kept: more than any map shows at once. */
export const MAX_LAYERS = 40;

/** The built-in backdrop's id: always in the list (it can be hidden, not removed). */
export const WORLD_LAYER_ID = 'world';

/** What the rules need of a layer (core/api-layers.ts MapLayer). */
export interface LayerLike {
  id: string;
  name: string;
  source: { kind: 'world' } | { kind: 'xyz'; url: string } | { kind: 'wms'; url: string } | { kind: 'wmts'; capabilities: string } | { kind: 'file'; file: string };
}

/** Why a service's address (WMS GetMap, WMTS capabilities) cannot be used, in words, or null when it can. */
export function serviceUrlProblem(url: string): string | null {
  const t = url.trim();
  if (!/^https?:\/\//i.test(t)) return 'The address must start with https:// (or http:// for a server on this computer).';
  let u: URL;
  try {
    u = new URL(t);
  } catch {
    return 'The address is not a valid URL: check it for typing errors.';
  }
  if (u.username || u.password) return 'The address must not hold a user name or password.';
  if (!isBasemapImageUrl(u.href)) return 'Plain http:// is accepted only from this computer (127.0.0.1 or localhost): use the https:// address.';
  return null;
}

/** Why one layer cannot be kept, or null. */
export function layerProblem(l: LayerLike): string | null {
  if (!l.name.trim()) return 'A layer needs a name.';
  switch (l.source.kind) {
    case 'world': return l.id === WORLD_LAYER_ID ? null : `The world backdrop's id is ${WORLD_LAYER_ID}.`;
    case 'xyz': return basemapUrlProblem(l.source.url);
    case 'wms': return serviceUrlProblem(l.source.url);
    case 'wmts': return serviceUrlProblem(l.source.capabilities);
    case 'file': return null;
  }
}

/** Why a list of layers cannot be kept (the first problem, naming its layer), or null. */
export function layersProblem(layers: readonly LayerLike[]): string | null {
  if (layers.length > MAX_LAYERS) return `At most ${MAX_LAYERS} layers are kept; remove some first.`;
  const ids = new Set<string>();
  let worlds = 0;
  for (const l of layers) {
    if (ids.has(l.id)) return `Two layers have the id ${l.id}.`;
    ids.add(l.id);
    if (l.source.kind === 'world') worlds++;
    const why = layerProblem(l);
    if (why) return `${l.name.trim() || l.id}: ${why}`;
  }
  return worlds === 1 ? null : 'The list needs the world backdrop once.';
}

/** The layers of a computer that chose none: the world backdrop, shown. */
export const worldLayer = () => ({
  id: WORLD_LAYER_ID, name: 'World (Natural Earth)', visible: true, opacity: 1, source: { kind: 'world' as const },
  attribution: 'Made with Natural Earth',
});
