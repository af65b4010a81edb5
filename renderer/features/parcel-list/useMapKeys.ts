// The map without a pointer: with the map focused, ] and [ select the next and previous parcel in view (reading
// order, cycle.ts) — shown selected on the map, in the list and in the side panel, and said in words — and Enter
// takes the focus to the selected parcel's panel. Only while browsing: drawing and modifying have keys of their own.
import { useEffect, type RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import type VectorSource from 'ol/source/Vector.js';
import { getCenter } from 'ol/extent.js';
import { set, useApp } from '../../store.ts';
import { hectares, stateLabel } from '../../states.ts';
import { cycleParcels, readingOrder, type InView } from './cycle.ts';
import { sayOnMap } from './parcel-list-store.ts';

/** Centres this many pixels apart north–south still read as one row. */
const ROW_PX = 24;

export function useMapKeys(map: RefObject<OlMap | null>, parcels: VectorSource) {
  const mode = useApp((s) => s.mode);
  useEffect(() => {
    const m = map.current;
    const el = m?.getTargetElement();
    if (!m || !el || mode !== 'browse') return;
    const onKey = (e: KeyboardEvent) => {
      // The map's own element only: a key in a popup or a control on the map is that control's.
      if (e.target !== el || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === '[' || e.key === ']') {
        e.preventDefault();
        const size = m.getSize();
        if (!size) return;
        const items: InView[] = parcels.getFeaturesInExtent(m.getView().calculateExtent(size)).map((f) => {
          const [x, y] = getCenter(f.getGeometry()!.getExtent());
          return { id: String(f.getId()), x: x!, y: y! };
        });
        const tolerance = (m.getView().getResolution() ?? 0) * ROW_PX;
        const id = cycleParcels(items, useApp.getState().selectedId, e.key === ']' ? 1 : -1, tolerance);
        if (!id) {
          sayOnMap('No parcel in view: zoom out, or choose one in the list of parcels.');
          return;
        }
        set({ selectedId: id });
        const f = parcels.getFeatureById(id)!;
        const at = readingOrder(items, tolerance).findIndex((p) => p.id === id);
        sayOnMap(`${String(f.get('name'))}, ${hectares(Number(f.get('hectares')))}, ${stateLabel(String(f.get('state')))}: ${at + 1} of ${items.length} in view. Enter opens it.`);
      } else if (e.key === 'Enter' && useApp.getState().selectedId) {
        e.preventDefault();
        document.querySelector<HTMLElement>('.side .panel')?.focus();
      }
    };
    el.addEventListener('keydown', onKey);
    return () => el.removeEventListener('keydown', onKey);
  }, [map, parcels, mode]);
}
