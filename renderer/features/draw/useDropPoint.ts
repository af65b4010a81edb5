// Dropping a hectare point (P): a click places the point, or moves it; its position may also be typed in the panel
// (features/coordinates/VertexEntry.tsx PointAt). Esc leaves, once out of the hectares field. The point's square is
// shown by the draft layer (useDraftLayer.ts). Added in an effect, removed in its cleanup.
import { useEffect, type RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import { unByKey } from 'ol/Observable.js';
import { fromLonLat, toLonLat } from 'ol/proj.js';
import { set, useApp, type Position2 } from '../../store.ts';
import { escapeDiscards } from './draw-keys.ts';
import { showCoordinate } from './typed-vertices.ts';

export function useDropPoint(map: RefObject<OlMap | null>): void {
  const mode = useApp((s) => s.mode);

  useEffect(() => {
    const m = map.current;
    if (!m || mode !== 'point') return;
    // A click made before P was pressed, told late (OpenLayers waits 250 ms for a double-click), places nothing.
    const since = performance.now();
    const key = m.on('singleclick', (e) => { if (e.originalEvent.timeStamp >= since) set({ point: toLonLat(e.coordinate) as Position2 }); });
    // A point placed by its typed position is brought into view.
    const typed = useApp.subscribe((s, prev) => { if (s.point && s.point !== prev.point) showCoordinate(m, fromLonLat(s.point)); });
    document.addEventListener('keydown', escapeDiscards);
    return () => { typed(); unByKey(key); document.removeEventListener('keydown', escapeDiscards); };
  }, [map, mode]);
}
