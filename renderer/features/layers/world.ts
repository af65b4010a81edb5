// The offline world backdrop (issue 30): Natural Earth's land, coastlines and country borders at 1:50m, bundled with
// the app (the world-atlas package's TopoJSON, loaded as a chunk of its own when the map first shows it), so the
// zoomed-out map is never blank, online or not. Drawn as an image while the map moves (a VectorImage layer): 1,400
// rings redrawn per frame would cost the parcels their frame time.
import VectorImageLayer from 'ol/layer/VectorImage.js';
import VectorSource from 'ol/source/Vector.js';
import GeoJSON from 'ol/format/GeoJSON.js';
import { Fill, Stroke, Style } from 'ol/style.js';
import type { FeatureLike } from 'ol/Feature.js';
import { parcelsDrawn } from '../map/first-paint.ts';
import { unwrapGeometry } from './antimeridian.ts';

const LAND = new Style({ fill: new Fill({ color: '#f5f3ea' }), stroke: new Stroke({ color: '#8fb0c2', width: 1 }) });
const BORDER = new Style({ stroke: new Stroke({ color: '#a99a93', width: 1, lineDash: [4, 3] }) });
const styleOf = (f: FeatureLike) => (f.get('border') ? BORDER : LAND);

/** The backdrop's features, read once per page: land polygons, and the borders between countries as lines. */
let features: Promise<ReturnType<GeoJSON['readFeatures']>> | null = null;
/**
 * The backdrop waits for the map's first parcels (or this long, for a map with none): reading and drawing its 1 MB
 * of rings took 100-150 ms of the page's thread just before the first farm's parcels were asked for.
 */
const AFTER_PARCELS_MS = 2000;

function worldFeatures(): Promise<ReturnType<GeoJSON['readFeatures']>> {
  features ??= parcelsDrawn(AFTER_PARCELS_MS).then(() => Promise.all([import('world-atlas/countries-50m.json', { with: { type: 'json' } }), import('topojson-client')]).then(([json, topojson]) => {
    const topo = json.default as unknown as Parameters<typeof topojson.feature>[0] & { objects: Record<string, Parameters<typeof topojson.feature>[1]> };
    const format = new GeoJSON({ dataProjection: 'EPSG:4326', featureProjection: 'EPSG:3857' });
    const landJson = topojson.feature(topo, topo.objects.land!) as unknown as { type: 'FeatureCollection'; features: { type: 'Feature'; properties: unknown; geometry: { type: string; coordinates: unknown } }[] };
    // Rings across the antimeridian drew a line across the whole world (antimeridian.ts).
    const land = format.readFeatures({ ...landJson, features: landJson.features.map((f) => ({ ...f, geometry: unwrapGeometry(f.geometry) })) });
    const borders = format.readFeatures({ type: 'Feature', properties: { border: true }, geometry: topojson.mesh(topo, topo.objects.countries as never, (a, b) => a !== b) });
    return [...land, ...borders];
  }));
  return features;
}

/** A new backdrop layer (its features shared by every one made). */
export function worldBackdrop(): VectorImageLayer {
  const source = new VectorSource();
  void worldFeatures().then((f) => source.addFeatures(f.map((x) => x.clone())), () => {});
  return new VectorImageLayer({ source, style: styleOf, className: 'ol-layer world-layer', imageRatio: 1.5 });
}
