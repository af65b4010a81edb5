// The position on the map (issue 31): a marker with its accuracy circle (metres on the ground: a geodesic circle,
// not pixels), an arrow for the heading while moving, drawn plainly differently when stale (grey) or without a fix
// (hollow, dashed); the walk under way as a line through its points; and follow mode, the view kept on the position
// until the user pans (a drag or the arrow keys), restarted by the button or F. The layer is added in an effect and
// removed in its cleanup; the store holds plain data only (position-store.ts).
import { useEffect, type RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import Feature from 'ol/Feature.js';
import VectorLayer from 'ol/layer/Vector.js';
import VectorSource from 'ol/source/Vector.js';
import Point from 'ol/geom/Point.js';
import LineString from 'ol/geom/LineString.js';
import { circular } from 'ol/geom/Polygon.js';
import { Circle, Fill, RegularShape, Stroke, Style } from 'ol/style.js';
import { fromLonLat } from 'ol/proj.js';
import { unByKey } from 'ol/Observable.js';
import type { Fix } from '../../../core/api.ts';
import { fixKind, moving, type FixKind } from './position-words.ts';
import { setPosition, usePosition } from './position-store.ts';

const LIVE = '#1565c0';
const STALE = '#78808a';

function markerStyles(kind: FixKind, fix: Fix): Style[] {
  const color = kind === 'live' ? LIVE : STALE;
  if (kind === 'no-fix') {
    // No fix: where the receiver last was, hollow and dashed, no accuracy (it has none).
    return [new Style({ image: new Circle({ radius: 9, fill: new Fill({ color: '#ffffffcc' }), stroke: new Stroke({ color: '#b71c1c', width: 2, lineDash: [4, 3] }) }) })];
  }
  const styles = [new Style({ image: new Circle({ radius: 7, fill: new Fill({ color }), stroke: new Stroke({ color: '#fff', width: 2.5 }) }), zIndex: 2 })];
  if (kind === 'live' && moving(fix)) {
    styles.push(new Style({
      image: new RegularShape({ points: 3, radius: 7, fill: new Fill({ color }), stroke: new Stroke({ color: '#fff', width: 1.5 }), rotation: (fix.heading! * Math.PI) / 180, displacement: [0, 0] }),
      geometry: (f) => {
        // The arrow 16 px ahead of the marker along the heading, whatever the zoom.
        const g = f.getGeometry() as Point;
        const r = (fix.heading! * Math.PI) / 180;
        const res = (f.get('resolution') as number | undefined) ?? 1;
        const [x, y] = g.getCoordinates();
        return new Point([x! + Math.sin(r) * 16 * res, y! + Math.cos(r) * 16 * res]);
      },
      zIndex: 3,
    }));
  }
  return styles;
}

const ACCURACY_LIVE = new Style({ fill: new Fill({ color: '#1565c022' }), stroke: new Stroke({ color: '#1565c0aa', width: 1 }) });
const ACCURACY_STALE = new Style({ fill: new Fill({ color: '#78808a1a' }), stroke: new Stroke({ color: '#78808a99', width: 1, lineDash: [4, 4] }) });
const TRACK = [
  new Style({ stroke: new Stroke({ color: '#ffffff', width: 5 }) }),
  new Style({ stroke: new Stroke({ color: '#e65100', width: 2.5 }) }),
];

/**
 * Whether the position has left the middle of the view (its central half each way). Follow re-centres only then: a
 * re-centre at every fix (5-10 a second) moved the map as often, and each move asked for the parcels in view again,
 * every answer dropped for the next view's, so the parcels never showed while following.
 */
function outsideMiddle(m: OlMap, at: number[]): boolean {
  const size = m.getSize();
  const px = m.getPixelFromCoordinate(at);
  if (!size || !px) return true;
  const [w, h] = size as [number, number];
  return px[0]! < w / 4 || px[0]! > (3 * w) / 4 || px[1]! < h / 4 || px[1]! > (3 * h) / 4;
}

export function usePositionLayer(map: RefObject<OlMap | null>): void {
  useEffect(() => {
    const m = map.current;
    if (!m) return;
    const source = new VectorSource();
    const accuracy = new Feature();
    const marker = new Feature();
    const track = new Feature();
    track.setStyle(TRACK);
    source.addFeatures([track, accuracy, marker]);
    const layer = new VectorLayer({ source, zIndex: 20, updateWhileAnimating: true, updateWhileInteracting: true });
    const target = m.getTargetElement();
    let drawnFix: Fix | null = null;
    // Tells the page's tests and the latency bench (bench/position-marker.ts) which fix is drawn, once it is.
    const postrender = layer.on('postrender', () => {
      if (!target || !drawnFix) return;
      if (target.getAttribute('data-position-time') !== drawnFix.time) {
        target.setAttribute('data-position-time', drawnFix.time);
        target.setAttribute('data-position-drawn', String(Date.now()));
      }
    });

    let following = false; // a move the follow made, not the user's
    let recentre = true; // follow just began: centre on the position at once
    const draw = () => {
      const { state, follow, track: walk } = usePosition.getState();
      const fix = state?.fix ?? null;
      const kind = fixKind(fix, Date.now());
      target?.setAttribute('data-position-kind', kind);
      if (!fix || kind === 'none') {
        marker.setGeometry(undefined);
        accuracy.setGeometry(undefined);
        drawnFix = null;
      } else {
        const at = fromLonLat([fix.lon, fix.lat]);
        marker.setGeometry(new Point(at));
        marker.set('resolution', m.getView().getResolution(), true);
        marker.setStyle(markerStyles(kind, fix));
        if (fix.accuracy !== null && fix.accuracy > 0 && kind !== 'no-fix') {
          accuracy.setGeometry(circular([fix.lon, fix.lat], fix.accuracy, 64).transform('EPSG:4326', 'EPSG:3857'));
          accuracy.setStyle(kind === 'live' ? ACCURACY_LIVE : ACCURACY_STALE);
        } else accuracy.setGeometry(undefined);
        drawnFix = fix;
        if (follow && kind === 'live' && (recentre || outsideMiddle(m, at))) {
          following = true;
          m.getView().setCenter(at);
          following = false;
        }
        recentre = false;
      }
      const pts = walk?.points ?? [];
      track.setGeometry(pts.length >= 2 ? new LineString(pts.map((p) => fromLonLat([p.lon, p.lat]))) : undefined);
      layer.changed();
    };
    draw();
    const unsub = usePosition.subscribe((s, prev) => {
      if (s.follow && !prev.follow) recentre = true;
      if (s.state !== prev.state || s.track !== prev.track || recentre) draw();
    });
    // Live becomes stale with no event: the marker is looked at again every second.
    const tick = setInterval(() => { if (usePosition.getState().state?.fix) draw(); }, 1000);
    const res = m.getView().on('change:resolution', () => marker.set('resolution', m.getView().getResolution(), true));
    // The user pans: follow stops (a zoom keeps it: the wheel zooms about the pointer, but the next fix re-centres).
    const drag = m.on('pointerdrag', () => { if (usePosition.getState().follow) setPosition({ follow: false }); });
    const onKey = (e: KeyboardEvent) => {
      if (e.key.startsWith('Arrow') && e.target === target && usePosition.getState().follow && !following) setPosition({ follow: false });
    };
    target?.addEventListener('keydown', onKey);
    m.addLayer(layer);
    return () => {
      target?.removeEventListener('keydown', onKey);
      target?.removeAttribute('data-position-kind');
      target?.removeAttribute('data-position-time');
      target?.removeAttribute('data-position-drawn');
      unsub();
      clearInterval(tick);
      unByKey([postrender, res, drag]);
      m.removeLayer(layer);
    };
  }, [map]);
}
