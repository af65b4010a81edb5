// window.__furrowEmbed: read-only views of the map's state for the tests and the benchmark (types.ts, EmbedHook).
import type Feature from 'ol/Feature.js';
import type Polygon from 'ol/geom/Polygon.js';
import { getCenter } from 'ol/extent.js';
import { toLonLat, transformExtent } from 'ol/proj.js';
import { categoryColor } from './colors.ts';
import { cropCategory, type ParcelMap } from './map.ts';
import type { CurrentCrop, EmbedHook, Timings } from './types.ts';

export interface HookState { pm?: ParcelMap; selected: Feature | null }

const nameOf = (f: Feature): string => String(f.get('name'));

export function createHook(ready: Promise<void>, timings: Partial<Timings>, mapEl: HTMLElement, state: HookState): EmbedHook {
  const pm = () => state.pm;
  const offset = () => mapEl.getBoundingClientRect();
  const byName = (name: string) => pm()?.parcels.getFeatures().find((x) => nameOf(x) === name);
  return {
    ready,
    timings,
    parcelNames: () => (pm()?.parcels.getFeatures().map(nameOf) ?? []).sort(),
    drawnAt(x, y) {
      const p = pm();
      if (!p) return [];
      const r = offset();
      return p.map.getFeaturesAtPixel([x - r.left, y - r.top], { layerFilter: (l) => l === p.layers.parcels, hitTolerance: 0 })
        .map((f) => String(f.get('name')));
    },
    hoverPixelOf(name) {
      const p = pm();
      const f = byName(name);
      if (!p || !f) return null;
      const px = p.map.getPixelFromCoordinate((f.getGeometry() as Polygon).getInteriorPoint().getCoordinates());
      const r = offset();
      if (!px || px[0]! < 0 || px[1]! < 0 || px[0]! > r.width || px[1]! > r.height) return null;
      return { x: r.left + px[0]!, y: r.top + px[1]! };
    },
    featureAtCenter() {
      const p = pm();
      const c = p?.map.getView().getCenter();
      const px = c && p?.map.getPixelFromCoordinate(c);
      const f = px ? p!.parcelAtPixel(px) : null;
      return f ? nameOf(f) : null;
    },
    plantCount: () => pm()?.plants.getFeatures().length ?? 0,
    layerVisible: (layer) => pm()?.layers[layer].getVisible() ?? false,
    view() {
      const v = pm()?.map.getView();
      const [lon, lat] = toLonLat(v?.getCenter() ?? [0, 0]);
      return { center: [lon!, lat!], zoom: v?.getZoom() ?? 0 };
    },
    viewExtent() {
      const p = pm();
      if (!p) return { extent: [0, 0, 0, 0], metresPerPixel: Infinity };
      const extent = p.map.getView().calculateExtent(p.map.getSize());
      const lat = toLonLat(getCenter(extent))[1]!;
      // Web Mercator metres shrink to ground metres by cos(latitude).
      const metresPerPixel = p.map.getView().getResolution()! * Math.cos((lat * Math.PI) / 180);
      return { extent: transformExtent(extent, 'EPSG:3857', 'EPSG:4326') as [number, number, number, number], metresPerPixel };
    },
    settled: () => pm()?.settled() ?? false,
    rectOf(name) {
      const p = pm();
      const f = byName(name);
      if (!p || !f) return null;
      const [minx, miny, maxx, maxy] = f.getGeometry()!.getExtent();
      const a = p.map.getPixelFromCoordinate([minx!, maxy!]);
      const b = p.map.getPixelFromCoordinate([maxx!, miny!]);
      const r = offset();
      return a && b ? { left: r.left + a[0]!, top: r.top + a[1]!, right: r.left + b[0]!, bottom: r.top + b[1]! } : null;
    },
    colorOf(name) {
      const f = byName(name);
      return f ? categoryColor(cropCategory(f.get('crop') as CurrentCrop | null)) : null;
    },
    selected: () => (state.selected ? nameOf(state.selected) : null),
  };
}
