// The map's graticule (bearings offline; an optional basemap goes below it) and where its labels are, so parcel
// names keep off them. OpenLayers draws a graticule's labels straight onto its canvas after each render, outside
// any declutter group, so the names' placement (parcel-labels.ts) takes their boxes as obstacles instead: the same
// text, font and position the graticule draws them at.
import type OlMap from 'ol/Map.js';
import Graticule from 'ol/layer/Graticule.js';
import { Fill, Stroke, Text } from 'ol/style.js';
import { degreesToStringHDMS } from 'ol/coordinate.js';
import { toLonLat } from 'ol/proj.js';
import type { Box } from './label-placement.ts';

export const GRATICULE_FONT = '12px system-ui, sans-serif';
/**
 * Where its labels run, as fractions of the view: the longitudes along the top, the latitudes along the right; at the
 * bottom and left they crowded the scale line and the legend.
 */
const LON_AT = 0.985;
const LAT_AT = 0.985;

const lonText = (lon: number) => degreesToStringHDMS('EW', lon);
const latText = (lat: number) => degreesToStringHDMS('NS', lat);
const halo = () => new Stroke({ color: '#fff', width: 3 });

export function makeGraticule(): Graticule {
  return new Graticule({
    strokeStyle: new Stroke({ color: 'rgba(0,0,0,0.12)', width: 1 }), showLabels: true, wrapX: false,
    lonLabelPosition: LON_AT, latLabelPosition: LAT_AT, lonLabelFormatter: lonText, latLabelFormatter: latText,
    lonLabelStyle: new Text({ font: GRATICULE_FONT, textBaseline: 'bottom', fill: new Fill({ color: '#000' }), stroke: halo() }),
    latLabelStyle: new Text({ font: GRATICULE_FONT, textAlign: 'right', fill: new Fill({ color: '#000' }), stroke: halo() }),
  });
}

/**
 * The boxes (map pixels, halo included) of the labels the graticule drew at the map's last render, for a view that
 * is not rotated (a rotated one puts them elsewhere: none then). `measure` is the text's width in GRATICULE_FONT.
 */
export function graticuleLabelBoxes(graticule: Graticule, map: OlMap, measure: (text: string) => number): Box[] {
  const size = map.getSize();
  if (!size || map.getView().getRotation() !== 0) return [];
  const [width, height] = size as [number, number];
  const boxes: Box[] = [];
  // A longitude's label: centred on its meridian, its baseline at LON_AT of the height from the bottom.
  const y = height * (1 - LON_AT);
  for (const line of graticule.getMeridians()) {
    const c = line.getFirstCoordinate();
    // No pixel while the map has not been rendered (hidden, as on the first run's Connect form): no box either.
    const px = map.getPixelFromCoordinate(c) as number[] | null;
    if (!px) return [];
    const x = px[0]!;
    const w = measure(lonText(toLonLat(c)[0]!));
    boxes.push([x - w / 2 - 3, y - 17, x + w / 2 + 3, y + 3]);
  }
  // A latitude's label: ending at LAT_AT of the width, centred on its parallel.
  const x = width * LAT_AT;
  for (const line of graticule.getParallels()) {
    const c = line.getFirstCoordinate();
    const px = map.getPixelFromCoordinate(c) as number[] | null;
    if (!px) return [];
    const py = px[1]!;
    const w = measure(latText(toLonLat(c)[1]!));
    boxes.push([x - w - 3, py - 10, x + 3, py + 10]);
  }
  return boxes;
}
