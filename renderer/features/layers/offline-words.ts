// What the offline-area form says (features/layers/OfflineAreaForm.tsx): sizes, the count and estimate before a
// download, its progress, a paused one, an area kept. Pure, so its words are tested without a page.
import type { OfflineArea } from '../../../core/api-layers.ts';
import type { OfflineDownload, OfflineEstimate, OfflineProgress } from '../../../core/api-offline.ts';

const n = (v: number) => v.toLocaleString('en-US');

/** Bytes in the unit a person reads: "820 KB", "12.4 MB", "1.2 GB". */
export function sizeWords(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  const [unit, div] = bytes < 1e6 ? ['KB', 1e3] : bytes < 1e9 ? ['MB', 1e6] : ['GB', 1e9];
  const v = bytes / div;
  return `${v < 10 ? v.toFixed(1) : Math.round(v).toLocaleString('en-US')} ${unit}`;
}

const tiles = (count: number) => `${n(count)} tile${count === 1 ? '' : 's'}`;

/** Before downloading: the count, and the size estimated from sample tiles (or why there is none). */
export function estimateWords(e: OfflineEstimate): string {
  if (e.problem) return e.problem;
  if (e.bytesEstimate === null) return `${tiles(e.tiles)}. ${e.sampleProblem ?? 'No estimate of the size.'}`;
  // Every sample empty at the server (404s): its tiles may not cover the area, which "about 0 bytes" hid.
  if (e.bytesEstimate === 0 && e.sampled > 0) {
    return `${tiles(e.tiles)}; the ${e.sampled === 1 ? 'sample tile was' : `${e.sampled} sample tiles were all`} empty at the server: does it cover this area?`;
  }
  return `${tiles(e.tiles)}, about ${sizeWords(e.bytesEstimate)} (estimated from ${e.sampled} sample tile${e.sampled === 1 ? '' : 's'}).`;
}

/** A running download: "1,200 of 4,500 tiles (26 %), 14.2 MB"; failed tiles said too. */
export function progressWords(p: OfflineProgress): string {
  const pct = p.total ? Math.floor((p.done / p.total) * 100) : 0;
  const failed = p.failed ? `; ${n(p.failed)} failed after retries` : '';
  return `${n(p.done)} of ${tiles(p.total)} (${pct} %), ${sizeWords(p.bytes)}${failed}`;
}

/** A download paused by the user, or cut by the app stopping: where it stopped, and the tiles that kept failing. */
export function pausedWords(d: Pick<OfflineDownload, 'done' | 'total'>, failed = 0): string {
  if (failed && d.done + failed >= d.total) {
    return `${tiles(d.done)} of ${n(d.total)} downloaded; ${tiles(failed)} failed after retries. Resume tries ${failed === 1 ? 'it' : 'them'} again, or keep the area without ${failed === 1 ? 'it' : 'them'}.`;
  }
  const why = failed ? ` ${tiles(failed)} failed after retries: Resume tries ${failed === 1 ? 'it' : 'them'} again.` : '';
  return `Paused at ${n(d.done)} of ${tiles(d.total)}.${why}`;
}

/** Whether a paused download lacks only tiles that failed: it may be kept without them (offlineKeepPartial). */
export const keepableWithout = (d: Pick<OfflineDownload, 'done' | 'total' | 'failed'>): boolean => d.failed > 0 && d.done + d.failed >= d.total;

/** A layer's area kept offline, beside its legend entry (which says its tiles and zooms: layer-words.ts). */
export function areaWords(a: OfflineArea): string {
  const day = new Date(a.updated);
  const when = Number.isNaN(day.getTime()) ? a.updated : day.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric' });
  // Tiles the server has no imagery for are no failure, but an area of many looks thinner than its count said.
  const empty = a.empty ? `${tiles(a.tiles)} kept, ${n(a.empty)} empty (the server has no imagery there)` : null;
  if (a.missing) {
    return `Area kept offline without ${tiles(a.missing)} the server did not give${empty ? `; ${empty}` : ''}, updated ${when}. Update tries ${a.missing === 1 ? 'it' : 'them'} again.`;
  }
  return empty ? `Area kept offline: ${empty}, updated ${when}.` : `Area kept offline, updated ${when}.`;
}

/** The providers' terms, said where the user chooses to download. */
export const BULK_WARNING = "Many tile providers (OpenStreetMap's own servers among them) forbid bulk downloads: keep offline only from a source whose terms allow it.";
