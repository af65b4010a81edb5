// What Modify and Delete are working on, as plain data: the parcel's id and its rings as [lon, lat] pairs (the map's
// OpenLayers feature is the hook's, useModify.ts). The app's mode ('modify') is the main store's, so the other
// tools (select, Ctrl+Z) stand aside while a shape is being changed.
import { create } from 'zustand';
import type { Rings } from './shape.ts';

export interface Editing {
  id: string;
  name: string;
  /** A hectare point: its square is edited as a polygon, which it becomes once saved. */
  point: boolean;
  /** The rings as they were, for Esc and for telling whether anything changed. */
  original: Rings;
}

export interface EditState {
  editing: Editing | null;
  /** The rings as they are now, while modifying. */
  rings: Rings;
  /** Bumped when the rings were typed (features/coordinates/VertexTable.tsx): the map's copy takes them. */
  typed: number;
  saving: boolean;
  /** The parcel the delete confirmation asks about. */
  deleting: { id: string; name: string; hectares: number } | null;
}

export const useEdit = create<EditState>(() => ({ editing: null, rings: [], typed: 0, saving: false, deleting: null }));
export const setEdit = useEdit.setState;
/** Rings changed from the keyboard rather than on the map. */
export const typeRings = (rings: Rings) => setEdit((s) => ({ rings, typed: s.typed + 1 }));
