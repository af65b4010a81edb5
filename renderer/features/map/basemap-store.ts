// The basemap preference: plain data (the XYZ template or null for none), kept in localStorage as a view setting of
// this browser, and whether its tiles are failing now (offline, a stopped tile server) for the quiet hint.
import { create } from 'zustand';
import { basemapUrlProblem } from '../../../core/basemap.ts';

const KEY = 'furrow-basemap';

export interface BasemapState {
  /** The XYZ URL template in use; null: no basemap (the graticule alone), the default. */
  url: string | null;
  /** The last tile asked for failed: the basemap is unavailable, the map goes on without it. */
  unavailable: boolean;
}

function saved(): string | null {
  try {
    const url = localStorage.getItem(KEY);
    // A stored value the rules now refuse (edited by hand, an older rule) is ignored, never used.
    return url && basemapUrlProblem(url) === null ? url : null;
  } catch {
    return null; // storage switched off: no preference
  }
}

export const useBasemap = create<BasemapState>(() => ({ url: saved(), unavailable: false }));

/** Uses `url` (already checked with basemapUrlProblem) or none, and remembers the choice. */
export function chooseBasemap(url: string | null): void {
  try {
    if (url) localStorage.setItem(KEY, url);
    else localStorage.removeItem(KEY);
  } catch { /* not remembered: still used for this page */ }
  useBasemap.setState({ url, unavailable: false });
}
