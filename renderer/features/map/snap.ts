// Snapping to the neighbouring parcels, shared by Draw (features/draw/) and Modify (features/edit/), so it sits with
// the parcel layers: vertices and edges of the parcels shown. While a parcel is modified its own outline (still shown
// under the edited copy, as a reference) is left out, or every small drag would snap back to where the vertex was.
import Snap from 'ol/interaction/Snap.js';
import Collection from 'ol/Collection.js';
import type Feature from 'ol/Feature.js';
import type VectorSource from 'ol/source/Vector.js';
import { unByKey } from 'ol/Observable.js';

/** Within this many pixels of a neighbour's vertex or edge, the pointer lands on it (OpenLayers' default). */
export const SNAP_PIXELS = 10;

/** A Snap on the parcels' source, without the parcel `except`; `dispose` stops following the source. */
export function parcelSnap(parcels: VectorSource, except: string | null = null): { snap: Snap; dispose(): void } {
  if (except === null) return { snap: new Snap({ source: parcels, pixelTolerance: SNAP_PIXELS }), dispose: () => {} };
  // The source is refilled on every move of the map (MapView's viewport read): the collection follows it.
  const others = (fs: Feature[]) => fs.filter((f) => f.getId() !== except);
  const features = new Collection<Feature>(others(parcels.getFeatures()));
  const keys = [
    parcels.on('addfeature', (e) => { if (e.feature && e.feature.getId() !== except) features.push(e.feature); }),
    parcels.on('removefeature', (e) => { if (e.feature) features.remove(e.feature); }),
    parcels.on('clear', () => features.clear()),
  ];
  return { snap: new Snap({ features, pixelTolerance: SNAP_PIXELS }), dispose: () => unByKey(keys) };
}
