// What the parcel list and the map's keys share, as plain data: the last thing the map's keys said of the parcel
// they selected, for screen readers (MapKeys.tsx's live region).
import { create } from 'zustand';

export const useMapKeysSaid = create<{ said: string }>(() => ({ said: '' }));
export const sayOnMap = (said: string) => useMapKeysSaid.setState({ said });
