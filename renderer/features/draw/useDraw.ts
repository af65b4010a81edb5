// Drawing a parcel and dropping a hectare point, on the map (the panel's side is ParcelPanel.tsx and
// features/coordinates/): called once in MapView with its map and the parcels' source (for snapping). Each part adds
// its interactions, listeners and layer in effects and removes them in their cleanup, so a mode left behind leaves
// nothing on the map; the store gets plain data only ([lon, lat] vertices, the point).
import type { RefObject } from 'react';
import type OlMap from 'ol/Map.js';
import type VectorSource from 'ol/source/Vector.js';
import { useDrawPolygon } from './useDrawPolygon.ts';
import { useDropPoint } from './useDropPoint.ts';
import { useDraftLayer } from './useDraftLayer.ts';
import { usePlaces } from '../coordinates/usePlaces.ts';

export function useDraw(map: RefObject<OlMap | null>, parcels: VectorSource): void {
  useDrawPolygon(map, parcels);
  useDropPoint(map);
  useDraftLayer(map, parcels);
  // Where the user works: a vertex typed latitude first is told from it (features/coordinates/).
  usePlaces(map);
}
