// Snapping to the neighbouring parcels, shared by Draw (features/draw/) and Modify (features/edit/), so it sits with
// the parcel layers: vertices and edges of the parcels shown — and of the read-only vector overlays shown (a layer
// made of the user's cadastre, roads or drains: features/layers/file-layers.ts registers them here). While a parcel
// is modified its own outline (still shown under the edited copy, as a reference) is left out, or every small drag
// would snap back to where the vertex was.
import Snap from 'ol/interaction/Snap.js';
import Collection from 'ol/Collection.js';
import type Feature from 'ol/Feature.js';
import type VectorSource from 'ol/source/Vector.js';
import type BaseLayer from 'ol/layer/Base.js';
import { unByKey } from 'ol/Observable.js';

/** Within this many pixels of a neighbour's vertex or edge, the pointer lands on it (OpenLayers' default). */
export const SNAP_PIXELS = 10;

interface Overlay { layer: BaseLayer; source: VectorSource }
const overlays = new Set<Overlay>();
const watchers = new Set<() => void>();
const changed = () => { for (const w of watchers) w(); };

/**
 * Snaps to `source`'s features too while `layer` is visible (a vector overlay); returns the function that stops
 * (the layer gone). Interactions made before it follow it.
 */
export function snapToOverlay(layer: BaseLayer, source: VectorSource): () => void {
  const o = { layer, source };
  overlays.add(o);
  const keys = [layer.on('change:visible', changed), source.on('change', changed)];
  changed();
  return () => {
    unByKey(keys);
    overlays.delete(o);
    changed();
  };
}

/** The features of the overlays shown. */
export const overlayFeatures = (): Feature[] => [...overlays].filter((o) => o.layer.getVisible()).flatMap((o) => o.source.getFeatures() as Feature[]);

/**
 * A Snap on the parcels' source, without the parcel `except`, and on the overlays shown; `dispose` stops following
 * them.
 */
export function parcelSnap(parcels: VectorSource, except: string | null = null): { snap: Snap; dispose(): void } {
  // The source is refilled on every move of the map (MapView's viewport read): the collection follows it.
  const others = (fs: Feature[]) => fs.filter((f) => f.getId() !== except);
  const features = new Collection<Feature>([...others(parcels.getFeatures()), ...overlayFeatures()]);
  // An overlay added, shown or hidden (rare): everything again, parcels and overlays.
  const again = () => {
    features.clear();
    features.extend([...others(parcels.getFeatures()), ...overlayFeatures()]);
  };
  watchers.add(again);
  const keys = [
    parcels.on('addfeature', (e) => { if (e.feature && e.feature.getId() !== except) features.push(e.feature); }),
    parcels.on('removefeature', (e) => { if (e.feature) features.remove(e.feature); }),
    // Cleared (fast: no removefeature each): the overlays stay.
    parcels.on('clear', () => {
      features.clear();
      features.extend(overlayFeatures());
    }),
  ];
  return { snap: new Snap({ features, pixelTolerance: SNAP_PIXELS }), dispose: () => { unByKey(keys); watchers.delete(again); } };
}
