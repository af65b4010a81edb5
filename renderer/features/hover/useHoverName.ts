// The name and hectares of the parcel under the pointer, in a tooltip (an ol/Overlay): small parcels have no room
// for a label, and labels are only drawn at field scale. Added in an effect, removed in its cleanup; the text is set
// as text (a name is the user's, never markup).
import { useEffect, useRef, type RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import type { FeatureLike } from 'ol/Feature.js';
import type { Pixel } from 'ol/pixel.js';
import Overlay from 'ol/Overlay.js';
import { unByKey } from 'ol/Observable.js';
import { hectares } from '../../states.ts';

/** `hit`: the parcel at a pixel (MapView passes its parcel layers' own, read when the pointer moves). */
export function useHoverName(map: RefObject<OlMap | null>, hit: (pixel: Pixel) => FeatureLike | null) {
  const hitAt = useRef(hit);
  hitAt.current = hit;
  useEffect(() => {
    const m = map.current;
    if (!m) return;
    const el = document.createElement('div');
    el.className = 'hover-name';
    el.setAttribute('role', 'tooltip');
    const o = new Overlay({ element: el, positioning: 'bottom-left', offset: [12, -8], stopEvent: false });
    m.addOverlay(o);
    let shown: unknown = null;
    const key = m.on('pointermove', (e) => {
      if (e.dragging) return;
      const hit = hitAt.current(e.pixel);
      if (!hit) { shown = null; o.setPosition(undefined); return; }
      if (hit !== shown) {
        shown = hit;
        el.textContent = `${String(hit.get('name'))} · ${hectares(Number(hit.get('hectares')))}`;
      }
      o.setPosition(e.coordinate);
    });
    const leave = () => { shown = null; o.setPosition(undefined); };
    const viewport = m.getViewport();
    viewport?.addEventListener('pointerleave', leave);
    return () => {
      unByKey(key);
      viewport?.removeEventListener('pointerleave', leave);
      m.removeOverlay(o);
    };
  }, [map]);
}
