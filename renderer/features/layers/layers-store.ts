// The map's layers as plain data (features/layers/): the list bottom to top as the host keeps it
// (core/api-layers.ts), which of them fail to load now, and whether the panel is open. Every change of the list is
// saved to the host after a moment's quiet; a list the host refuses is said and the host's own list put back.
import { create } from 'zustand';
import type { MapLayer } from '../../../core/api-layers.ts';
import type { LayerFileInfo } from '../../../core/api-layer-files.ts';
import type { AppApi } from '../../backend.ts';
import { say } from '../../store.ts';

export interface LayersState {
  /** Bottom to top, all under the parcels; [] until the host's list is read. */
  layers: MapLayer[];
  /** The host's list has been read (until then nothing is saved). */
  loaded: boolean;
  /** Layers whose last tile or document failed (offline, the server down): the panel marks them. */
  failing: Record<string, string>;
  /** The layers panel is open. */
  open: boolean;
  /** What the host found in each file layer's file, by the file's id (the legend says it): known once asked. */
  files: Record<string, LayerFileInfo>;
}

export const useLayers = create<LayersState>(() => ({ layers: [], loaded: false, failing: {}, open: false, files: {} }));

/** What the host found in a file kept for a layer (when it was added, or when the map read it). */
export function describeFile(info: LayerFileInfo): void {
  if (JSON.stringify(useLayers.getState().files[info.file]) === JSON.stringify(info)) return;
  useLayers.setState((s) => ({ files: { ...s.files, [info.file]: info } }));
}

/** Replaces the list (each edit of the panel makes a new one). */
export function setLayerList(layers: MapLayer[]): void {
  useLayers.setState({ layers });
}

/** Changes one layer. */
export function editLayer(id: string, change: Partial<Omit<MapLayer, 'id' | 'source'>>): void {
  setLayerList(useLayers.getState().layers.map((l) => (l.id === id ? { ...l, ...change } : l)));
}

/** Moves a layer one place up (towards the parcels) or down. */
export function moveLayer(id: string, by: 1 | -1): void {
  const layers = [...useLayers.getState().layers];
  const i = layers.findIndex((l) => l.id === id);
  const j = i + by;
  if (i < 0 || j < 0 || j >= layers.length) return;
  [layers[i], layers[j]] = [layers[j]!, layers[i]!];
  setLayerList(layers);
}

export function removeLayer(id: string): void {
  setLayerList(useLayers.getState().layers.filter((l) => l.id !== id || l.source.kind === 'world'));
}

/** Adds a layer on top of the others (under the parcels). */
export function addLayer(layer: MapLayer): void {
  setLayerList([...useLayers.getState().layers, layer]);
}

/**
 * A layer failing (`why`: what failed, in words) or loading again (null). Said once on the status line when it starts
 * failing, not at every tile: offline, a basemap's every tile fails, and the map goes on without it.
 */
export function layerFailing(id: string, why: string | null): void {
  const { failing, layers } = useLayers.getState();
  if ((failing[id] ?? null) === why) return;
  const next = { ...failing };
  if (why === null) delete next[id];
  else next[id] = why;
  useLayers.setState({ failing: next });
  const layer = layers.find((l) => l.id === id);
  if (why !== null && failing[id] === undefined && layer) say(`${layer.name}: ${why} The map goes on without it.`);
}

/** A new layer id. */
export const newLayerId = (): string => `l-${crypto.randomUUID()}`;

/** How long the list must rest before it is saved (a slider's drag is one write). */
const QUIET_MS = 300;

/** Reads the host's list, then saves every change of it until the answer is called. */
export function keepLayers(api: AppApi): () => void {
  let live = true;
  let last = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const load = () => api.layers({}).then(({ layers }) => {
    if (!live) return;
    last = JSON.stringify(layers);
    useLayers.setState({ layers, loaded: true });
  }, () => {});
  void load();
  const unsubscribe = useLayers.subscribe((s) => {
    if (!s.loaded) return;
    const json = JSON.stringify(s.layers);
    if (json === last) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      last = json;
      api.saveLayers({ layers: s.layers }).catch((err: Error) => {
        say(`The layers could not be kept: ${err.message}`, true);
        void load();
      });
    }, QUIET_MS);
  });
  return () => {
    live = false;
    clearTimeout(timer);
    unsubscribe();
  };
}
