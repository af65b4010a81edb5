// The tile cap of an area kept offline, in words: what is refused and what to change (fewer zooms, a smaller area,
// or the setting). One sentence for the host's refusal and the form's warning before anything is downloaded. Pure.
import { countAtZoom, highestZoomWithin, type LonLatBox } from './tile-math.ts';

/** The most tiles one area is downloaded with unless FURROW_OFFLINE_MAX_TILES says otherwise. */
export const DEFAULT_TILE_CAP = 100_000;
export const TILE_CAP_SETTING = 'FURROW_OFFLINE_MAX_TILES';

const n = (v: number) => v.toLocaleString('en-US');

/** Why `tiles` tiles of `boxes` at zooms z0..z1 are refused under `cap`, saying what to change; null within it. */
export function tileCapProblem(boxes: readonly LonLatBox[], z0: number, z1: number, tiles: number, cap: number): string | null {
  if (tiles <= cap) return null;
  const head = `The area at zooms ${z0}–${z1} is ${n(tiles)} tiles: at most ${n(cap)} are downloaded at once (the setting ${TILE_CAP_SETTING}).`;
  const best = highestZoomWithin(boxes, z0, z1, cap);
  if (best === null) return `${head} Zoom ${z0} alone is ${n(countAtZoom(boxes, z0))} tiles: choose a smaller area.`;
  let within = 0;
  for (let z = z0; z <= best; z++) within += countAtZoom(boxes, z);
  return `${head} Choose zooms ${z0}–${best} (${n(within)} tiles), or a smaller area.`;
}
