// Printing's state as plain data: whether its panel is open, and the map's view as a box in longitude and latitude
// (set by MapView whenever the view is read), which is what a print shows.
import { create } from 'zustand';

export interface PrintState {
  open: boolean;
  view: [number, number, number, number] | null;
}

export const usePrint = create<PrintState>(() => ({ open: false, view: null }));
export const setPrintView = (view: [number, number, number, number]) => usePrint.setState({ view });
export const togglePrint = () => usePrint.setState((s) => ({ open: !s.open }));
