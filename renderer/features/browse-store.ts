// What browsing adds to the app's state, as plain data (keys and texts, [lon, lat] boxes, ids): the metadata filter
// the map shows, where the map is asked to fit, whether plants are shown and the plant clicked. A store of its own so
// the shared renderer/store.ts stays as it is; OpenLayers objects stay in the map's hooks.
import { create } from 'zustand';
import { useApp } from '../store.ts';
import type { MetadataFilter } from '../../core/parcels/metadata-filter.ts';
import type { MapPlace } from '../../core/api-view.ts';

export type LonLatBox = [number, number, number, number];

/** A plant as its popup shows it: the service's id, where it stands, its crown's area and the detection's info. */
export interface PlantShown { id: number; at: [number, number]; area: number; info: unknown; parcel: string | null }

export interface BrowseState {
  /** The embedded map's filter (key → accepted values); empty: every parcel. */
  filter: Record<string, string[]>;
  /** Asks the map to fit a [minLon, minLat, maxLon, maxLat] box (nonce: the same box asked again). */
  fitTo: { bbox: LonLatBox; nonce: number } | null;
  showPlants: boolean;
  /** How many plants the map shows, and whether it is cut or needs a closer zoom (null: not asked). */
  plants: { count: number; truncated: boolean; tooFar: boolean } | null;
  plant: PlantShown | null;
  /** Where the map looks (its centre and zoom), once the start's view is set: kept across restarts (features/view/). */
  place: MapPlace | null;
}

export const useBrowse = create<BrowseState>(() => ({ filter: {}, fitTo: null, showPlants: false, plants: null, plant: null, place: null }));
const set = useBrowse.setState;

export const hasFilter = (f: MetadataFilter): boolean => Object.keys(f).length > 0;

/** Adds `value` to the values accepted for `key` (any of a key's values: the embedded map's rule). */
export const addCondition = (key: string, value: string) =>
  set((s) => {
    const values = s.filter[key] ?? [];
    return values.includes(value) ? s : { filter: { ...s.filter, [key]: [...values, value] } };
  });

export const removeCondition = (key: string, value: string) =>
  set((s) => {
    const rest = (s.filter[key] ?? []).filter((v) => v !== value);
    const { [key]: _gone, ...others } = s.filter;
    return { filter: rest.length ? { ...others, [key]: rest } : others };
  });

export const clearFilter = () => set({ filter: {} });

export const fitMap = (bbox: LonLatBox) => set((s) => ({ fitTo: { bbox, nonce: (s.fitTo?.nonce ?? 0) + 1 } }));

// A filter is its account's (its keys and values are that account's metadata): another account shown starts with the
// filter it had when it was last shown in this session, else unfiltered — never one "filtered by metadata" it never
// set. Each account's is kept for the session here; the view's restore (features/view/), which comes after the start's
// account is chosen, puts back the one kept with that account across restarts.
const filters = new Map<string, Record<string, string[]>>();
useApp.subscribe((s, prev) => {
  if (s.account?.id === prev.account?.id) return;
  const { filter } = useBrowse.getState();
  if (prev.account) filters.set(prev.account.id, filter);
  const next = (s.account && filters.get(s.account.id)) ?? {};
  if (next !== filter && (hasFilter(next) || hasFilter(filter))) useBrowse.setState({ filter: next });
});
