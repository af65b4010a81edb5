// The Measure tool's state, plain data: line or area, the vertices measured ([lon, lat]: a parcel's vertex snapped to
// is its stored value, useMeasure.ts), whether the measurement is finished, and the units (kept on this computer).
// The map's Draw and layer are useMeasure.ts's; the panel is MeasurePanel.tsx. Measuring never makes a parcel.
import { create } from 'zustand';
import { say, set as setApp, useApp, type Position2 } from '../../store.ts';
import type { MeasureKind, Units } from './measure-math.ts';

export interface MeasureState {
  kind: MeasureKind;
  points: Position2[];
  /** Finished (Enter, a double-click): shown until the next click starts another. */
  done: boolean;
  units: Units;
}

const UNITS = 'furrow-measure-units';
function savedUnits(): Units {
  try { return localStorage.getItem(UNITS) === 'us' ? 'us' : 'metric'; } catch { return 'metric'; }
}

export const useMeasure = create<MeasureState>(() => ({ kind: 'line', points: [], done: false, units: savedUnits() }));

export function setUnits(units: Units): void {
  useMeasure.setState({ units });
  try { localStorage.setItem(UNITS, units); } catch { /* this page only */ }
}

/** Starts measuring (a line, or an area): whatever was being drawn or selected is left. */
export function startMeasure(kind: MeasureKind = useMeasure.getState().kind): void {
  useMeasure.setState({ kind, points: [], done: false });
  setApp({ mode: 'measure', draft: [], drawn: false, point: null, selectedId: null });
}

export const stopMeasure = (): void => {
  useMeasure.setState({ points: [], done: false });
  if (useApp.getState().mode === 'measure') setApp({ mode: 'browse' });
};

/**
 * E and the button: measuring starts from browsing only — a polygon half drawn or a shape half modified is not
 * thrown away by a key (the status line says why nothing happened).
 */
export function toggleMeasure(): void {
  const { mode } = useApp.getState();
  if (mode === 'measure') stopMeasure();
  else if (mode === 'browse') startMeasure();
  else say(`Finish or cancel ${mode === 'modify' ? 'modifying the parcel' : 'drawing'} first (Enter or Esc), then measure.`);
}
