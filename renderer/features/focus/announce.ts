// What a screen reader is told of the selection, as plain data: one polite live region (Announcer in App.tsx) says
// the parcel selected, once per selection — not the legend's count of parcels shown, which changes at every move of
// the map and would interrupt whatever is being read.
import { create } from 'zustand';

export const useAnnounce = create<{ text: string }>(() => ({ text: '' }));

/** Says `text` in the live region. */
export const announce = (text: string) => useAnnounce.setState({ text });
