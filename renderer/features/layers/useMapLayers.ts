// The map's layers (features/layers/) on the map: one LayerGroup under everything else, its layers made from the
// store's plain list by buildLayer and kept while their source is the same (an opacity or visibility change, or a new
// order, touches only the OpenLayers layer's own properties, so no tile is fetched again). Added in an effect and
// removed in its cleanup; the store holds no OpenLayers object.
import { useEffect, useRef, type RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import LayerGroup from 'ol/layer/Group.js';
import type BaseLayer from 'ol/layer/Base.js';
import Collection from 'ol/Collection.js';
import type { AppApi } from '../../backend.ts';
import { bytesUrl } from '../../bytes-url.ts';
import { buildLayer, type LayerEnv } from './build-layer.ts';
import { describeFile, keepLayers, layerFailing, useLayers } from './layers-store.ts';

interface Made { key: string; layer: BaseLayer | null }

export function useMapLayers(map: RefObject<OlMap | null>, api: AppApi): void {
  const layers = useLayers((s) => s.layers);
  const group = useRef<LayerGroup | null>(null);
  const made = useRef(new Map<string, Made>());

  // The host's list read, and every change saved.
  useEffect(() => keepLayers(api), [api]);

  // The group, under the parcels, for the map's life.
  useEffect(() => {
    const m = map.current;
    if (!m) return;
    const g = new LayerGroup({ properties: { name: 'layers' } });
    m.getLayers().insertAt(0, g);
    group.current = g;
    const mine = made.current;
    return () => {
      m.removeLayer(g);
      for (const { layer } of mine.values()) layer?.dispose();
      mine.clear();
      group.current = null;
    };
  }, [map]);

  useEffect(() => {
    const g = group.current;
    if (!g) return;
    const env: LayerEnv = { api, bytesUrl, failing: layerFailing, described: describeFile };
    const now = new Map<string, Made>();
    for (const l of layers) {
      const key = JSON.stringify([l.source, l.offline ?? null, l.attribution ?? null]);
      const before = made.current.get(l.id);
      const entry = before && before.key === key ? before : { key, layer: buildLayer(l, env) };
      if (before && before !== entry) before.layer?.dispose();
      entry.layer?.setVisible(l.visible);
      entry.layer?.setOpacity(l.opacity);
      now.set(l.id, entry);
    }
    for (const [id, { layer }] of made.current) if (!now.has(id)) layer?.dispose();
    made.current = now;
    // Bottom to top, as listed.
    g.setLayers(new Collection([...now.values()].flatMap((e) => (e.layer ? [e.layer] : []))));
  }, [api, layers]);
}
