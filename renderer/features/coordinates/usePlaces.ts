// Keeps the places store (places-store.ts) up to date: the map's view after each move, and the box of the farm new
// parcels go to (the backend's farmExtent) when it changes. Listeners added in effects, removed in their cleanup.
import { useEffect, type RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import { unByKey } from 'ol/Observable.js';
import { transformExtent } from 'ol/proj.js';
import { useApi } from '../../context.ts';
import { useApp } from '../../store.ts';
import { usePlacesStore, type LonLatBox } from './places-store.ts';

export function usePlaces(map: RefObject<OlMap | null>): void {
  const api = useApi();
  const farm = useApp((s) => s.farmId);
  const version = useApp((s) => s.version);

  useEffect(() => {
    const m = map.current;
    if (!m) return;
    const read = () => {
      const size = m.getSize();
      if (!size) return;
      const e = transformExtent(m.getView().calculateExtent(size), 'EPSG:3857', 'EPSG:4326');
      usePlacesStore.setState({ view: [Math.max(-180, e[0]!), Math.max(-90, e[1]!), Math.min(180, e[2]!), Math.min(90, e[3]!)] });
    };
    const key = m.on('moveend', read);
    read();
    return () => unByKey(key);
  }, [map]);

  useEffect(() => {
    let live = true;
    if (!farm) { usePlacesStore.setState({ farm: null }); return; }
    api.farmExtent({ farm }).then((box) => { if (live) usePlacesStore.setState({ farm: box as LonLatBox | null }); }, () => {});
    return () => { live = false; };
  }, [api, farm, version]);
}
