// Go to coordinate's state, plain data: whether its form is open, where the map was last sent (the marker's place,
// numbered so that the same place asked twice moves the map twice), and the EPSG code last used (kept on this
// computer: a bare pair of metres is read in it, parse-goto.ts).
import { create } from 'zustand';
import type { LonLat } from '../coordinates/lon-lat.ts';

export interface GoToState {
  open: boolean;
  target: { pos: LonLat; n: number } | null;
  lastEpsg: number | null;
}

const LAST = 'furrow-goto-epsg';
function savedEpsg(): number | null {
  try {
    const n = Number(localStorage.getItem(LAST));
    return Number.isInteger(n) && n >= 1 && n <= 32767 ? n : null;
  } catch {
    return null;
  }
}

export const useGoTo = create<GoToState>(() => ({ open: false, target: null, lastEpsg: savedEpsg() }));

export const openGoTo = (): void => useGoTo.setState({ open: true });
export const closeGoTo = (): void => useGoTo.setState({ open: false });

/** Centres the map on `pos` with a marker (useGoToMarker.ts). */
export const goTo = (pos: LonLat): void => useGoTo.setState((s) => ({ target: { pos, n: (s.target?.n ?? 0) + 1 } }));

export function rememberEpsg(code: number): void {
  useGoTo.setState({ lastEpsg: code });
  try { localStorage.setItem(LAST, String(code)); } catch { /* this page only */ }
}
