// Where the user is working, as [lon, lat] boxes: the map's view and the chosen farm's parcels. A typed position far
// from both whose swap lands on them was typed latitude first (lon-lat.ts swapSuggestion). Set by usePlaces.ts, read
// by the coordinate fields; plain data only.
import { create } from 'zustand';

export type LonLatBox = [number, number, number, number];

export interface PlacesState {
  view: LonLatBox | null;
  farm: LonLatBox | null;
}

export const usePlacesStore = create<PlacesState>(() => ({ view: null, farm: null }));

/** The boxes known now, the farm's first. */
export const placesNow = (): LonLatBox[] => {
  const { view, farm } = usePlacesStore.getState();
  return [farm, view].filter((b): b is LonLatBox => b !== null);
};
