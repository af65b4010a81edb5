// The attribute table's state as plain data (renderer/features/table/): open or not, whose rows (the chosen farm's or
// the account's), the sort and the filter boxes, and the selection — ids, which the map shows marked
// (features/map/parcel-layers.ts) and a shift-click on the map adds to or takes from.
import { create } from 'zustand';

export interface TableState {
  open: boolean;
  /** 'farm': the chosen farm's parcels; 'account': every parcel of the account shown. */
  scope: 'farm' | 'account';
  sort: { column: string; desc: boolean };
  /** Each column's filter box as typed (filter-text.ts reads it). */
  boxes: Record<string, string>;
  /** The rows selected, by parcel id; `anchor` the row a shift-selection extends from (its index). */
  selected: ReadonlySet<string>;
  anchor: number | null;
  /** A parcel to bring into view and select alone (one picked on the map), numbered: the same one asked twice is two. */
  reveal: { id: string; n: number } | null;
}

export const useTable = create<TableState>(() => ({
  open: false, scope: 'farm', sort: { column: 'name', desc: false }, boxes: {}, selected: new Set(), anchor: null, reveal: null,
}));

export const setTable = useTable.setState;
export const toggleTable = () => setTable((s) => ({ open: !s.open }));
/** The table's selection is these ids (and the map marks them). */
export const selectRows = (ids: Iterable<string>, anchor: number | null = useTable.getState().anchor) => setTable({ selected: new Set(ids), anchor });
/** A parcel shift-clicked on the map: into the selection, or out of it. */
export const toggleRow = (id: string) => setTable((s) => {
  const next = new Set(s.selected);
  if (!next.delete(id)) next.add(id);
  return { selected: next };
});
export const revealRow = (id: string) => setTable((s) => ({ reveal: { id, n: (s.reveal?.n ?? 0) + 1 } }));
